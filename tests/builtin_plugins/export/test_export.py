"""wsctl export / wskit.export on the Claude Code layout of :mod:`tree`: what each target
gets, the never-lose rules, --check, --dry-run, --prune, --force, links, trust, --verify."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import frontmatter
import pytest

import wskit
from tests.builtin_plugins.export.tree import TARGETS, make_project
from wskit.trust import TrustStore


@pytest.fixture
def project(tmp_path: Path, wskit_home: Path) -> Path:
    root = make_project(tmp_path / "proj")
    TrustStore.for_home(wskit_home).grant(root)
    return root


@pytest.fixture
def full_pm():
    """Built-ins and the installed plugins (wskit-gemini reads GEMINI.md and TOML commands)."""
    from wskit.plugin.manager import make_plugin_manager

    return make_plugin_manager(load_entrypoints=True, env={})


def export(wsctl, project: Path, *args: str, **kw):
    return wsctl("export", str(project), "--to", TARGETS, *args, **kw)


def test_each_target_gets_its_own_files(project: Path, wsctl) -> None:
    r = export(wsctl, project)
    assert r.exit_code == 0, r.output
    # Codex / opencode: AGENTS.md with the import inlined and the paths rule widened to its folder
    agents = (project / "AGENTS.md").read_text()
    assert "S:root" in agents and "S:style" in agents and "@docs/style.md" not in agents and "S:testing" in agents
    assert "S:api" in (project / "pkg/api/AGENTS.md").read_text()
    assert "S:ts" not in agents  # **/*.ts names no folder: not carried, reported
    assert "S:pkg" in (project / "pkg/AGENTS.md").read_text()
    # Gemini follows @ imports: kept
    assert "@docs/style.md" in (project / "GEMINI.md").read_text()
    toml = tomllib.loads((project / ".gemini/commands/review.toml").read_text())
    assert toml == {"description": "Review a file", "prompt": "Review {{args}} carefully and list problems.\n"}
    assert (project / ".gemini/commands/git/fixissue.toml").is_file()
    gem = json.loads((project / ".gemini/settings.json").read_text())["mcpServers"]
    assert gem["docs"] == {"httpUrl": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
    assert gem["files"]["command"] == "npx"
    # opencode: 1-based positional arguments, its own MCP form and env syntax
    fix = frontmatter.loads((project / ".opencode/commands/git/fixissue.md").read_text())
    assert fix.content == "Fix issue #$1 with priority $2."
    oc = json.loads((project / "opencode.json").read_text())["mcp"]
    assert oc["files"] == {"type": "local", "command": ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
                           "environment": {"LOG": "1"}}
    assert oc["docs"]["headers"] == {"Authorization": "Bearer {env:DOCS_TOKEN}"}
    # Codex: project config.toml, bearer token from the environment
    codex = tomllib.loads((project / ".codex/config.toml").read_text())["mcp_servers"]
    assert codex["docs"] == {"url": "https://example.com/mcp", "bearer_token_env_var": "DOCS_TOKEN"}
    assert codex["files"]["env"] == {"LOG": "1"}
    # skills copied whole into .agents/skills (Codex, Gemini) and .cursor/skills
    assert (project / ".agents/skills/pdf-tools/scripts/extract.py").read_text() == 'print("extract")\n'
    assert (project / ".cursor/skills/pdf-tools/SKILL.md").is_file()
    assert not (project / ".opencode/skills").exists()  # opencode reads .claude/skills itself
    # Cursor: .mdc rules with globs / alwaysApply
    api = frontmatter.loads((project / ".cursor/rules/api.mdc").read_text())
    assert api["globs"] == "pkg/api/**/*.py" and api["alwaysApply"] is False
    assert frontmatter.loads((project / ".cursor/rules/project.mdc").read_text())["alwaysApply"] is True
    assert json.loads((project / ".cursor/mcp.json").read_text())["mcpServers"]["docs"]["headers"] == {
        "Authorization": "Bearer ${env:DOCS_TOKEN}"}
    # Copilot: instructions with applyTo, prompt files with named inputs, agents with tool aliases
    ts = frontmatter.loads((project / ".github/instructions/ts.instructions.md").read_text())
    assert ts["applyTo"] == "**/*.ts"
    prompt = frontmatter.loads((project / ".github/prompts/git-fixissue.prompt.md").read_text())
    assert prompt.content == "Fix issue #${input:arg0} with priority ${input:arg1}."
    agent = frontmatter.loads((project / ".github/agents/reviewer.agent.md").read_text())
    assert agent["tools"] == ["read", "search"]
    assert "S:root" in (project / ".github/copilot-instructions.md").read_text()
    # every loss named
    assert "**/*.ts name no folder" in r.output and "Codex CLI reads custom prompts only from ~/.codex/prompts" in r.output


def test_second_export_changes_nothing_and_check_is_zero(project: Path, wsctl) -> None:
    assert export(wsctl, project).exit_code == 0
    stamps = {p: p.stat().st_mtime_ns for p in project.rglob("*") if p.is_file() and ".git/" not in str(p)}
    again = export(wsctl, project, json=True)
    assert again.exit_code == 0
    statuses = {f["status"] for f in json.loads(again.output)["files"]}
    assert statuses == {"unchanged"}
    after = {p: p.stat().st_mtime_ns for p in stamps}
    assert [p for p in stamps if stamps[p] != after[p]] == []
    check = export(wsctl, project, "--check")
    assert check.exit_code == 0, check.output
    assert "up to date" in check.output


def test_check_fails_after_editing_a_source_or_a_generated_file(project: Path, wsctl) -> None:
    export(wsctl, project)
    (project / "docs/style.md").write_text("Style: tabs now. S:style2\n")
    r = export(wsctl, project, "--check")
    assert r.exit_code == 1
    assert any(line.startswith("update") and "AGENTS.md " in line for line in r.output.splitlines())
    export(wsctl, project)
    assert export(wsctl, project, "--check").exit_code == 0
    with open(project / "pkg/GEMINI.md", "a") as f:
        f.write("my note\n")
    r = export(wsctl, project, "--check")
    assert r.exit_code == 1
    assert "edited         pkg/GEMINI.md" in r.output
    # a plain export leaves the edit alone and says so; --force takes it over, naming the digest
    again = export(wsctl, project)
    assert "my note" in (project / "pkg/GEMINI.md").read_text()
    assert "skip (edited)" in again.output
    forced = export(wsctl, project, "--force")
    assert "replaced content sha256" in forced.output
    assert "my note" not in (project / "pkg/GEMINI.md").read_text()


def test_a_hand_written_gemini_md_survives(project: Path, wsctl) -> None:
    (project / "GEMINI.md").write_text("Our own Gemini notes.\n")
    r = export(wsctl, project)
    assert r.exit_code == 0
    assert (project / "GEMINI.md").read_text() == "Our own Gemini notes.\n"
    assert "skip (hand-written)  GEMINI.md" in r.output
    # recorded as the user's: --check is 0 and says it is kept
    check = export(wsctl, project, "--check")
    assert check.exit_code == 0 and "kept" in check.output
    manifest = json.loads((project / ".wskit/export.json").read_text())
    assert manifest["files"]["GEMINI.md"]["owner"] == "user"


def test_dry_run_writes_nothing(project: Path, wsctl) -> None:
    r = export(wsctl, project, "--dry-run")
    assert r.exit_code == 0 and "would write" in r.output
    assert not (project / "AGENTS.md").exists() and not (project / ".wskit").exists()


def test_prune_removes_generated_files_whose_source_is_gone(project: Path, wsctl) -> None:
    export(wsctl, project)
    (project / ".claude/commands/review.md").unlink()
    check = export(wsctl, project, "--check")
    assert check.exit_code == 1 and "orphan" in check.output and ".gemini/commands/review.toml" in check.output
    export(wsctl, project)
    assert (project / ".gemini/commands/review.toml").exists()  # kept until --prune
    r = export(wsctl, project, "--prune")
    assert r.exit_code == 0
    assert not (project / ".gemini/commands/review.toml").exists()
    assert export(wsctl, project, "--check").exit_code == 0


def test_an_untrusted_project_is_refused(tmp_path: Path, wsctl) -> None:
    root = make_project(tmp_path / "untrusted")
    r = export(wsctl, root)
    assert r.exit_code == 2
    assert "not trusted" in r.output and "wsctl trust grant" in r.output
    assert not (root / "AGENTS.md").exists()


def test_unknown_target_is_a_usage_error(project: Path, wsctl) -> None:
    r = wsctl("export", str(project), "--to", "codex,vim")
    assert r.exit_code == 2 and "vim" in r.output


def test_verify_lists_every_loss_and_copilot_cursor_only_under_their_profiles(project: Path, wsctl, full_pm) -> None:
    r = export(wsctl, project, "--verify", json=True, pm=full_pm)
    data = json.loads(r.output)
    v = data["verify"]
    for target in ("codex", "gemini", "opencode"):
        assert v[target]["verified"], (target, v[target])
        assert all(d["explained"] for d in v[target]["differences"])
        assert v[target]["checked"]["folders"] == 3
    for target in ("copilot", "cursor"):  # verified under their own profiles (or said not to be)
        assert v[target]["profile"] in (target, None)
        if v[target]["profile"] is None:
            assert v[target]["verified"] is False and "cannot verify" in v[target]["reason"]
    # the Gemini command with positional arguments expands differently: listed, with both texts
    gem = {d["item"]: d for d in v["gemini"]["differences"]}
    assert "git:fixissue" in gem and "Fix issue #alpha with priority beta." in gem["git:fixissue"]["detail"]
    # opencode expands the renumbered command as the source meant
    assert "git:fixissue" not in {d["item"] for d in v["opencode"]["differences"]}
    losses = {(loss["target"], loss["kind"], loss["item"]) for loss in data["losses"]}
    assert ("codex", "rule", ".claude/rules/ts.md") in losses
    assert ("codex", "command", "review") in losses


def test_an_item_a_target_does_not_load_is_explained_only_by_a_not_carried_loss(project: Path, wsctl,
                                                                                 full_pm) -> None:
    """"Carried with a difference" never explains an absence: Cursor's profile loads no
    subagents and Copilot CLI no prompt files, so each says so as a loss of its own."""
    r = export(wsctl, project, "--verify", json=True, pm=full_pm)
    data = json.loads(r.output)
    not_carried = {(loss["target"], loss["kind"], loss["item"]) for loss in data["losses"] if not loss["carried"]}
    absent = [(t, d) for t, rep in data["verify"].items() for d in rep["differences"]
              if " loads no " in d["detail"] or " has no " in d["detail"] or d["detail"].startswith("not in ")]
    assert ("cursor", "agent", "reviewer") in {(t, d["kind"], d["item"]) for t, d in absent}
    assert ("copilot", "command", "review") in {(t, d["kind"], d["item"]) for t, d in absent}
    for t, d in absent:
        assert d["explained"] == ((t, d["kind"], d["item"]) in not_carried), (t, d)
    assert data["verify"]["cursor"]["verified"] and data["verify"]["copilot"]["verified"]


def test_verify_fails_on_a_loss_the_export_did_not_report(project: Path, wsctl, full_pm) -> None:
    export(wsctl, project)
    (project / "AGENTS.md").write_text("something else\n")  # edited: reported, not unexplained
    r = export(wsctl, project, "--verify", "--check", json=True, pm=full_pm)
    v = json.loads(r.output)["verify"]["codex"]
    assert v["verified"] is True and any(d["item"] == "CLAUDE.md" for d in v["differences"])


def test_python_entry_point(project: Path, wskit_home: Path, full_pm) -> None:
    report = wskit.export(project, "codex,gemini", home=wskit_home, verify=True, plugin_manager=full_pm)
    assert (project / "AGENTS.md").is_file()
    assert {f.status for f in report.files} == {"create"}
    assert report.verify["codex"]["verified"] and report.verify["gemini"]["verified"]
    check = wskit.export(project, ["codex", "gemini"], home=wskit_home, check=True, plugin_manager=full_pm)
    assert check.ok and check.mode == "check"
    with pytest.raises(ValueError, match="home"):
        wskit.export(project, "codex")


def test_python_entry_point_without_the_builtin(project: Path, wskit_home: Path) -> None:
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "export"})
    with pytest.raises(LookupError, match="export"):
        wskit.export(project, "codex", home=wskit_home, plugin_manager=pm)


def test_the_engine_is_not_imported_by_other_commands(wsctl, project: Path) -> None:
    import sys

    for name in [m for m in sys.modules if m.startswith("wskit.builtin_plugins.export.")]:
        del sys.modules[name]
    assert wsctl("skills", "list", str(project)).exit_code == 0
    assert not [m for m in sys.modules if m.startswith("wskit.builtin_plugins.export.")]


def test_from_codex_to_claude_and_gemini(tmp_path: Path, wskit_home: Path, wsctl, full_pm) -> None:
    root = tmp_path / "cx"
    files = {"AGENTS.md": "Codex root rules. S:croot\n", "sub/AGENTS.md": "Sub rules. S:csub\n",
             ".agents/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint things\n---\nRun ruff.\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    TrustStore.for_home(wskit_home).grant(root)
    r = wsctl("export", str(root), "--from", "codex", "--to", "claude,gemini,codex", "--verify", pm=full_pm)
    assert r.exit_code == 0, r.output
    assert (root / "CLAUDE.md").read_text() == "Codex root rules. S:croot\n"
    assert (root / "sub/GEMINI.md").read_text() == "Sub rules. S:csub\n"
    assert (root / ".claude/skills/lint/SKILL.md").is_file()
    assert not (root / ".gemini/skills").exists()  # Gemini CLI reads .agents/skills itself
    assert "claude (claude profile): verified" in r.output and "gemini (gemini profile): verified" in r.output


def test_gemini_toml_prompts_read_back_as_markdown() -> None:
    from wskit.builtin_plugins.export.view import gemini_to_markdown

    assert gemini_to_markdown("Do {{args}} with !{git diff} and @{src/a.py}") == \
        "Do $ARGUMENTS with !`git diff` and @src/a.py"


def test_hook_wskit_export(project: Path, wskit_home: Path) -> None:
    """A plugin answering ``wskit_export`` is asked before the built-in; None passes on."""
    from wskit import hookimpl
    from wskit.plugin.manager import make_plugin_manager

    calls = []

    class Mine:
        @hookimpl
        def wskit_export(self, workspace, targets, options):
            calls.append((list(targets), options["check"]))
            return "mine" if "acme" in targets else None

    pm = make_plugin_manager(load_entrypoints=False, env={}, plugins=[Mine()])
    assert wskit.export(project, ["acme"], home=wskit_home, plugin_manager=pm) == "mine"
    report = wskit.export(project, ["codex"], home=wskit_home, check=True, plugin_manager=pm)
    assert calls == [(["acme"], False), (["codex"], True)]
    assert report.mode == "check" and not report.ok  # the built-in answered: nothing written yet
