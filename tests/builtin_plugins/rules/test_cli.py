"""``wsctl rules`` and ``wsctl rules explain``: flags, exit codes and the JSON contract (docs/wsctl.md)."""

from __future__ import annotations

import json

import pytest

from wskit.testing import write_tree

REF_KEYS = ["id", "path", "scope_dir", "source", "priority", "conditional", "sha256", "bytes"]


@pytest.fixture
def project(tmp_path, wsctl):
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        "CLAUDE.md": "root " * 10,
        "AGENTS.md": "shadowed",
        "AGENTS.override.md": "override",
        "api/AGENTS.md": "api",
        "api/.claude/rules/ts.md": "---\npaths: [\"*.{ts,tsx}\"]\n---\nts rule\n",
        "web/AGENTS.md": "web",
        "bad/.claude/rules/broken.md": "---\npaths: \"unclosed\n---\nx\n",
    })
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    return root


def test_json_contract(project, wsctl):
    res = wsctl("rules", str(project), "--for", str(project / "api/a.ts"), json=True)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert list(data) == ["catalog_root", "static", "contextual", "skipped", "diagnostics"]
    assert data["catalog_root"] == str(project.resolve())
    assert [r["path"] for r in data["static"]] == ["CLAUDE.md", "AGENTS.override.md"]
    assert [r["path"] for r in data["contextual"]] == ["api/AGENTS.md", "api/.claude/rules/ts.md"]
    assert all(list(r) == REF_KEYS for r in data["static"] + data["contextual"])
    ts = data["contextual"][1]
    assert ts["scope_dir"] == "api" and ts["conditional"] is True and ts["priority"] == 70 and ts["bytes"] == 7
    codes = {d["code"] for d in data["diagnostics"]}
    # the catalog is lazy: the diagnostics are those of the folders the answer read
    assert "rule-shadowed" in codes and "yaml-error" not in codes
    assert data["skipped"] == []
    bad = json.loads(wsctl("rules", str(project), "--for", str(project / "bad/x.ts"), json=True).output)
    assert "yaml-error" in {d["code"] for d in bad["diagnostics"]}


def test_budget_loaded_shell_and_cwd(project, wsctl):
    data = json.loads(wsctl("rules", str(project), "--budget", "10", json=True).output)
    assert [r["path"] for r in data["static"]] == ["AGENTS.override.md"]
    assert data["skipped"] == [{"path": "CLAUDE.md", "reason": "over-budget"}]
    data = json.loads(wsctl("rules", str(project), "--shell", json=True).output)
    assert [r["path"] for r in data["contextual"]] == ["api/AGENTS.md", "web/AGENTS.md", "api/.claude/rules/ts.md"]
    api_id = data["contextual"][0]["id"]
    data = json.loads(wsctl("rules", str(project), "--shell", "--loaded", api_id, "--cwd", str(project / "web"),
                            json=True).output)
    assert [r["path"] for r in data["contextual"]] == ["api/.claude/rules/ts.md"]
    assert [r["path"] for r in data["static"]][-1] == "web/AGENTS.md"


def test_human_output_and_usage_errors(project, wsctl):
    res = wsctl("rules", str(project))
    assert res.exit_code == 0 and "AGENTS.override.md" in res.output and "rule-shadowed" in res.output
    assert wsctl("rules", str(project), "--budget", "-1").exit_code == 2
    assert wsctl("rules", str(project / "missing")).exit_code == 2
    res = wsctl("rules", str(project), "--cwd", "/")
    assert res.exit_code == 1 and "outside the rule catalog root" in res.output


def test_explain_reasons(project, wsctl):
    res = wsctl("rules", "explain", str(project / "api/a.js"), str(project), "--budget", "60", json=True)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["target"] == "api/a.js" and data["trusted"] is True
    why = {c["path"]: (c["applies"], c["reason"]) for c in data["candidates"]}
    assert why["CLAUDE.md"] == (True, "static")
    assert why["AGENTS.override.md"] == (True, "static")
    assert why["api/AGENTS.md"] == (True, "ancestor")
    assert why["api/.claude/rules/ts.md"] == (False, "pattern-not-matched")
    assert why["web/AGENTS.md"] == (False, "not-ancestor")
    assert why["AGENTS.md"] == (False, "shadowed")
    assert why["bad/.claude/rules/broken.md"] == (False, "invalid")
    data = json.loads(wsctl("rules", "explain", str(project / "api/a.ts"), str(project), "--budget", "55",
                            json=True).output)
    why = {c["path"]: (c["applies"], c["reason"]) for c in data["candidates"]}
    assert why["api/.claude/rules/ts.md"] == (True, "pattern-matched")
    assert why["CLAUDE.md"] == (False, "over-budget")


def test_explain_untrusted(tmp_path, wsctl):
    root = write_tree(tmp_path / "u", {".git/HEAD": "ref: x\n", "AGENTS.md": "a", "src/CLAUDE.md": "c",
                                       "src/.claude/rules/r.md": "r", "other/AGENTS.md": "o"})
    data = json.loads(wsctl("rules", "explain", str(root / "src/x.py"), str(root), json=True).output)
    assert data["trusted"] is False
    assert {(c["path"], c["reason"]) for c in data["candidates"]} == {
        ("AGENTS.md", "untrusted"), ("src/CLAUDE.md", "untrusted"), ("src/.claude/rules/r.md", "untrusted")}
    plain = json.loads(wsctl("rules", str(root), json=True).output)
    assert plain["static"] == [] and plain["contextual"] == []


def test_worktree_for_path_is_mapped(tmp_path, wsctl):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    main = write_tree(tmp_path / "main", {"api/AGENTS.md": "api"})
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "i"],
                 ["worktree", "add", "-q", str(tmp_path / "wt")]):
        subprocess.run(["git", *args], cwd=main, check=True, capture_output=True, env=env)
    wsctl("trust", "grant", str(main))
    data = json.loads(wsctl("rules", str(tmp_path / "wt"), "--for", str(tmp_path / "wt/api/x.py"), json=True).output)
    assert data["catalog_root"] == str(main.resolve())
    assert [r["path"] for r in data["contextual"]] == ["api/AGENTS.md"]


class CodexLike:
    """A host profile plugin setting Codex's compatibility options."""

    from wskit.plugin import hookimpl

    @hookimpl
    def wskit_host_profiles(self):
        from wskit.host import HostProfile

        return [HostProfile(name="codexish", settings={"rules": {
            "project_root_markers": ["ROOT.marker"], "fallback_filenames": ["TEAM.md"]}})]


def test_host_settings_root_markers_and_fallbacks(tmp_path, wsctl, wskit_pm):
    from wskit.testing import register_plugin

    outer = write_tree(tmp_path / "outer", {"ROOT.marker": "", "TEAM.md": "team notes", "sub/x.py": ""})
    with register_plugin(wskit_pm, CodexLike(), "codexish"):
        wsctl("trust", "grant", str(outer))
        data = json.loads(wsctl("--host", "codexish", "rules", str(outer / "sub"), json=True).output)
    assert data["catalog_root"] == str(outer.resolve())
    assert [r["path"] for r in data["static"]] == ["TEAM.md"]


def test_a_target_outside_the_catalog_is_reported_not_dropped(project, wsctl, tmp_path):
    """``--for`` a file outside the catalog (a relative FILE taken from the shell's
    folder) is reported with a diagnostic, not answered with a bare ``contextual (0)``."""
    outside = tmp_path / "elsewhere" / "a.ts"
    data = json.loads(wsctl("rules", str(project), "--for", str(outside), "--for", str(project / "api/a.ts"),
                            json=True).stdout)
    assert [r["path"] for r in data["contextual"]] == ["api/AGENTS.md", "api/.claude/rules/ts.md"]
    found = [d for d in data["diagnostics"] if d["code"] == "target-outside-project"]
    assert len(found) == 1 and found[0]["path"] == str(outside) and found[0]["level"] == "warning"
    human = wsctl("rules", str(project), "--for", str(outside)).stdout
    assert "target-outside-project" in human and "outside the catalog root" in human


def test_diagnostics_shown_when_no_rule_loads(tmp_path, wsctl):
    # a catalog without rules is falsy: `catalog or RuleCatalog.empty(...)` would drop its
    # diagnostics, and a project whose only rule is refused would say "static (0)" and nothing else
    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: refs/heads/main\n", ".claude/rules/x.txt": "x"})
    (root / ".claude" / "rules" / "etc").symlink_to("/etc")
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    data = json.loads(wsctl("rules", str(root), json=True).stdout)
    assert data["static"] == []
    assert [(d["code"], d["path"]) for d in data["diagnostics"]] == [("symlink", ".claude/rules/etc")]
    assert "entry of a rules folder is a symbolic link" in data["diagnostics"][0]["message"]
    human = wsctl("rules", str(root)).stdout
    assert "symlink" in human and ".claude/rules/etc" in human


def test_host_claude_answers_alike_whichever_way_it_is_asked(tmp_path, wsctl):
    """Host ``claude``: with a ``CLAUDE.md`` at the root, ``pkg/AGENTS.md`` is left out of
    the static answer of ``pkg/sub`` and of the contextual answer for ``pkg/sub/f.txt`` from
    the root (as Claude Code 2.1.337 does: tests/conformance/test_contextual.py), reported as
    ``shadowed`` by ``--for`` and by ``rules explain``, never as over budget."""
    root = write_tree(tmp_path / "r", {".git/HEAD": "ref: x\n", "CLAUDE.md": "root", "pkg/AGENTS.md": "pkg",
                                       "pkg/sub/f.txt": ""})
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    target = str(root / "pkg/sub/f.txt")
    for args in (("--cwd", str(root / "pkg/sub")), ("--for", target)):
        data = json.loads(wsctl("--host", "claude", "rules", *args, str(root), json=True).output)
        assert [r["path"] for r in data["static"] + data["contextual"]] == ["CLAUDE.md"]
        assert data["skipped"] == [{"path": "pkg/AGENTS.md", "reason": "shadowed"}]
    human = wsctl("--host", "claude", "rules", "--for", target, str(root)).output
    assert "skipped pkg/AGENTS.md: shadowed (CLAUDE.md files are on the chain)" in human
    for cwd in (str(root), str(root / "pkg/sub")):
        data = json.loads(wsctl("--host", "claude", "rules", "explain", target, cwd, json=True).output)
        why = {c["path"]: (c["applies"], c["reason"]) for c in data["candidates"]}
        assert why == {"CLAUDE.md": (True, "static"), "pkg/AGENTS.md": (False, "shadowed")}


def test_files_above_the_project_root_are_shown_by_their_absolute_path(tmp_path, wsctl):
    """Host ``claude`` reads ``CLAUDE.md`` above the project root; it is listed by its
    absolute path, not as ``~/…`` (it is not in the home)."""
    outer = write_tree(tmp_path / "outer", {"CLAUDE.md": "outer"})
    root = write_tree(outer / "inner", {".git/HEAD": "ref: x\n", "CLAUDE.md": "inner"})
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    data = json.loads(wsctl("--host", "claude", "rules", str(root), json=True).output)
    assert [r["path"] for r in data["static"]] == [str(outer / "CLAUDE.md"), "CLAUDE.md"]
    assert "~/" not in wsctl("--host", "claude", "rules", str(root)).output


def test_a_looping_rule_file_link_is_reported_once_and_folder_links_are_no_candidates(tmp_path, wsctl):
    """``CLAUDE.md -> self.md -> CLAUDE.md`` is one ``symlink`` warning (not a second note
    calling it a folder link); ``rules explain`` lists rule files, not linked folders."""
    import os

    root = write_tree(tmp_path / "p", {".git/HEAD": "ref: x\n", "d1/f.txt": ""})
    os.symlink("self.md", root / "CLAUDE.md")
    os.symlink("CLAUDE.md", root / "self.md")
    os.symlink("..", root / "d1/up")
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    data = json.loads(wsctl("rules", "--for", str(root / "d1/f.txt"), str(root), json=True).output)
    about = [(d["path"], d["level"]) for d in data["diagnostics"] if d["code"] == "symlink"]
    assert about.count(("CLAUDE.md", "warning")) == 1 and ("CLAUDE.md", "info") not in about
    assert ("d1/up", "info") in about
    data = json.loads(wsctl("rules", "explain", str(root / "d1/f.txt"), str(root), json=True).output)
    assert [(c["path"], c["reason"]) for c in data["candidates"]] == [("CLAUDE.md", "invalid")]


def test_a_cwd_the_project_walk_leaves_out_still_gets_its_files_under_a_host(tmp_path, wsctl):
    """Conformance cases ``ignored-cwd`` and ``build-cwd``: every host reads the folders from
    the root to the cwd whatever .gitignore and the skip list say; wskit's reproduced hosts
    do too, the default host keeps its documented .gitignore rule; a file added there later
    is seen by the next run."""
    root = write_tree(tmp_path / "r", {".git/HEAD": "ref: x\n", ".gitignore": "ign/\n", "CLAUDE.md": "root",
                                       "ign/x/CLAUDE.md": "ignored folder", "node_modules/m/CLAUDE.md": "dep"})
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    for cwd, expected in (("ign/x", "ign/x/CLAUDE.md"), ("node_modules/m", "node_modules/m/CLAUDE.md")):
        data = json.loads(wsctl("--host", "claude", "rules", "--cwd", str(root / cwd), str(root), json=True).output)
        assert [r["path"] for r in data["static"]] == ["CLAUDE.md", expected]
        data = json.loads(wsctl("rules", "--cwd", str(root / cwd), str(root), json=True).output)
        assert [r["path"] for r in data["static"]] == ["CLAUDE.md"]
    (root / "ign/x/CLAUDE.local.md").write_text("local")
    data = json.loads(wsctl("--host", "claude", "rules", "--cwd", str(root / "ign/x"), str(root), json=True).output)
    assert [r["path"] for r in data["static"]] == ["CLAUDE.md", "ign/x/CLAUDE.md", "ign/x/CLAUDE.local.md"]


def test_explain_agrees_with_rules_for_a_cwd_and_lists_each_untrusted_candidate_once(tmp_path, wsctl):
    root = write_tree(tmp_path / "r", {".git/HEAD": "ref: x\n", "a/b/CLAUDE.md": "ab", "c/CLAUDE.md": "c"})
    assert wsctl("trust", "grant", str(root)).exit_code == 0
    data = json.loads(wsctl("rules", "explain", str(root / "c/f"), str(root), "--cwd", str(root / "a/b"),
                            json=True).output)
    why = {c["path"]: (c["applies"], c["reason"]) for c in data["candidates"]}
    assert why == {"a/b/CLAUDE.md": (True, "static"), "c/CLAUDE.md": (True, "ancestor")}
    plain = json.loads(wsctl("rules", "--cwd", str(root / "a/b"), "--for", str(root / "c/f"), str(root),
                             json=True).output)
    assert [r["path"] for r in plain["static"] + plain["contextual"]] == ["a/b/CLAUDE.md", "c/CLAUDE.md"]
    other = write_tree(tmp_path / "u", {".git/HEAD": "ref: x\n", "CLAUDE.md": "u"})
    data = json.loads(wsctl("--host", "claude", "rules", "explain", str(other / "x"), str(other), json=True).output)
    assert [(c["path"], c["reason"]) for c in data["candidates"]] == [("CLAUDE.md", "untrusted")]
