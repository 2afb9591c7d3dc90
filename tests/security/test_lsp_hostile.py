"""A model names the file a write tool wrote, and the LSP service reads it: a path
outside the execution root (``..``, absolute elsewhere) or a link out of it is
refused, the PostToolUse hook reports it instead of raising, and nothing outside
is read or sent to the server."""

from __future__ import annotations

import os

import pytest

from tests.plugins.wskit_lsp.conftest import lsp_def
from wskit.session.testing import no_leaked_children  # noqa: F401  (autouse)


@pytest.fixture
def lsp_session(tmp_path):
    wskit_lsp = pytest.importorskip("wskit_lsp")
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager
    from wskit.session.build import session_from_resources

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(wskit_lsp, name="lsp-client")
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.py").write_text("SECRET = 1  # TODO leak\n", encoding="utf-8")
    os.symlink(tmp_path / "secret.py", root / "link.py")
    s = session_from_resources(Binding(source_root=root, execution_root=root, cwd=root),
                               [lsp_def(env={"LOG_FILE": str(tmp_path / "log")})], hooks=WskitHooks(pm))
    yield s, root, tmp_path
    s.close()


@pytest.mark.parametrize("name", ["../secret.py", "{tmp}/secret.py", "{root}/sub/../../secret.py"])
def test_paths_outside_the_execution_root_are_refused(lsp_session, name):
    from wskit_lsp import LspError

    s, root, tmp = lsp_session
    path = name.format(tmp=tmp, root=root)
    with pytest.raises(LspError, match="outside the execution root"):
        s.lsp.after_write(path)
    out = s.hook_runner.run("PostToolUse", {"tool_name": "Write", "tool_use_id": name,
                                      "tool_input": {"file_path": path}}, tool="Write")
    assert out.context == "" and any("outside the execution root" in m for m in out.system_messages)
    assert s.lsp.running() == {}                      # nothing was started, nothing read


def test_a_link_out_of_the_root_is_not_followed(lsp_session):
    from wskit.fs import SafeFsError

    s, root, tmp = lsp_session
    with pytest.raises(SafeFsError):
        s.lsp.did_open("link.py")
    out = s.hook_runner.run("PostToolUse", {"tool_name": "Edit", "tool_use_id": "e1",
                                      "tool_input": {"file_path": str(root / "link.py")}}, tool="Edit")
    assert out.context == "" and out.system_messages
    assert not (tmp / "log").exists() or "SECRET" not in (tmp / "log").read_text()
    assert s.lsp.documents() == {}
