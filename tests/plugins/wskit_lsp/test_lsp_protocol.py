"""What real servers send that lsprotocol cannot read: the capabilities it does
not understand are left out and reported (the rest still work), and an answer
it cannot read fails its request at once, naming the method — never a traceback
on stderr and a wait for the timeout."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.resources.servers import LspServer
from wskit.session.build import provenance

RAW = Path(__file__).resolve().parent / "raw_server.py"


def test_capabilities_of_the_wrong_shape_are_left_out_and_reported(session_for, capsys):
    from wskit_lsp import LspError

    d = LspServer(id="user:raw", name="raw", command=sys.executable, args=(str(RAW),),
                  extension_to_language={".py": "python"}, request_timeout=30000,
                  provenance=provenance("user", "/home", ".lsp.json", {}))
    s = session_for(d)
    s.lsp.did_open("app.py")
    dropped = s.lsp.running()["user:raw"]["dropped_capabilities"]
    assert [x.split(":")[0] for x in dropped] == ["semanticTokensProvider"]
    caps = s.lsp.capabilities("raw")
    assert caps.hover_provider is True and caps.notebook_document_sync is not None  # pylsp's selector is read
    assert caps.semantic_tokens_provider is None and caps.definition_provider is True
    # an answer that is not a Hover: an error at once, not the 30 s request timeout
    start = time.monotonic()
    with pytest.raises(LspError, match="cannot read the server's answer to textDocument/hover"):
        s.lsp.hover("app.py", 0, 1)
    assert time.monotonic() - start < 20
    # a location outside the execution root stays absolute and says so
    (loc,) = s.lsp.goto_definition("app.py", 0, 1).items
    assert loc == {"path": "/elsewhere/lib.py", "line": 3, "character": 4, "end_line": 3, "end_character": 9,
                   "in_root": False}
    assert "Traceback" not in capsys.readouterr().err


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab\n é𝄞😀", max_size=30), st.text(alphabet="ab\n é𝄞😀", max_size=30),
       st.sampled_from(["utf-16", "utf-32", "utf-8"]))
def test_incremental_edit_applied_to_the_old_text_gives_the_new(old, new, encoding):
    from wskit_lsp.documents import from_lsp_column, incremental_edit, line_at

    edit = incremental_edit(old, new, encoding)
    if old == new:
        assert edit is None
        return
    (sl, sc, el, ec), text = edit

    def offset(line, units):
        lines = old.split("\n")
        return sum(len(x) + 1 for x in lines[:line]) + from_lsp_column(line_at(old, line), units, encoding)

    assert old[:offset(sl, sc)] + text + old[offset(el, ec):] == new


def test_columns_convert_between_code_points_and_utf16():
    from wskit_lsp.documents import from_lsp_column, to_lsp_column

    line = "a𝄞b"  # 𝄞 is two UTF-16 units, four UTF-8 bytes
    assert [to_lsp_column(line, i) for i in range(4)] == [0, 1, 3, 4]
    assert [to_lsp_column(line, i, "utf-8") for i in range(4)] == [0, 1, 5, 6]
    assert [from_lsp_column(line, u) for u in (0, 1, 3, 4, 99)] == [0, 1, 2, 3, 3]
