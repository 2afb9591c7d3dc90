"""``wsctl rules`` loads only the rule catalog (binding, trust, rules) when that is the same
answer as a whole workspace load; the two are compared here on trees with every kind of
resource beside the rules, under each host, trusted and not."""

from __future__ import annotations

import pytest

import wskit.builtin_plugins.rules.bodies as rules_cli
from wskit.plugin.manager import make_plugin_manager
from wskit.testing import write_tree

TREE = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".gitignore": "build/\n*.log\n",
    "CLAUDE.md": "root rules\n@docs/extra.md\n",
    "AGENTS.md": "agents root\n",
    "GEMINI.md": "gemini root\n",
    "docs/extra.md": "imported\n",
    "src/AGENTS.md": "src agents\n",
    "src/CLAUDE.md": "src claude\n",
    "src/app/main.ts": "x\n",
    "build/AGENTS.md": "ignored\n",
    ".claude/rules/ts.md": "---\npaths:\n  - \"src/**/*.{ts,tsx}\"\n---\nts rule\n",
    ".claude/rules/bad.md": "---\npaths: \"[unclosed\"\n---\nbad\n",
    ".claude/rules/plain.md": "always\n",
    ".claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: A demo.\n---\nBody.\n",
    ".claude/commands/hi.md": "---\ndescription: Say hi.\n---\nhi\n",
    ".claude/agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nPrompt.\n",
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(ls:*)"]}, "hooks": {}}',
    ".mcp.json": '{"mcpServers": {"srv": {"command": "run-srv"}}}',
    ".gemini/commands/g.toml": 'prompt = "hi"\n',
}


def _both(wsctl, monkeypatch, *args, **kw):
    fast = wsctl(*args, json=True, **kw)
    seen = []
    real = rules_cli._load_rules_only

    def whole(*a, **k):
        seen.append(1)
        return None

    monkeypatch.setattr(rules_cli, "_load_rules_only", whole)
    try:
        slow = wsctl(*args, json=True, **kw)
    finally:
        monkeypatch.setattr(rules_cli, "_load_rules_only", real)
    assert seen, "the whole-load run did not go through the rules command"
    return fast, slow


@pytest.mark.parametrize("host", ["wskit", "claude", "codex", "gemini", "opencode"])
@pytest.mark.parametrize("trusted", [True, False])
def test_rules_only_answers_as_the_whole_load(tmp_path, wsctl, monkeypatch, host, trusted):
    root = write_tree(tmp_path / "ws", TREE)
    if trusted:
        assert wsctl("trust", "grant", str(root)).exit_code == 0
    queries = [
        ("rules", str(root)),
        ("rules", "--for", str(root / "src/app/main.ts"), str(root)),
        ("rules", "--cwd", str(root / "src"), "--for", str(root / "src/app/main.ts"), str(root)),
        ("rules", "--shell", str(root)),
        ("rules", "--budget", "20", "--for", str(root / "src/app/main.ts"), str(root)),
        ("rules", str(root / "src")),
    ]
    for q in queries:
        fast, slow = _both(wsctl, monkeypatch, "--host", host, *q)
        assert (fast.exit_code, fast.output) == (slow.exit_code, slow.output), q


def test_the_whole_load_is_kept_when_another_plugin_may_name_the_rules_catalog(tmp_path, wsctl):
    import wskit

    class Other:
        @wskit.hookimpl
        def wskit_workspace_catalogs(self, workspace):
            return {"rules": None}

    pm = make_plugin_manager(load_entrypoints=False, plugins=[Other()])
    root = write_tree(tmp_path / "ws", TREE)
    assert wsctl("trust", "grant", str(root), pm=pm).exit_code == 0
    calls = []
    real = rules_cli._load_rules_only

    def spy(*a, **k):
        got = real(*a, **k)
        calls.append(got)
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rules_cli, "_load_rules_only", spy)
        res = wsctl("rules", str(root), json=True, pm=pm)
    assert res.exit_code == 0 and calls == [None]


def test_the_whole_load_is_kept_for_explicit_plugin_folders(tmp_path, wsctl, monkeypatch):
    root = write_tree(tmp_path / "ws", TREE)
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    calls = []
    real = rules_cli._load_rules_only
    monkeypatch.setattr(rules_cli, "_load_rules_only", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    res = wsctl("--plugin-dir", str(tmp_path / "missing-plugin"), "rules", str(root), json=True)
    assert calls == [None]
    assert "plugin-dir-missing" in res.output  # the folder's failure is still reported


@pytest.mark.parametrize("host", ["wskit", "gemini"])
def test_rules_only_answers_as_the_whole_load_with_the_installed_plugins(tmp_path, wsctl, monkeypatch, host):
    """With the entry points installed (wskit-gemini's GEMINI.md memory is a rule discoverer)."""
    pm = make_plugin_manager()
    root = write_tree(tmp_path / "ws", TREE)
    assert wsctl("trust", "grant", str(root), pm=pm).exit_code == 0
    for q in (("rules", str(root)), ("rules", "--for", str(root / "src/app/main.ts"), str(root))):
        fast, slow = _both(wsctl, monkeypatch, "--host", host, *q, pm=pm)
        assert (fast.exit_code, fast.output) == (slow.exit_code, slow.output), q


def test_a_corrupt_trust_store_is_said_alike_by_both_loads(tmp_path, wsctl, monkeypatch, wskit_home):
    """A store that cannot be read fails closed (project rules left out) and ``wsctl rules``
    says why, as ``inspect`` does, whichever load answers."""
    root = write_tree(tmp_path / "ws", TREE)
    store = wskit_home / ".wskit" / "trust.toml"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text("garbage [[[ =")
    store.chmod(0o600)
    fast, slow = _both(wsctl, monkeypatch, "rules", "--for", str(root / "src/app/main.ts"), str(root))
    assert (fast.exit_code, fast.output) == (slow.exit_code, slow.output)
    import json

    codes = [d["code"] for d in json.loads(fast.output)["diagnostics"]]
    assert codes.count("trust-store-error") == 1


def test_a_diagnostic_is_listed_once(tmp_path, wsctl, monkeypatch):
    """A settings file both the root's and a request's discovery read is reported once."""
    root = write_tree(tmp_path / "ws", {**TREE, ".gemini/settings.json": "{bad"})
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    pm = make_plugin_manager()
    res = wsctl("rules", "--for", str(root / "src/app/main.ts"), str(root), json=True, pm=pm)
    import json

    diags = [(d["code"], d.get("path")) for d in json.loads(res.output)["diagnostics"]]
    assert len(diags) == len(set(diags)), diags
