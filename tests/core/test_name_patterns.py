"""Name and digest patterns are anchored at the very end of the text: Python's ``$``
also matches before a final newline, so ``"good\\n"`` passed as a plugin name (a
folder name on install), a skill or agent name, a style segment or a digest."""

import pytest

from wskit.builtin_plugins.agents.loader import _NAME as AGENT_NAME
from wskit.builtin_plugins.bundles.manifest import NAME_RE as PLUGIN_NAME
from wskit.builtin_plugins.lsp.loader import EXT_RE
from wskit.builtin_plugins.lsp.loader import NAME_RE as LSP_NAME
from wskit.builtin_plugins.rules.session import _HEX64 as RULE_HEX64
from wskit.builtin_plugins.skills.lint import SPEC_NAME
from wskit.builtin_plugins.skills.tools import _BARE
from wskit.builtin_plugins.styles.loader import SEGMENT
from wskit.builtin_plugins.workspaces.paths import AGENT_ID_RE
from wskit.session.extensions import _HEX64 as RESUME_HEX64
from wskit.session.extensions import _TRUST_DIGEST
from wskit.session.monitor import _HEX64 as MONITOR_HEX64

HEX = "a" * 64
CASES = [
    (PLUGIN_NAME, "good"), (SPEC_NAME, "good"), (AGENT_NAME, "good"), (SEGMENT, "good"), (_BARE, "Read"),
    (LSP_NAME, "pyright"), (EXT_RE, ".py"), (AGENT_ID_RE, "agent-1"), (RULE_HEX64, HEX), (MONITOR_HEX64, HEX),
    (RESUME_HEX64, HEX), (_TRUST_DIGEST, "sha256:" + HEX),
]


@pytest.mark.parametrize("pattern,good", CASES, ids=lambda v: getattr(v, "pattern", v)[:30])
def test_a_trailing_newline_is_refused(pattern, good):
    assert pattern.match(good)
    assert pattern.match(good + "\n") is None
    assert pattern.match(good + "\n\n") is None


@pytest.mark.parametrize("module,attr,good", [
    ("wskit.builtin_plugins.commands.loader", "_SEGMENT", "deploy"), ("wskit.host", "_NAME", "claude"),
    ("wskit.builtin_plugins.hooks.definitions", "_ENV_NAME", "HOOK_TOKEN"), ("wskit.builtin_plugins.styles.catalog", "_SELECTION", "user:terse"),
    ("wskit_gemini.extensions", "_NAME", "my-ext"), ("wskit_gemini.commands", "_SEGMENT", "deploy"),
])
def test_lazy_name_patterns_refuse_a_trailing_newline(module, attr, good):
    import importlib

    mod = importlib.import_module(module)
    pattern = getattr(mod, attr)  # compiled on first use (wskit.util.lazyre)
    assert pattern.match(good) and pattern.match(good + "\n") is None
