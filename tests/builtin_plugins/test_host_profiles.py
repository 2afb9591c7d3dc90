"""Host profiles: what each reproduced host reads beyond the conformance cases
(tests/conformance): skill precedence, Gemini's TOML-only commands folder, an MCP
placeholder server, and that wskit-gemini leaves other hosts alone."""

from __future__ import annotations

import json

import pytest

from wskit import HostProfile, WorkspaceCache
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore


@pytest.fixture(scope="module")
def pm():
    return make_plugin_manager(load_entrypoints=True, env={})


def _load(pm, tmp_path, files: dict[str, str], host: str, cwd: str = ""):
    project, home = tmp_path / "p", tmp_path / "h"
    for rel, text in {".git/HEAD": "ref: refs/heads/main\n", **files}.items():
        where = home / rel[2:] if rel.startswith("~/") else project / rel
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(text)
    home.mkdir(exist_ok=True)
    TrustStore.for_home(home).grant(project)
    return WorkspaceCache(HostProfile(name=host, home=home), pm).resolve(str(project / cwd))


def _skill(desc: str) -> str:
    return f"---\nname: s\ndescription: {desc}\n---\nbody\n"


def test_presets_set_the_convention_flags_and_keep_explicit_ones():
    assert HostProfile(name="codex").family == "codex"
    assert not HostProfile(name="codex").claude_conventions
    assert not HostProfile(name="claude").agents_conventions
    assert HostProfile(name="codex", claude_conventions=True).claude_conventions
    assert HostProfile(name="blade").family is None and HostProfile().family is None


def test_gemini_agents_skills_outrank_gemini_skills_in_each_scope(pm, tmp_path):
    ws = _load(pm, tmp_path, {".gemini/skills/s/SKILL.md": _skill("from .gemini"),
                              ".agents/skills/s/SKILL.md": _skill("from .agents"),
                              "~/.gemini/skills/u/SKILL.md": _skill("user .gemini").replace("name: s", "name: u"),
                              "~/.agents/skills/u/SKILL.md": _skill("user .agents").replace("name: s", "name: u")},
               "gemini")
    by = {s.name: s.description for s in ws.registry("skill").active()}
    assert by["s"] == "from .agents" and by["u"] == "user .agents"


def test_nearer_skills_folder_wins_on_the_chain_for_codex(pm, tmp_path):
    ws = _load(pm, tmp_path, {".agents/skills/s/SKILL.md": _skill("root"),
                              "a/.agents/skills/s/SKILL.md": _skill("nearer"), "a/x": ""}, "codex", cwd="a")
    assert [s.description for s in ws.registry("skill").active() if s.name == "s"] == ["nearer"]


def test_a_markdown_file_in_gemini_commands_is_not_a_command(pm, tmp_path):
    ws = _load(pm, tmp_path, {".gemini/commands/g/a.toml": 'prompt = "hi {{args}}"\n',
                              ".gemini/commands/b.md": "---\ndescription: B\n---\nbody\n",
                              ".claude/commands/c.md": "---\ndescription: C\n---\nbody\n"}, "wskit")
    assert sorted(c.name for c in ws.registry("command").active()) == ["c", "g:a"]


def test_wskit_gemini_does_not_change_other_hosts(pm, tmp_path):
    files = {"GEMINI.md": "S:GEMINI.md\n", "AGENTS.md": "S:AGENTS.md\n", ".gemini/skills/s/SKILL.md": _skill("g")}
    for host, expected in (("codex", ["AGENTS.md"]), ("opencode", ["AGENTS.md"]), ("claude", ["AGENTS.md"]),
                           ("gemini", ["GEMINI.md"])):
        ws = _load(pm, tmp_path / host, files, host)
        static = ws.catalog("rules").static_rules(str(ws.binding.source_root)).files
        assert [r.path for r in static] == expected, host
        skills = [s.name for s in ws.registry("skill").active() if s.name == "s"]
        assert skills == ([] if host != "gemini" else ["s"]), host


def test_an_mcp_server_with_an_empty_url_is_listed_not_startable_and_warned(pm, tmp_path):
    ws = _load(pm, tmp_path, {".mcp.json": json.dumps({"mcpServers": {"remote": {"type": "http", "url": ""},
                                                                      "ok": {"command": "srv"}}})}, "wskit")
    from wskit.builtin_plugins.mcp.loader import resolve_mcp_servers

    reg, diags = resolve_mcp_servers(ws)
    servers = {s.name: s for s in reg.active()}
    assert not servers["remote"].startable and servers["remote"].incomplete == ("url",)
    assert servers["ok"].startable
    warned = [d for d in [*ws.diagnostics, *diags] if d.code == "mcp-not-startable"]
    assert warned and warned[0].level == "warning" and "url" in warned[0].message


def test_claude_bookkeeping_folders_are_not_plugins_and_project_plugins_need_another_host(pm, tmp_path):
    """``~/.claude/plugins/{cache,marketplaces}`` are Claude Code's install records, never
    plugins; a project's ``.claude/plugins/<name>`` is no source Claude Code knows, so host
    ``claude`` does not activate it (the default host still reads it, as documented);
    a project ``.lsp.json`` is off for host ``claude``."""
    manifest = json.dumps({"name": "mine", "description": "d"})
    files = {"~/.claude/plugins/cache/x/.claude-plugin/plugin.json": manifest,
             "~/.claude/plugins/marketplaces/m/.claude-plugin/marketplace.json": "{}",
             "~/.claude/plugins/installed_plugins.json": "{}",
             ".claude/plugins/cloned/.claude-plugin/plugin.json": json.dumps({"name": "cloned"}),
             ".lsp.json": json.dumps({"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}})}
    from wskit.builtin_plugins.bundles.discovery import discover

    for host, project_plugins, lsp in (("claude", [], []), ("wskit", ["cloned"], ["go"])):
        ws = _load(pm, tmp_path / host, files, host)
        bundles, diags = discover(ws.binding, ws.profile, ws.trust)
        assert [b.name for b in bundles] == project_plugins, host
        assert not [d for d in diags if d.code == "plugin-failed"], host
        assert [s.name for s in ws.registry("lsp_server").active()] == lsp, host


def test_the_default_host_reads_agents_skills_of_every_folder_down_to_the_cwd(pm, tmp_path):
    """wskit's default host reads ``.agents/skills`` of every folder from the root to the
    cwd, groups included, as Codex and opencode do (conformance ``skills-chain-agents``);
    one cache gives each cwd its own chain."""
    files = {".agents/skills/root-s/SKILL.md": _skill("root"), "a/.agents/skills/a-s/SKILL.md": _skill("a"),
             "a/.agents/skills/grp/g-s/SKILL.md": _skill("grouped"), "a/b/x.txt": "",
             "a/c/.agents/skills/c-s/SKILL.md": _skill("sibling")}
    _load(pm, tmp_path, files, "wskit")
    project, home = tmp_path / "p", tmp_path / "h"
    cache = WorkspaceCache(HostProfile(name="wskit", home=home), pm)

    def names(cwd):
        return sorted(s.name for s in cache.resolve(str(project / cwd)).registry("skill").active()
                      if s.name.endswith("-s"))

    assert names("") == ["root-s"]
    assert names("a/b") == ["a-s", "g-s", "root-s"]
    assert names("a/c") == ["a-s", "c-s", "g-s", "root-s"]
    assert names("") == ["root-s"]
    assert cache.cached_roots() == [project]
    assert cache.invalidate(project)
    assert cache.stats()["entries"] == 0


@pytest.mark.parametrize("host", ["wskit", "claude"])
def test_a_skill_hides_the_command_of_its_name_in_its_scope(pm, tmp_path, host):
    """One ``/deploy``: the skill; the project command of that name is reported shadowed. A
    user command of another scope keeps its own entry (only the same scope hides)."""
    ws = _load(pm, tmp_path, {".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: d\n---\nb\n",
                              ".claude/commands/deploy.md": "the command\n", ".claude/commands/other.md": "o\n",
                              "~/.claude/commands/deploy.md": "user one\n"}, host)
    commands = {c.id for c in ws.registry("command").active()}
    assert "project:deploy" not in commands and "project:other" in commands
    assert ws.registry("skill").get("deploy").scope.value == "project"
    assert any(d.code == "shadowed" and "'project:deploy'" in d.message and "skill" in d.message
               for d in ws.diagnostics)


def _instructions(ws) -> list[str]:
    sel = ws.catalog("rules").static_rules(str(ws.binding.to_source(ws.binding.cwd)))
    return [r.display_path for r in sel.files]


@pytest.mark.parametrize(("config", "expected"), [
    ('project_doc_fallback_filenames = ["README.md", "NOTES.md"]\n', ["AGENTS.md", "a/README.md"]),
    ('project_doc_fallback_filenames = ["NOTES.md"]\n', ["AGENTS.md", "a/NOTES.md"]),
    # names only: a path would read outside the folder; a broken file falls back to no names
    ('project_doc_fallback_filenames = ["../AGENTS.md", "sub/README.md"]\n', ["AGENTS.md"]),
    ('project_doc_fallback_filenames = [\n', ["AGENTS.md"]),
])
def test_codex_reads_its_fallback_names_from_its_own_config(pm, tmp_path, config, expected):
    files = {"AGENTS.md": "root\n", "a/README.md": "readme\n", "a/NOTES.md": "notes\n", "a/sub/README.md": "x\n",
             "~/.codex/config.toml": config}
    assert _instructions(_load(pm, tmp_path, files, "codex", cwd="a")) == expected


def test_the_codex_config_changes_no_other_host_and_settings_win(pm, tmp_path):
    files = {"AGENTS.md": "root\n", "a/README.md": "readme\n", "a/NOTES.md": "notes\n",
             "~/.codex/config.toml": 'project_doc_fallback_filenames = ["README.md"]\n'}
    assert "a/README.md" not in _instructions(_load(pm, tmp_path / "1", files, "wskit", cwd="a"))
    project, home = tmp_path / "1/p", tmp_path / "1/h"
    ws = WorkspaceCache(HostProfile(name="codex", home=home, settings={"rules": {"fallback_filenames": ["NOTES.md"]}}),
                        pm).resolve(str(project / "a"))
    assert _instructions(ws) == ["AGENTS.md", "a/NOTES.md"]


@pytest.mark.parametrize(("host", "settings", "above"), [
    ("claude", {}, True),  # Claude Code reads every ancestor of the cwd (recorded cases submodule, no-git)
    ("wskit", {}, False),
    ("wskit", {"rules": {"ancestor_files": True}}, True),  # the option, for any host
    ("codex", {"rules": {"ancestor_files": True}}, True),
])
def test_instruction_files_above_the_project_root_load_for_claude_and_as_an_option(pm, tmp_path, host, settings, above):
    outer = tmp_path / "outer"
    project = outer / "proj"
    (project / ".git").mkdir(parents=True)
    (outer / "CLAUDE.md").write_text("above\n")
    (outer / "AGENTS.md").write_text("above agents\n")
    (project / "AGENTS.md").write_text("root\n")
    (project / "CLAUDE.md").write_text("root\n")
    home = tmp_path / "h"
    home.mkdir()
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name=host, home=home, settings=settings), pm).resolve(str(project))
    bodies = [r.body for r in ws.catalog("rules").static_rules(str(ws.binding.to_source(ws.binding.cwd))).files]
    assert any(b.startswith("above") for b in bodies) is above
    assert any(b.strip() == "root" for b in bodies), bodies


def test_a_git_submodule_ends_the_chain_for_codex_and_says_so_but_not_for_claude(pm, tmp_path):
    """Recorded case ``git-submodule``: Codex, Gemini CLI and opencode start the chain at the
    submodule's root; wskit's binding keeps the superproject as the source project, so the
    files above are skipped with reason ``outside-repository`` rather than silently."""
    from tests.conformance.cases import CASES

    case = next(c for c in CASES if c.id == "git-submodule")
    project, home, cwd = case.lay_out(tmp_path)
    TrustStore.for_home(home).grant(project)
    sel = {}
    for host in ("codex", "claude"):
        ws = WorkspaceCache(HostProfile(name=host, home=home), pm).resolve(str(cwd))
        assert ws.binding.source_root == project  # the submodule belongs to the superproject
        sel[host] = ws.catalog("rules").static_rules(str(cwd))
    assert [(s.rule.display_path, s.reason) for s in sel["codex"].skipped] == [("AGENTS.md", "outside-repository")]
    assert [r.display_path for r in sel["claude"].files][0] == "CLAUDE.md"


def test_host_claude_reads_no_lsp_servers_from_settings(tmp_path):
    """Claude Code reads LSP servers from plugins only (issue 34 item 10): ``lspServers`` in
    ``.claude/settings.json`` is not read under ``--host claude``; the default host reads it."""
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".claude").mkdir(parents=True)
    (project / ".git").mkdir()
    home.mkdir()
    (project / ".claude" / "settings.json").write_text(
        '{"lspServers": {"py": {"command": "pylsp", "extensionToLanguage": {".py": "python"}}}}')
    TrustStore.for_home(home).grant(project)
    got = {}
    for host in ("claude", "wskit"):
        ws = WorkspaceCache(HostProfile(name=host, home=home)).resolve(str(project))
        got[host] = sorted(r.name for r in ws.registry("lsp_server").active())
    assert got == {"claude": [], "wskit": ["py"]}
