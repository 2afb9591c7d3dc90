"""The file set, precedence, definition order, trust, skipping and limits (docs/rules.md §1)."""

from __future__ import annotations

import os

import pytest

from wskit.builtin_plugins.rules.model import rule_id


def _paths(sel):
    return [r.display_path for r in sel.files]


def test_folder_precedence_lowest_to_highest(rules_ws):
    ws = rules_ws({
        "CLAUDE.md": "a", ".claude/CLAUDE.md": "b", "AGENTS.md": "c", ".wskit/AGENTS.md": "e", "WSKIT.md": "f",
        ".claude/rules/r.md": "g", ".wskit/rules/r.md": "h", "CLAUDE.local.md": "i",
    })
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()] == [
        "CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md", ".wskit/AGENTS.md", "WSKIT.md",
        ".claude/rules/r.md", ".wskit/rules/r.md", "CLAUDE.local.md",
    ]
    assert [r.source for r in cat.rules()][-1] == "local"
    assert all(r.scope_dir == "" for r in cat.rules())


def test_override_shadows_agents_md_of_its_folder_only(rules_ws):
    ws = rules_ws({"AGENTS.md": "plain", "AGENTS.override.md": "override", "sub/AGENTS.md": "sub plain"})
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()] == ["AGENTS.override.md", "sub/AGENTS.md"]
    shadow = [d for d in cat.diagnostics if d.code == "rule-shadowed"]
    assert len(shadow) == 1 and shadow[0].path.endswith(os.sep + "AGENTS.md") and "override" in shadow[0].message
    assert cat.by_path("AGENTS.md") is None


def test_user_files_come_before_project_files(rules_ws):
    ws = rules_ws({"CLAUDE.md": "project"}, home_files={
        ".claude/CLAUDE.md": "user claude", ".agents/AGENTS.md": "user agents", ".wskit/AGENTS.md": "user host",
        ".claude/rules/u.md": "user rule", ".wskit/rules/w.md": "user host rule",
    })
    sel = ws.catalog("rules").static_rules(ws.binding.source_root)
    assert _paths(sel) == ["~/.claude/CLAUDE.md", "~/.agents/AGENTS.md", "~/.wskit/AGENTS.md",
                           "~/.claude/rules/u.md", "~/.wskit/rules/w.md", "CLAUDE.md"]
    assert sel.files[0].id == rule_id("user", ".claude/CLAUDE.md")


def test_definition_order_depth_then_priority_then_path(rules_ws):
    ws = rules_ws({"a/CLAUDE.local.md": "x", "CLAUDE.local.md": "y", "a/b/AGENTS.md": "z", "a/AGENTS.md": "w",
                   "a/.claude/rules/z.md": "1", "a/.claude/rules/sub/a.md": "2"})
    assert [r.path for r in ws.catalog("rules").rules()] == [
        "CLAUDE.local.md", "a/AGENTS.md", "a/.claude/rules/sub/a.md", "a/.claude/rules/z.md",
        "a/CLAUDE.local.md", "a/b/AGENTS.md"]


def test_fallback_filenames_only_without_agents_md(rules_ws):
    settings = {"fallback_filenames": ["TEAM.md", "README.agents.md"]}
    ws = rules_ws({"TEAM.md": "team", "README.agents.md": "second", "x/AGENTS.md": "agents", "x/TEAM.md": "no"},
                  settings=settings)
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()] == ["TEAM.md", "x/AGENTS.md"]
    shadowed = sorted(os.path.basename(d.path) for d in cat.diagnostics if d.code == "rule-shadowed")
    assert shadowed == ["README.agents.md"]


def test_untrusted_project_reads_no_project_rule_file(rules_ws, monkeypatch):
    from wskit import fs

    seen = []
    real = fs.read_bytes

    def spy(base, rel, **kw):
        seen.append(os.path.join(str(base), str(rel)))
        return real(base, rel, **kw)

    monkeypatch.setattr(fs, "read_bytes", spy)
    ws = rules_ws({"CLAUDE.md": "project", ".gitignore": "x/\n"}, home_files={".claude/CLAUDE.md": "user"},
                  trusted=False)
    cat = ws.catalog("rules")
    assert not cat.trusted
    assert [r.display_path for r in cat.rules()] == ["~/.claude/CLAUDE.md"]
    # (project settings files may be read: an untrusted project's enabledPlugins may still disable plugins)
    rule_reads = [p for p in seen if p.startswith(str(ws.binding.source_root))
                  and (p.endswith(".md") or p.endswith(".gitignore"))]
    assert rule_reads == []
    assert any(p.endswith("/.claude/CLAUDE.md") for p in seen)  # the spy saw the user rule


def test_skips_vcs_dependencies_venvs_caches_build_and_gitignored(rules_ws):
    ws = rules_ws({
        ".gitignore": "generated/\n*.tmp.md\n", "keep/AGENTS.md": "k",
        "node_modules/x/AGENTS.md": "n", ".hg/AGENTS.md": "h", "build/AGENTS.md": "b", "__pycache__/AGENTS.md": "p",
        "myenv/pyvenv.cfg": "home = /usr", "myenv/AGENTS.md": "v", "generated/AGENTS.md": "g",
        "sub/.gitignore": "!keep.tmp.md\nhidden/\n", "sub/hidden/AGENTS.md": "s", "sub/AGENTS.md": "s2",
        "CLAUDE.local.md": "local stays although ignored", ".claude/rules/x.tmp.md": "ignored rule",
    })
    assert [r.path for r in ws.catalog("rules").rules()] == ["CLAUDE.local.md", "keep/AGENTS.md", "sub/AGENTS.md"]


def test_gitignore_deeper_file_overrides(rules_ws):
    ws = rules_ws({".gitignore": "docs/\n", "docs/AGENTS.md": "x",
                   "pkg/.gitignore": "!docs/\n", "pkg/docs/AGENTS.md": "y"})
    assert [r.path for r in ws.catalog("rules").rules()] == ["pkg/docs/AGENTS.md"]


def test_size_limit_hidden_chars_empty_and_symlink_are_diagnostics(rules_ws, tmp_path):
    ws_files = {"a/AGENTS.md": "x" * 2000, "b/AGENTS.md": "bidi \u202e here", "c/AGENTS.md": "   \n",
                "ok/AGENTS.md": "fine"}
    root = tmp_path / "ws"
    ws = rules_ws(ws_files, settings={"max_file_bytes": 1024})
    (tmp_path / "outside.md").write_text("real")
    (root / "d").mkdir()
    os.symlink(tmp_path / "outside.md", root / "d/AGENTS.md")
    ws = rules_ws(ws_files, settings={"max_file_bytes": 1024})
    cat = ws.catalog("rules")
    assert [r.path for r in cat.rules()] == ["ok/AGENTS.md"]
    codes = {os.path.relpath(d.path, root): d.code for d in cat.diagnostics if d.path}
    assert codes["a/AGENTS.md"] == "too-large"
    assert codes["b/AGENTS.md"] == "hidden-characters"
    assert codes["c/AGENTS.md"] == "rule-empty"
    assert codes["d/AGENTS.md"] == "symlink"
    assert "outside.md" in next(d.message for d in cat.diagnostics if d.code == "symlink")


def test_links_inside_the_project_are_followed_and_others_refused_naming_the_target(rules_ws, tmp_path):
    """Every host follows ``AGENTS.md -> CLAUDE.md``; a link that leaves the project, loops,
    leads to a FIFO, to a hard-linked file or to a secret path is refused, naming its target."""
    root = tmp_path / "ws"
    rules_ws({"CLAUDE.md": "shared", "docs/GUIDE.md": "guide", ".env/x.md": "secret"})
    os.symlink("CLAUDE.md", root / "AGENTS.md")
    for d in ("a", "b", "c", "e", "f", "g"):
        (root / d).mkdir()
    os.symlink("../docs/GUIDE.md", root / "a/AGENTS.md")
    os.symlink("AGENTS.md", root / "b/AGENTS.md")  # a loop: b/AGENTS.md -> itself
    os.mkfifo(root / "c/fifo")
    os.symlink("fifo", root / "c/AGENTS.md")
    (tmp_path / "outside.md").write_text("o")
    os.link(tmp_path / "outside.md", root / "e/hard.md")
    os.symlink("hard.md", root / "e/AGENTS.md")
    os.symlink("../.env/x.md", root / "f/AGENTS.md")
    os.symlink("/etc/hostname", root / "g/AGENTS.md")
    cat = rules_ws({}).catalog("rules")
    bodies = {r.path: r.body for r in cat.rules()}
    assert bodies == {"CLAUDE.md": "shared", "a/AGENTS.md": "guide"}  # AGENTS.md: CLAUDE.md's text, once
    dup = [(os.path.relpath(d.path, root), d.level) for d in cat.diagnostics if d.code == "rule-link-duplicate"]
    assert dup == [("AGENTS.md", "info")]
    refused = {os.path.relpath(d.path, root): d.message for d in cat.diagnostics if d.code == "symlink"}
    assert set(refused) >= {"b/AGENTS.md", "c/AGENTS.md", "e/AGENTS.md", "f/AGENTS.md", "g/AGENTS.md"}
    assert "'/etc/hostname'" in refused["g/AGENTS.md"] and "outside the project" in refused["g/AGENTS.md"]
    assert "regular file" in refused["c/AGENTS.md"] and "hard link" in refused["e/AGENTS.md"]
    assert "secret" in refused["f/AGENTS.md"] and "loop" in refused["b/AGENTS.md"]


def test_an_ignored_override_does_not_hide_agents_md_and_is_reported(rules_ws, tmp_path):
    """A git-ignored ``AGENTS.override.md`` is skipped (default host) and the folder's
    ``AGENTS.md`` still loads; the skipped file is reported as ``rule-ignored``."""
    cat = rules_ws({".gitignore": "AGENTS.override.md\n", "AGENTS.md": "plain",
                    "AGENTS.override.md": "local"}).catalog("rules")
    assert [r.path for r in cat.rules()] == ["AGENTS.md"]
    ignored = [d for d in cat.diagnostics if d.code == "rule-ignored"]
    assert [os.path.basename(d.path) for d in ignored] == ["AGENTS.override.md"]
    assert not any(d.code == "rule-shadowed" for d in cat.diagnostics)


def test_no_file_cap_by_default_and_blade_preset_caps(rules_ws):
    files = {f"d{i:03}/AGENTS.md": f"rule {i}" for i in range(140)}
    assert len(rules_ws(files).catalog("rules")) == 140
    cat = rules_ws(files, settings={"preset": "blade"}).catalog("rules")
    assert len(cat) == 128
    assert sum(d.code == "rule-file-limit" for d in cat.diagnostics) == 12


def test_invalid_settings_are_reported_and_defaults_used(rules_ws):
    cat = rules_ws({"AGENTS.md": "x"}, settings={"max_file_bytes": "lots"}).catalog("rules")
    assert len(cat) == 1
    assert any(d.code == "rule-settings-invalid" for d in cat.diagnostics)


def test_host_conventions_switch_off(rules_ws, wskit_home):
    from wskit.builtin_plugins.rules.discovery import discover_project
    from wskit.host import HostProfile

    rules_ws({"CLAUDE.md": "c", "AGENTS.md": "a", "BLADE.md": "b", ".blade/rules/x.md": "r"})
    root = str(wskit_home.parent / "ws")
    prof = HostProfile(name="blade", home=wskit_home, claude_conventions=False)
    from wskit.builtin_plugins.rules.model import RuleSettings

    found = discover_project(root, prof, RuleSettings())
    assert sorted(r.path for r in found.rules) == [".blade/rules/x.md", "AGENTS.md", "BLADE.md"]


def test_user_rules_follow_links(rules_ws, wskit_home, tmp_path):
    stow = tmp_path / "dotfiles"
    (stow / "rules").mkdir(parents=True)
    (stow / "rules" / "linked.md").write_text("from stow")
    (wskit_home / ".claude").mkdir()
    os.symlink(stow / "rules", wskit_home / ".claude" / "rules")
    os.symlink(wskit_home / ".claude" / "rules", stow / "rules" / "loop")  # a cycle
    cat = rules_ws({}).catalog("rules")
    assert [r.display_path for r in cat.rules()] == ["~/.claude/rules/linked.md"]
    assert any(d.code == "link-cycle" for d in cat.diagnostics)


@pytest.mark.parametrize("host", ["claude", "agents"])
def test_host_named_like_a_convention_does_not_duplicate(rules_ws, host):
    cat = rules_ws({"CLAUDE.md": "c", "AGENTS.md": "a", ".claude/rules/x.md": "r"}, host=host).catalog("rules")
    assert sorted(r.path for r in cat.rules()) == [".claude/rules/x.md", "AGENTS.md", "CLAUDE.md"]


def test_project_folder_links_are_named_not_walked(rules_ws, wskit_home, tmp_path):
    from wskit.builtin_plugins.rules.discovery import discover_project
    from wskit.builtin_plugins.rules.model import RuleSettings
    from wskit.host import HostProfile

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("from outside")
    rules_ws({"AGENTS.md": "root", ".gitignore": "ignored-link\n"})
    root = wskit_home.parent / "ws"
    os.symlink(outside, root / "linked")
    os.symlink(outside, root / "ignored-link")
    os.symlink("loop", root / "loop")  # a link to itself
    os.symlink(outside / "AGENTS.md", root / "file-link")  # a file link: not a folder, not reported
    found = discover_project(str(root), HostProfile(name="wskit", home=wskit_home), RuleSettings())
    assert [r.path for r in found.rules] == ["AGENTS.md"]
    links = sorted(d.path.rsplit("/", 1)[-1] for d in found.diagnostics if d.code == "symlink")
    assert links == ["linked", "loop"]
    assert all(d.level == "info" for d in found.diagnostics if d.code == "symlink")


def test_a_link_to_a_file_read_for_the_same_or_an_outer_folder_is_delivered_once(rules_ws, tmp_path):
    """Default host: ``AGENTS.md -> CLAUDE.md`` (and ``a/AGENTS.md -> ../CLAUDE.md``) would
    deliver one text twice, so the link is left out with a ``rule-link-duplicate`` note; a
    link to a file of a deeper folder is still read (its text applies where the target's
    does not); a host that picks one name group reads the link as the host does."""
    root = tmp_path / "ws"
    rules_ws({"CLAUDE.md": "root text", "deep/CLAUDE.md": "deep text"})
    os.symlink("CLAUDE.md", root / "AGENTS.md")
    (root / "a").mkdir()
    os.symlink("../CLAUDE.md", root / "a/AGENTS.md")
    os.symlink("../deep/CLAUDE.md", root / "a/CLAUDE.md")
    cat = rules_ws({}).catalog("rules")
    assert {r.path: r.body for r in cat.rules()} == {"CLAUDE.md": "root text", "a/CLAUDE.md": "deep text",
                                                     "deep/CLAUDE.md": "deep text"}
    assert [r.body for r in cat.static_rules(str(root / "a")).files] == ["root text", "deep text"]
    noted = sorted(os.path.relpath(d.path, root) for d in cat.diagnostics if d.code == "rule-link-duplicate")
    assert noted == ["AGENTS.md", "a/AGENTS.md"]
    ws = rules_ws({}, host="opencode", cwd=root / "a")
    assert [r.path for r in ws.catalog("rules").static_rules(str(root / "a")).files] == ["a/AGENTS.md", "AGENTS.md"]
