"""GEMINI.md names from context.fileName, @imports (depth 5, inside the project root)."""

from __future__ import annotations

import json

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace


def _catalog(pm, repo, home, **kw):
    TrustStore.for_home(home).grant(repo)
    return load_workspace(WskitHooks(pm), Binding.discover(repo), HostProfile(home=home, **kw)).catalog("rules")


def test_context_filename_replaces_the_default(tmp_path, gemini_pm):
    repo = write_tree(tmp_path / "r", {
        ".git/HEAD": "x", ".gemini/settings.json": '{\n  // comments are allowed\n  "context": {"fileName": ["CONTEXT.md", "AGENTS.md"]}\n}',
        "GEMINI.md": "default name\n", "CONTEXT.md": "ctx\n", "AGENTS.md": "agents\n", "pkg/CONTEXT.md": "pkg ctx\n"})
    home = write_tree(tmp_path / "h", {})
    cat = _catalog(gemini_pm, repo, home)
    paths = [r.path for r in cat.rules()]
    assert "GEMINI.md" not in paths
    assert paths.count("AGENTS.md") == 1  # read once, by the built-in rules plugin
    assert {"CONTEXT.md", "pkg/CONTEXT.md"} <= set(paths)
    assert not [d for d in cat.diagnostics if d.code == "duplicate-rule"]


def test_user_settings_name_and_project_settings_win(tmp_path, gemini_pm):
    """Global files use the user's settings; project files the project's (which win over the user's)."""
    home = write_tree(tmp_path / "h", {".gemini/settings.json": json.dumps({"context": {"fileName": "MEM.md"}}),
                                       ".gemini/MEM.md": "global mem\n"})
    repo = write_tree(tmp_path / "r", {".git/HEAD": "x", "MEM.md": "m\n", "GEMINI.md": "g\n"})
    assert [r.path for r in _catalog(gemini_pm, repo, home).rules()] == [".gemini/MEM.md", "MEM.md"]
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text(json.dumps({"context": {"fileName": "GEMINI.md"}}))
    assert [r.path for r in _catalog(gemini_pm, repo, home).rules()] == [".gemini/MEM.md", "GEMINI.md"]


def test_traversal_in_context_filename_is_refused(tmp_path, gemini_pm):
    home = write_tree(tmp_path / "h", {".gemini/settings.json": json.dumps({"context": {"fileName": ["../x.md"]}})})
    repo = write_tree(tmp_path / "r", {".git/HEAD": "x", "GEMINI.md": "g\n"})
    cat = _catalog(gemini_pm, repo, home)
    assert [r.path for r in cat.rules()] == ["GEMINI.md"]  # default kept
    bad = [d for d in cat.diagnostics if d.code == "gemini-settings-invalid"]
    assert len(bad) == 1 and "../x.md" in bad[0].message and bad[0].path == str(home / ".gemini/settings.json")


def test_imports_go_five_levels_deep_and_no_further(tmp_path, gemini_pm):
    files = {".git/HEAD": "x", "GEMINI.md": "L0 @./d/1.md\n"}
    for i in range(1, 7):
        files[f"d/{i}.md"] = f"L{i}" + (f" @./{i + 1}.md" if i < 6 else "") + "\n"
    repo = write_tree(tmp_path / "r", files)
    cat = _catalog(gemini_pm, repo, write_tree(tmp_path / "h", {}))
    body = cat.by_path("GEMINI.md").body
    assert all(f"L{i}" in body for i in range(6)) and "L6" not in body
    assert any(d.code == "rule-import-depth" for d in cat.diagnostics)


def test_imports_stay_inside_the_project_root(tmp_path, gemini_pm):
    write_tree(tmp_path, {"secret.md": "outside\n"})
    repo = write_tree(tmp_path / "r", {".git/HEAD": "x", "GEMINI.md": f"@../secret.md and @{tmp_path}/secret.md\n"})
    cat = _catalog(gemini_pm, repo, write_tree(tmp_path / "h", {}))
    assert "outside" not in cat.by_path("GEMINI.md").body
    assert [d.code for d in cat.diagnostics if d.code.startswith("rule-import")] == ["rule-import-outside"] * 2


def test_nested_repository_and_outside_link_are_not_read_an_inside_link_is(tmp_path, gemini_pm):
    """Gemini CLI 0.61.0 follows a memory file linked to a file of the project; a link that
    leaves the project is refused, naming its target."""
    repo = write_tree(tmp_path / "r", {".git/HEAD": "x", "GEMINI.md": "root\n", "sub/.git/HEAD": "x",
                                       "sub/GEMINI.md": "nested repo\n", "other.md": "o\n", "pkg/": None,
                                       "out/": None})
    (tmp_path / "outside.md").write_text("outside\n")
    (repo / "pkg/GEMINI.md").symlink_to(repo / "other.md")
    (repo / "out/GEMINI.md").symlink_to(tmp_path / "outside.md")
    cat = _catalog(gemini_pm, repo, write_tree(tmp_path / "h", {}))
    assert [(r.path, r.body) for r in cat.rules()] == [("GEMINI.md", "root"), ("pkg/GEMINI.md", "o")]
    refused = [d for d in cat.diagnostics if d.code == "symlink" and d.path.endswith("out/GEMINI.md")]
    assert refused and "outside.md" in refused[0].message
