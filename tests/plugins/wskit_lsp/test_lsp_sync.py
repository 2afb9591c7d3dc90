"""Document sync and current diagnostics against the pygls test server: versions,
incremental or full changes, saves, the diagnostics of the latest version only
(also from a server that publishes an older text's diagnostics first), and the
after-write report through the PostToolUse hook point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import lsp_def

# A language server per test waiting on its publishes (~14 s in all): the slow step runs it; the default
# run keeps test_lsp_service.py, test_lsp_generations.py and test_lsp_pylsp.py.
pytestmark = pytest.mark.slow


def changes(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def test_incremental_changes_keep_the_server_text_equal_and_versions_increase(session_for, tmp_path):
    log = tmp_path / "log"
    s = session_for(lsp_def(env={"LOG_FILE": str(log)}))
    s.lsp.did_open("app.py")
    assert s.lsp.version("app.py") == 1
    texts = ["import os\nvalue = 2  # TODO fix\n",
             "import os\n# é€𝄞 wide\nvalue = 2  # TODO fix\n",      # non-ASCII: UTF-16 surrogate pair
             "import os\n# é€𝄞 wider😀\nvalue = 2\n"]
    for i, text in enumerate(texts, 2):
        assert s.lsp.did_change("app.py", text) == i
    assert s.lsp.did_change("app.py", texts[-1]) == 4          # same text: no change, same version
    # a request is answered after the notifications before it: the log is complete then
    assert s.lsp.hover("app.py", 1, len("# é€𝄞 wid")).startswith("wider @")
    got = [x for x in changes(log) if "version" in x]
    assert [x["version"] for x in got] == [2, 3, 4]
    assert {k for x in got for k in x["kind"]} == {"incremental"}
    assert got[-1]["text"] == texts[-1]                         # the server applied the ranges exactly
    assert s.lsp.documents() == {"app.py": 4}


def test_full_sync_and_save_with_text(session_for, tmp_path):
    log = tmp_path / "log"
    s = session_for(lsp_def(env={"LOG_FILE": str(log), "SYNC": "full"}))
    s.lsp.did_open("app.py")
    assert s.lsp.did_save("app.py", "x = 1\n") is True           # changed, then saved with its text
    s.lsp.hover("app.py", 0, 0)                                # answered after both notifications
    got = changes(log)
    assert got[0] == {"version": 2, "kind": ["full"], "text": "x = 1\n"}
    assert got[1] == {"saved": "app.py", "text": "x = 1\n"}
    s.lsp.did_close("app.py")
    assert s.lsp.documents() == {}
    assert s.lsp.version("app.py") is None


@pytest.mark.parametrize("versioned", ["1", "0"], ids=["versioned-publish", "unversioned-publish"])
def test_diagnostics_are_never_an_older_versions(session_for, versioned):
    # the server first publishes the previous text's diagnostics, then the new ones 0.3 s later
    s = session_for(lsp_def(env={"STALE": "1", "VERSIONED": versioned}))
    s.lsp.did_open("app.py")
    assert [d["line"] for d in s.lsp.diagnostics("app.py", wait=10)] == [1]
    for n in range(3):
        text = "import os\n" + "".join(f"x{i} = 1  # TODO {n}\n" for i in range(n + 2))
        s.lsp.did_change("app.py", text)
        diags = s.lsp.diagnostics("app.py", wait=10)
        assert [d["message"] for d in diags] == [f"TODO left in code: x{i} = 1  # TODO {n}" for i in range(n + 2)]


def test_a_late_publish_for_the_older_text_does_not_replace_the_current_one(session_for):
    import time

    s = session_for(lsp_def(env={"LATE": "1", "VERSIONED": "1"}))
    s.lsp.did_open("app.py")
    s.lsp.did_change("app.py", "clean = 1\n")
    assert s.lsp.diagnostics("app.py", wait=10) == []
    time.sleep(0.5)                                            # the version-1 publish has come by now
    s.lsp.hover("app.py", 0, 1)
    assert s.lsp.diagnostics("app.py", wait=0) == []


def test_a_publish_that_may_be_older_is_not_returned(session_for):
    from wskit_lsp import DiagnosticsNotReady

    # unversioned, published while handling the change, before the sync barrier's answer:
    # it cannot be told from an older text's, so the wait ends without a result
    s = session_for(lsp_def())
    s.lsp.did_open("app.py")
    assert len(s.lsp.diagnostics("app.py", wait=10)) == 1     # the open: nothing older exists
    s.lsp.did_change("app.py", "clean = 1\n")
    with pytest.raises(DiagnosticsNotReady) as err:
        s.lsp.diagnostics("app.py", wait=0.5)
    assert err.value.version == 2 and "version 2" in str(err.value)


def test_pull_diagnostics_are_exact(session_for):
    s = session_for(lsp_def(env={"PULL": "1"}))
    s.lsp.did_open("app.py")
    s.lsp.did_change("app.py", "a = 1  # TODO one\nb = 2  # TODO two\n")
    assert [d["line"] for d in s.lsp.diagnostics("app.py", wait=5)] == [0, 1]


def test_after_write_gives_new_diagnostics_and_the_post_tool_use_hook_feeds_them(session_for):
    s = session_for(lsp_def(env={"VERSIONED": "1"}))
    root = Path(s.binding.execution_root)
    s.lsp.did_open("app.py")
    assert len(s.lsp.diagnostics("app.py", wait=10)) == 1
    (root / "app.py").write_text("import os\nvalue = 1  # TODO fix\nmore = 2  # TODO new\n", encoding="utf-8")
    report = s.lsp.after_write(root / "app.py", wait=10)
    assert report.current and report.version == 2 and len(report.diagnostics) == 2
    assert [d["line"] for d in report.new] == [2]             # the old TODO is not new
    text = report.render()
    assert text.startswith("<new-diagnostics>") and "app.py:" in text
    assert "⚠ [Line 3:13] TODO left in code: more = 2  # TODO new [todo] (wskit-test)" in text
    assert "Line 2:" not in text

    # the host's PostToolUse after a Write runs the service's hook: the report is the added context
    (root / "app.py").write_text("import os\nvalue = 1  # TODO fix\nmore = 2  # TODO new\nlast = 3  # TODO 3\n",
                                 encoding="utf-8")
    out = s.hook_runner.run("PostToolUse", {"tool_name": "Write", "tool_use_id": "w1",
                                      "tool_input": {"file_path": str(root / "app.py"), "content": "…"},
                                      "tool_response": "ok"}, tool="Write")
    assert "[Line 4:13] TODO left in code: last = 3  # TODO 3" in out.context
    assert "Line 3:" not in out.context
    assert s.lsp.version("app.py") == 3
    # a tool that writes nothing LSP serves adds nothing
    quiet = s.hook_runner.run("PostToolUse", {"tool_name": "Write", "tool_use_id": "w2",
                                        "tool_input": {"file_path": str(root / "notes.txt")}}, tool="Write")
    assert quiet.context == ""


def test_after_write_of_a_file_not_open_starts_its_server(session_for):
    s = session_for(lsp_def(env={"VERSIONED": "1"}))
    assert s.lsp.after_write("notes.txt") is None              # no server for .txt
    report = s.lsp.after_write("app.py", wait=10)
    assert report.current and report.server == "user:pyls" and [d["line"] for d in report.new] == [1]
