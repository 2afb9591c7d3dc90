"""An agent loop with a language server (docs/runtime.md, "An agent loop with a
language server"; run by tests/docs/test_lsp_example.py). Needs python-lsp-server
with its pyflakes plugin: pip install 'python-lsp-server[pyflakes]'."""

import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from wskit.approval.store import ApprovalStore
from wskit.binding import Binding
from wskit.builtin_plugins.lsp import server_approval
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.session import snapshot
from wskit.session.runtime import RuntimeOptions, attach
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

tmp = Path(tempfile.mkdtemp())
home, project = tmp / "home", tmp / "project"
(project / ".git").mkdir(parents=True)
(project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
(project / "pkg").mkdir()
(project / "pkg" / "__init__.py").write_text("")
(project / "pkg" / "shapes.py").write_text(
    "class Square:\n    def __init__(self, side):\n        self.side = side\n\n\n"
    "def make(side):\n    return Square(side)\n")
(project / "main.py").write_text("from pkg.shapes import make\n\nprint(make(2).side)\n")
pylsp = shutil.which("pylsp") or str(Path(sys.executable).with_name("pylsp"))
(project / ".lsp.json").write_text(json.dumps({"pylsp": {       # as a project would ship it
    "command": pylsp, "extensionToLanguage": {".py": "python"},
    "diagnosticWaitTimeout": 5000, "startupTimeout": 30000, "requestTimeout": 30000}}))
home.mkdir()
TrustStore.for_home(home).grant(project)                         # .lsp.json is read only when trusted

pm = make_plugin_manager()                                       # built-ins + installed plugins (wskit-lsp)
workspace = load_workspace(WskitHooks(pm), Binding.discover(project), HostProfile(name="wskit", home=home))
server = workspace.registry("lsp_server").get("pylsp")
state, why, entry = server_approval(server, workspace.binding, home)  # a project's server: "awaiting"
assert state == "awaiting"                                       # show entry.label, entry.files and
assert entry.unverified                                          # entry.unverified (pylsp reads the project's
ApprovalStore.for_home(home).approve(project, [entry], entry.digest,  # configuration) to the user;
                                     accept_unverified=True)     # they said yes to what they saw
session = snapshot(workspace)
rt = attach(session, RuntimeOptions())
assert session.lsp.tool_definitions() == []                      # no server runs yet: no LSP tool
session.lsp.did_open("main.py")                                  # starts pylsp (cwd, rootUri = execution root)
tools = session.lsp.tool_definitions()                           # register these with the model
assert tools[0]["name"] == "LSP"


def run_tool(sess, tool, args, use_id):
    """One tool call of the host, with its PostToolUse hooks (where the diagnostics come in)."""
    if tool == "LSP":
        out = sess.lsp.call_tool("LSP", args)
        result = out["text"]
    elif tool == "Write":
        Path(args["file_path"]).write_text(args["content"])
        result = "ok"
    post = sess.hook_runner.run("PostToolUse", {"tool_name": tool, "tool_input": args, "tool_use_id": use_id,
                                          "tool_response": result}, tool=tool)
    return result + ("\n" + post.context if post.context else "")   # the model sees both


main = str(project / "main.py")
calls = [  # a scripted "model"
    ("LSP", {"operation": "goToDefinition", "filePath": main, "line": 3, "character": 7}),
    ("LSP", {"operation": "findReferences", "filePath": "pkg/shapes.py", "line": 6, "character": 5}),
    ("Write", {"file_path": main, "content": "from pkg.shapes import make\n\nprint(make(2).side, sidee)\n"}),
    ("Write", {"file_path": main, "content": "from pkg.shapes import make\n\nprint(make(2).side)\n"}),
]
transcript = [run_tool(session, tool, args, f"call-{i}") for i, (tool, args) in enumerate(calls)]

assert transcript[0] == "pkg/shapes.py:6:5"                       # relative to the project
assert transcript[1] == "main.py:1:24\nmain.py:3:7\npkg/shapes.py:6:5"
assert "<new-diagnostics>" in transcript[2] and "[Line 3:21] undefined name 'sidee'" in transcript[2]
assert transcript[3] == "ok"                                     # fixed: nothing new to report
assert session.lsp.version("main.py") == 3                       # open, then one change per write

# A subagent: the child session uses the parent's running server, with its own documents.
child = session.child()
pid = session.lsp.running()["project:pylsp"]["pid"]
answer = run_tool(child, "LSP", {"operation": "documentSymbol", "filePath": "pkg/shapes.py"}, "sub-1")
assert answer.splitlines()[0] == "class Square  pkg/shapes.py:1:1"
assert child.lsp.running()["project:pylsp"]["pid"] == pid and child.lsp.documents() == {"pkg/shapes.py": 1}
child.close()                                                    # closes its documents, not the server

# The server crashes: the next call starts generation 2, with the open documents reopened.
os.kill(pid, signal.SIGKILL)
again = run_tool(session, "LSP", {"operation": "hover", "filePath": main, "line": 3, "character": 8}, "call-9")
assert "make(side)" in again
assert session.lsp.running()["project:pylsp"]["generation"] == 2

session.close()                                                  # shutdown/exit, then the process group is killed
