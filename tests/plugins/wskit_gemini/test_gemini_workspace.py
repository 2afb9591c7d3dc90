"""A workspace shaped like the Gemini CLI repository, with and without wskit-gemini."""

from __future__ import annotations

import json

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

DEEP = "packages/core/src/tools/edit.ts"


def _load(pm, repo, home, **settings):
    return load_workspace(WskitHooks(pm), Binding.discover(repo), HostProfile(home=home, settings=settings))


def test_memory_files_in_order_for_a_file_deep_in_a_package(wsctl, gemini_repo, gemini_home, gemini_pm):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    res = wsctl("rules", str(gemini_repo), "--for", str(gemini_repo / DEEP), json=True, pm=gemini_pm,
                home=gemini_home)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [r["path"] for r in data["static"]] == [
        "~/.gemini/GEMINI.md", "~/.gemini/extensions/context/GEMINI.md", "GEMINI.md"]
    assert [r["path"] for r in data["contextual"]] == ["packages/core/GEMINI.md", "packages/core/src/tools/GEMINI.md"]
    assert [r["scope_dir"] for r in data["contextual"]] == ["packages/core", "packages/core/src/tools"]


def test_memory_of_a_sibling_package_and_skipped_folders(gemini_repo, gemini_home, gemini_pm):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    cat = _load(gemini_pm, gemini_repo, gemini_home).catalog("rules")
    sel = cat.contextual_rules(str(gemini_repo), [str(gemini_repo / "packages/cli/src/ui/App.tsx")])
    assert [r.path for r in sel.files] == ["packages/cli/GEMINI.md"]
    assert cat.by_path("node_modules/leftpad/GEMINI.md") is None
    root = cat.by_path("GEMINI.md")
    assert "Architecture: packages/cli is the UI" in root.body  # @./docs/architecture.md inlined
    assert root.imports == ("docs/architecture.md",)


def test_wsctl_gemini_memory_assembles_like_gemini(wsctl, gemini_repo, gemini_home, gemini_pm):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    res = wsctl("gemini", "memory", str(gemini_repo / "packages/core"), "--for", str(gemini_repo / DEEP),
                pm=gemini_pm, home=gemini_home)
    assert res.exit_code == 0, res.output
    out = res.stdout
    order = [out.index(f"--- Context from: {p} ---") for p in (
        gemini_home / ".gemini/GEMINI.md", gemini_repo / "GEMINI.md", gemini_repo / "packages/core/GEMINI.md",
        gemini_repo / "packages/core/src/tools/GEMINI.md")]
    assert order == sorted(order)
    assert f"--- End of Context from: {gemini_repo / 'packages/core/src/tools/GEMINI.md'} ---" in out
    data = json.loads(wsctl("gemini", "memory", str(gemini_repo / "packages/core"), "--for", str(gemini_repo / DEEP),
                            json=True, pm=gemini_pm, home=gemini_home).stdout)
    assert [f["trigger"] for f in data["files"]][-1] == "touched"
    assert set(data["files"][0]) == {"path", "source", "scope_dir", "bytes", "trigger"}
    assert data["trusted"] is True


def test_wsctl_gemini_memory_says_when_the_project_is_untrusted(wsctl, gemini_repo, gemini_home, gemini_pm):
    res = wsctl("gemini", "memory", str(gemini_repo / "packages/core"), pm=gemini_pm, home=gemini_home)
    assert res.exit_code == 0, res.output
    assert "untrusted, project memory files not read" in res.stderr
    assert f"--- Context from: {gemini_home / '.gemini/GEMINI.md'} ---" in res.stdout  # user memory still applies
    assert str(gemini_repo / "GEMINI.md") not in res.stdout
    data = json.loads(wsctl("gemini", "memory", str(gemini_repo), json=True, pm=gemini_pm, home=gemini_home).stdout)
    assert data["trusted"] is False


def test_skills_agents_commands_and_extensions_namespaced(gemini_repo, gemini_home, gemini_pm):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    ws = _load(gemini_pm, gemini_repo, gemini_home)
    ids = {(r.kind, r.id) for r in ws.resources()}
    assert {("skill", "project:docs-writer"), ("skill", "project:pr-creator"), ("agent", "project:reviewer"),
            ("command", "project:review"), ("command", "project:git:commit"),
            ("command", "plugin:custom-commands:fs:grep-code"), ("mcp_server", "plugin:mcp-server:nodeServer"),
            ("gemini_extension", "plugin:context:context")} <= ids
    srv = ws.registry("mcp_server").get("mcp-server:nodeServer")
    ext_root = gemini_home / ".gemini/extensions/mcp-server"
    assert srv.alias == "mcp-server__nodeServer"
    assert srv.args == (f"{ext_root}/example.js",) and srv.transport == "stdio"
    ctx = ws.registry("gemini_extension").get("context")
    assert ctx.exclude_tools == ("run_shell_command",) and ctx.context_files == ("GEMINI.md",)
    assert not [d for d in ws.diagnostics if d.level == "error"], ws.diagnostics


def test_uninstalling_the_plugin_removes_exactly_its_contributions(gemini_repo, gemini_home):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    gemini_repo.joinpath("CLAUDE.md").write_text("Claude memory.\n")
    gemini_repo.joinpath(".claude/skills/fmt").mkdir(parents=True)
    gemini_repo.joinpath(".claude/skills/fmt/SKILL.md").write_text("---\nname: fmt\ndescription: Format.\n---\nx\n")
    with_pm = make_plugin_manager(env={"WSKIT_LOAD_PLUGINS": "gemini"})
    without_pm = make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "gemini"})
    assert with_pm.has_plugin("gemini") and not without_pm.has_plugin("gemini")
    on, off = _load(with_pm, gemini_repo, gemini_home), _load(without_pm, gemini_repo, gemini_home)
    on_ids = {(r.kind, r.id) for r in on.resources()}
    off_ids = {(r.kind, r.id) for r in off.resources()}
    assert off_ids < on_ids
    added = on_ids - off_ids
    assert ("skill", "project:fmt") in off_ids
    assert all(r.provenance.plugin in ("mcp-server", "custom-commands", "context")
               or "/.gemini/" in str(r.provenance.absolute_path)
               for r in on.resources() if (r.kind, r.id) in added)
    on_rules = [r.path for r in on.catalog("rules").rules()]
    off_rules = [r.path for r in off.catalog("rules").rules()]
    assert off_rules == ["CLAUDE.md"]
    assert [p for p in on_rules if p not in off_rules] and set(off_rules) < set(on_rules)
    assert all(p.endswith("GEMINI.md") for p in on_rules if p not in off_rules)
    assert not [d for d in off.diagnostics if "gemini" in d.code]


def test_untrusted_project_keeps_only_user_level_gemini_content(gemini_repo, gemini_home, gemini_pm):
    ws = _load(gemini_pm, gemini_repo, gemini_home)
    ids = {r.id for r in ws.resources()}
    assert "project:docs-writer" not in ids and "project:review" not in ids
    assert "plugin:mcp-server:nodeServer" in ids  # installed by the user
    assert [r.path for r in ws.catalog("rules").rules()] == [".gemini/GEMINI.md", ".gemini/extensions/context/GEMINI.md"]


def test_host_named_gemini_does_not_read_gemini_folders_twice(gemini_repo, gemini_home, gemini_pm):
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    ws = load_workspace(WskitHooks(gemini_pm), Binding.discover(gemini_repo), HostProfile(name="gemini", home=gemini_home))
    assert sum(1 for s in ws.sources if s.root == str(gemini_repo / ".gemini")) == 1
    skills = [r for r in ws.registry("skill").active() if r.name == "docs-writer"]
    assert len(skills) == 1
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()].count("GEMINI.md") == 1
    assert [r.path for r in cat.rules()].count(".gemini/GEMINI.md") == 1  # the global file still loads
    assert not [d for d in cat.diagnostics if d.code == "duplicate-rule"]


def test_gemini_settings_schemas_are_not_misread_by_claude_style_loaders(tmp_path, gemini_pm):
    from wskit.testing import write_tree

    repo = write_tree(tmp_path / "r", {".git/HEAD": "x", ".gemini/settings.json": json.dumps({
        "mcpServers": {"a": {"httpUrl": "https://x.invalid/mcp"}},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "echo"}]}]}}),
        ".gemini/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nx\n"})
    home = write_tree(tmp_path / "h", {})
    TrustStore.for_home(home).grant(repo)
    ws = _load(gemini_pm, repo, home)
    assert ws.counts()["mcp_server"] == 0 and ws.counts()["hook"] == 0 and ws.counts()["skill"] == 1
    assert not [d for d in ws.diagnostics if d.code in ("mcp-invalid", "hook-unknown-event")]


def test_wsctl_shows_skills_commands_and_mcp_servers_with_the_installed_plugin(wsctl, gemini_repo, gemini_home):
    """Through the real entry point (as installed), then with the plugin blocked."""
    TrustStore.for_home(gemini_home).grant(gemini_repo)
    for env, present in (({"WSKIT_LOAD_PLUGINS": "gemini"}, True), ({"WSKIT_DISABLE_PLUGINS": "gemini"}, False)):
        pm = make_plugin_manager(env=env)

        def run(*args):
            res = wsctl(*args, str(gemini_repo), json=True, pm=pm, home=gemini_home)
            assert res.exit_code == 0, res.output
            return json.loads(res.stdout)

        servers = {s["id"]: s for s in run("mcp", "list")["servers"]}
        skills = {s["id"] for s in run("skills", "list")["skills"]}
        inspect = run("inspect")
        commands = {r["id"] for r in inspect["resources"] if r["kind"] == "command"}
        if present:
            assert servers["plugin:mcp-server:nodeServer"]["alias"] == "mcp-server__nodeServer"
            assert {"project:docs-writer", "project:pr-creator"} <= skills
            assert {"plugin:custom-commands:fs:grep-code", "project:git:commit", "project:review"} <= commands
            assert inspect["counts"]["gemini_extension"] == 3
        else:
            assert not servers and not skills and not commands and "gemini_extension" not in inspect["counts"]


def test_wsctl_commands_render_expands_gemini_toml_commands(wsctl, tmp_path, gemini_pm):
    """``wsctl commands render`` expands Gemini TOML commands with their own expander:
    the markdown one would leave ``{{args}}`` in the text."""
    from wskit.testing import write_tree

    home = tmp_path / "home"
    root = write_tree(tmp_path / "p", {".git/HEAD": "ref: refs/heads/main\n",
                                       ".gemini/commands/hi.toml": 'prompt = "Hello {{args}}!"\n'})
    TrustStore.for_home(home).grant(root)
    res = wsctl("commands", "render", "-C", str(root), "hi", "big", "world", pm=gemini_pm, home=home)
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == "Hello big world!"


def test_wsctl_gemini_memory_shows_only_memory_files_global_ones_in_configured_order(wsctl, tmp_path, gemini_pm):
    """Under the default host the workspace also loads AGENTS.md and CLAUDE.md; ``wsctl gemini
    memory`` shows only the configured memory names (and GEMINI.md, which Gemini CLI keeps),
    ``~/.gemini`` files in ``context.fileName`` order (conformance ``gemini-file-names``)."""
    home, repo = tmp_path / "h", tmp_path / "r"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/settings.json").write_text('{"context": {"fileName": ["ZED.md", "ALPHA.md"]}}')
    for name in ("ZED.md", "ALPHA.md"):
        (home / ".gemini" / name).write_text(name)
    (repo / ".git").mkdir(parents=True)
    for name in ("ZED.md", "AGENTS.md", "CLAUDE.md"):
        (repo / name).write_text(name)
    TrustStore.for_home(home).grant(repo)
    data = json.loads(wsctl("gemini", "memory", str(repo), json=True, pm=gemini_pm, home=home).stdout)
    assert [f["path"] for f in data["files"]] == [str(home / ".gemini/ZED.md"), str(home / ".gemini/ALPHA.md"),
                                                  str(repo / "ZED.md")]
