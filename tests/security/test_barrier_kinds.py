"""The rule barrier cannot be switched off by a typo in the tool kind.

``check_invocation(tool, kind, paths)`` used to treat any unknown string as
"not a write": ``"wirte"`` or ``"Write"`` let a write through with its rules
undelivered. Kinds are now :class:`wskit.ToolKind`; an unknown one raises
``ValueError`` at every entry point (session, rules component, batch).
"""

from __future__ import annotations

import pytest

from wskit import ToolKind
from wskit.binding import Binding
from wskit.builtin_plugins.rules import Proceed, RulesRequired
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.session import snapshot
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

TYPOS = ["wirte", "Write", "WRITE", " write", "write ", "", "edits", "bash", "exec", None, 1, b"write"]


@pytest.fixture
def session(tmp_path, wskit_home, wskit_pm):
    root = tmp_path / "ws"
    write_tree(root, {".git/HEAD": "ref: refs/heads/main\n", "CLAUDE.md": "root",
                      "api/AGENTS.md": "api rules"})
    TrustStore.for_home(wskit_home).set(root, "trusted")
    ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(root), HostProfile(home=wskit_home))
    return snapshot(ws)


@pytest.mark.parametrize("kind", TYPOS, ids=repr)
def test_unknown_tool_kind_is_refused_not_read(session, kind):
    with pytest.raises(ValueError, match="unknown tool kind"):
        session.check_invocation("Write", kind, ["api/x.py"])
    with pytest.raises(ValueError, match="unknown tool kind"):
        session.rules.check_invocation("Write", kind, ["api/x.py"])
    with pytest.raises(ValueError, match="unknown tool kind"):
        session.rules.rules_for(["api/x.py"], kind)
    for policy in ("writes", "batch"):
        session.rules.policy = policy
        with pytest.raises(ValueError, match="unknown tool kind"):
            session.rules.check_batch([("Read", "read", ["api/x.py"]), ("Write", kind, ["api/x.py"])])
    # nothing was recorded as delivered by the refused calls: the real write is still held back
    session.rules.policy = "writes"
    assert isinstance(session.check_invocation("Write", "write", ["api/x.py"]), RulesRequired)


@pytest.mark.parametrize("kind", list(ToolKind))
def test_every_kind_as_member_or_value_behaves_the_same(session, kind):
    by_member = session.check_invocation("T", kind, ["api/x.py"])
    by_value = session.check_invocation("T", kind.value, ["api/x.py"])
    assert type(by_member) is type(by_value)
    assert isinstance(by_member, RulesRequired if kind.is_write else Proceed)
