"""The routes by which a name that is not UTF-8 could get past the loaders'
refusal of such files: manifest path fields, a
marketplace source, a plugin folder, the project folder or the home itself,
workspace/worktree/skill commands, git output, and the CLI's human and JSON
output. Each refuses the one bad entry with a diagnostic or an ``error:`` line
showing the byte, the rest works, no traceback, nothing half-written."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.markdown_helpers import load, skill_md
from tests.undecodable_helpers import BAD, bad_names_ok, write  # noqa: F401 (fixture)
from wskit.trust import TrustStore

SUR = BAD.decode("utf-8", "surrogateescape")  # '\udcff', how os.listdir hands the byte to Python
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]


def _all_text(ws) -> None:
    for d in ws.diagnostics:  # every diagnostic can be written as JSON / UTF-8
        json.dumps(d.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")


# -- 1. path fields of manifests ---------------------------------------------------

@pytest.mark.parametrize("key", ["commands", "agents", "skills", "outputStyles", "hooks", "mcpServers", "lspServers"])
def test_a_manifest_path_field_not_utf8_refuses_that_plugin(bad_names_ok, tmp_path, wskit_home, key):
    proj = tmp_path / "p"
    proj.mkdir()
    # the JSON escape \udcff decodes to the lone surrogate that names the byte 0xFF on disk
    write(proj, b".claude/plugins/badm/.claude-plugin/plugin.json",
          json.dumps({"name": "badm", key: "./x" + SUR}, ensure_ascii=True))
    write(proj, b".claude/plugins/badm/x" + BAD + b"/c.md", "---\ndescription: d\n---\nx\n")
    write(proj, b".claude/plugins/okp/.claude-plugin/plugin.json", '{"name": "okp"}')
    write(proj, b".claude/plugins/okp/commands/hello.md", "---\ndescription: d\n---\nhello\n")
    ws = load(proj, wskit_home)
    assert [c for c in ws.registry("command").ids() if "okp" in c], "the good plugin still loads"
    assert not [c for c in ws.registry("command").ids() if "badm" in c]
    refused = [d for d in ws.diagnostics if "path-not-utf8" in d.message and d.plugin == "badm"]
    assert refused and all("0xFF" in d.message for d in refused)
    assert not [d for d in ws.diagnostics if d.code == "hook-failed"]
    _all_text(ws)


def test_split_written_refuses_a_lone_surrogate_and_split_relative_lets_walks_through():
    from wskit import fs

    with pytest.raises(fs.SafeFsError) as err:
        fs.split_written("./cmd" + SUR)
    assert err.value.code == "path-not-utf8" and "0xFF" in str(err.value) and "cmd\\xff" in str(err.value)
    # a listed name is the loader's to refuse with its own code (rule-name-invalid …)
    assert fs.split_relative("d" + SUR + "/AGENTS.md") == ["d" + SUR, "AGENTS.md"]
    assert fs.split_written("a/b.md") == ["a", "b.md"]


def test_a_server_cwd_not_utf8_is_refused():
    from wskit.formats.definitions import path_field_problem
    from wskit.models import Scope

    why = path_field_problem("sub" + SUR, Scope.PROJECT)
    assert why is not None and "path-not-utf8" in why
    assert path_field_problem("sub", Scope.PROJECT) is None


def test_a_marketplace_source_not_utf8_is_not_installable(bad_names_ok, tmp_path):
    from wskit.builtin_plugins.bundles.marketplace import load_marketplace

    root = tmp_path / "mk"
    write(root, b"plugins/bad" + BAD + b"/.claude-plugin/plugin.json", '{"name": "bad"}')
    write(root, b"plugins/good/.claude-plugin/plugin.json", '{"name": "good"}')
    write(root, b".claude-plugin/marketplace.json", json.dumps({
        "name": "mk", "owner": {"name": "o"},
        "plugins": [{"name": "bad", "source": "./plugins/bad" + SUR}, {"name": "good", "source": "./plugins/good"}],
    }, ensure_ascii=True))
    mk = load_marketplace(root)
    by = {e.name: e for e in mk.plugins}
    assert by["good"].installable
    assert not by["bad"].installable and by["bad"].path is None and "0xFF" in by["bad"].reason
    (d,) = [d for d in mk.diagnostics if d.code == "marketplace-source-invalid"]
    assert "bad\\xff" in d.message
    d.message.encode("utf-8")


# -- 2. a plugin folder named so -----------------------------------------------------

def test_a_plugin_folder_not_utf8_is_refused_by_discovery(bad_names_ok, tmp_path, wskit_home, wskit_profile):
    from wskit.builtin_plugins.bundles.discovery import discover

    write(wskit_home, b".claude/plugins/bad" + BAD + b"plug/.claude-plugin/plugin.json", '{"name": "badp"}')
    write(wskit_home, b".claude/plugins/good/.claude-plugin/plugin.json", '{"name": "good"}')
    explicit = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"pd2" + BAD))
    os.mkdir(explicit)
    bundles, diags = discover(None, wskit_profile, None, [explicit])
    assert [b.name for b in bundles] == ["good"]
    bad = sorted(d.path for d in diags if d.code == "name-not-utf8")
    assert bad == sorted([str(tmp_path / "pd2\\xff"), str(wskit_home / ".claude/plugins/bad\\xffplug")])
    assert all(d.level == "error" and "0xFF" in d.message for d in diags if d.code == "name-not-utf8")


def test_plugin_dir_not_utf8_is_a_usage_error(bad_names_ok, wsctl, tmp_path):
    res = wsctl("--plugin-dir", str(tmp_path / ("pd2" + SUR)), "inspect", str(tmp_path))
    assert res.exit_code == 2 and "pd2\\xff" in res.output and "0xFF" in res.output


def test_plugins_list_does_not_call_such_a_folder_active(bad_names_ok, wsctl, tmp_path):
    proj = tmp_path / "p"
    write(proj, b".claude/plugins/bad" + BAD + b"plug/.claude-plugin/plugin.json", '{"name": "badp"}')
    assert wsctl("trust", "grant", str(proj)).exit_code == 0
    res = wsctl("plugins", "list", str(proj), json=True)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert "badp" not in json.dumps(data)
    assert any(d["code"] == "name-not-utf8" and "bad\\xffplug" in d["path"] for d in data["diagnostics"])


# -- 3. the project folder itself, or the home ----------------------------------------

def test_a_project_folder_not_utf8_is_one_diagnostic_and_loads_nothing_of_it(bad_names_ok, tmp_path, wskit_home):
    proj = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"q" + BAD + b"x")))
    write(proj, b"AGENTS.md", "project rules\n")
    write(proj, b".claude/commands/c.md", "---\ndescription: d\n---\nc\n")
    write(wskit_home, b".claude/CLAUDE.md", "user rules\n")
    TrustStore.for_home(wskit_home).grant(tmp_path)  # the nearest recorded ancestor decides
    ws = load(proj, wskit_home, trusted=False)
    assert ws.trust.trusted
    (d,) = [d for d in ws.diagnostics if d.code == "name-not-utf8"]
    assert d.path == str(tmp_path / "q\\xffx") and "project folder" in d.message and "0xFF" in d.message
    assert ws.registry("command").ids() == []
    rules = ws.catalogs["rules"].rules()
    assert [r.source for r in rules] == ["user"]  # the home's rules load, the project's do not
    assert all(undecodable_free(str(r.provenance.absolute_path)) for r in rules)
    _all_text(ws)
    from wskit.errors import SessionStateError
    from wskit.session import snapshot

    with pytest.raises(SessionStateError) as err:
        snapshot(ws).state().to_json()
    msg = str(err.value)
    assert "source_root" in msg and "q\\xffx" in msg and "0xFF" in msg and "position" not in msg


def undecodable_free(text: str) -> bool:
    from wskit.fs.names import undecodable

    return undecodable(text) is None


def test_a_home_not_utf8_is_one_diagnostic_and_its_rules_are_not_loaded(bad_names_ok, tmp_path):
    home = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"h" + BAD)))
    write(home, b".claude/CLAUDE.md", "user rules\n")
    write(home, b".claude/commands/u.md", "---\ndescription: d\n---\nu\n")
    proj = tmp_path / "p"
    write(proj, b"AGENTS.md", "project rules\n")
    ws = load(proj, home, trusted=False)  # the trust store lives in the home: not trusted
    (d,) = [d for d in ws.diagnostics if d.code == "name-not-utf8"]
    assert d.path == str(tmp_path / "h\\xff") and d.message.startswith("home ")
    assert ws.catalogs["rules"].rules() == ()
    assert ws.registry("command").ids() == []
    _all_text(ws)


def test_first_undecodable_names_the_field():
    from wskit.fs.names import first_undecodable

    assert first_undecodable({"a": [1, {"b": "ok"}, {"root": "x" + SUR}]}) == ("a[2].root", "x" + SUR, "0xFF")
    assert first_undecodable({"k" + SUR: 1}) == ("k" + SUR, "k" + SUR, "0xFF")
    assert first_undecodable({"a": ["é", 3]}) is None


# -- 4. commands given such a name -----------------------------------------------------

def test_skills_install_and_enable_refuse_before_writing(bad_names_ok, wsctl, tmp_path, wskit_home):
    src = tmp_path / "sk"
    write(src, b"s" + BAD + b"/SKILL.md", skill_md("s"))
    res = wsctl("skills", "install", os.fsdecode(os.path.join(os.fsencode(src), b"s" + BAD)))
    assert res.exit_code == 1 and "s\\xff" in res.output and "0xFF" in res.output
    admin = wskit_home / ".wskit" / "admin-skills"
    assert not admin.exists() or os.listdir(admin) == []
    res = wsctl("skills", "enable", "s" + SUR)
    assert res.exit_code == 1 and "s\\xff" in res.output and "Traceback" not in res.output
    assert not (wskit_home / ".wskit" / "admin-skills.toml").exists()


def _repo(tmp_path: Path, name: bytes = b"proj") -> Path:
    r = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), name)))
    r.mkdir()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run([*GIT, "-C", r, "init", "-q"], check=True, env=env)
    (r / "README.md").write_text("x\n")
    subprocess.run([*GIT, "-C", r, "add", "."], check=True, env=env)
    subprocess.run([*GIT, "-C", r, "commit", "-qm", "init"], check=True, env=env)
    return r


def test_workspace_commands_refuse_paths_and_branches_not_utf8(bad_names_ok, wsctl, tmp_path, wskit_home):
    bad_repo = _repo(tmp_path, b"repo" + BAD)
    res = wsctl("workspace", "attach", str(bad_repo), json=True)
    assert res.exit_code == 1, res.output
    err = json.loads(res.stdout)["error"]
    assert err["kind"] == "invalid_tool_input" and "repo\\xff" in err["message"] and "0xFF" in err["message"]
    bad_home = tmp_path / ("h" + SUR)
    res = wsctl("workspace", "list", home=bad_home)
    assert res.exit_code == 1 and "h\\xff" in res.output and "Traceback" not in res.output
    assert not os.path.exists(os.fsencode(bad_home))  # nothing written there
    good = _repo(tmp_path)
    ws = json.loads(wsctl("workspace", "attach", str(good), json=True).stdout)["workspace"]["workspace_id"]
    res = wsctl("worktree", "create", ws, "feat" + SUR, "HEAD", json=True)
    assert res.exit_code == 1
    err = json.loads(res.stdout)["error"]
    assert err["kind"] == "invalid_tool_input" and err["details"]["field"] == "branch" and "feat\\xff" in err["message"]
    assert b"feat" + BAD not in subprocess.run([*GIT, "-C", good, "branch"], capture_output=True).stdout


def test_a_repository_with_a_branch_and_worktree_not_utf8_still_works(bad_names_ok, wsctl, tmp_path, wskit_home):
    from wskit.trust import TrustStore

    good = _repo(tmp_path)
    TrustStore.for_home(wskit_home).grant(good)  # wskit runs git only in trusted projects
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run([*GIT, "-C", os.fsencode(good), "branch", b"b" + BAD + b"x"], check=True, env=env)
    subprocess.run([*GIT, "-C", os.fsencode(good), "worktree", "add", "-q",
                    os.path.join(os.fsencode(tmp_path), b"wt" + BAD), b"b" + BAD + b"x"], check=True, env=env)
    ws = json.loads(wsctl("workspace", "attach", str(good), json=True).stdout)["workspace"]["workspace_id"]
    res = wsctl("workspace", "state", json=True)
    assert res.exit_code == 0, res.output
    json.loads(res.stdout)
    res = wsctl("worktree", "create", ws, "feat", "HEAD", json=True)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["disposition"] == "created"
    from wskit.builtin_plugins.workspaces.git import trust_gate, worktree_list

    with trust_gate(lambda _project: True):
        branches = [w.branch for w in worktree_list(good)]
    assert "b" + SUR + "x" in branches and "feat" in branches  # decoded, never a UnicodeDecodeError


# -- 5. output ----------------------------------------------------------------------------

def test_safe_text_and_json_text_show_the_byte():
    from wskit.cli.context import json_text, safe_text

    assert safe_text("a" + SUR + "\x1b") == "a\\xff\\x1b"
    assert safe_text("é😀") == "é😀"
    text = json_text({"path": "d" + SUR, "k" + SUR: ["x" + SUR, 1], "ok": "é😀"})
    assert json.loads(text) == {"path": "d\\xff", "k\\xff": ["x\\xff", 1], "ok": "é😀"}
    text.encode("utf-8")
    plain = {"a": "é😀", "b": [1, None]}
    assert json_text(plain) == json.dumps(plain, indent=2)  # unchanged when nothing is bad


def test_skill_files_not_utf8_are_skipped_and_refused(bad_names_ok, tmp_path, wskit_home, wsctl):
    proj = tmp_path / "p"
    write(proj, b".claude/skills/good/SKILL.md", skill_md("good"))
    write(proj, b".claude/skills/good/ref" + BAD + b".md", "x\n")
    write(proj, b".claude/skills/good/d" + BAD + b"/in.md", "x\n")
    write(proj, b".claude/skills/good/ok.md", "y\n")
    ws = load(proj, wskit_home)
    from wskit.builtin_plugins.skills.runtime import SkillError, SkillRuntime

    rt = SkillRuntime(ws, ws.profile)
    files = rt.list_files("good")
    assert files["files"] == ["SKILL.md", "ok.md"]
    assert files["skipped"] == [{"path": "d\\xff", "reason": "name-not-utf8"},
                                {"path": "ref\\xff.md", "reason": "name-not-utf8"}]
    with pytest.raises(SkillError) as err:
        rt.read("good", file="ref" + SUR + ".md")
    assert err.value.code == "SKILL_CONTENT_REJECTED" and "0xFF" in str(err.value)
    assert rt.read("good", file="ok.md").content == "y\n"
    res = wsctl("skills", "files", "good", str(proj))
    assert res.exit_code == 0 and "skipped ref\\xff.md: name-not-utf8" in res.output


def test_rules_explain_shows_the_target_byte_escaped(bad_names_ok, wsctl, tmp_path, monkeypatch):
    proj = tmp_path / "p"
    write(proj, b"AGENTS.md", "rules\n")
    assert wsctl("trust", "grant", str(proj)).exit_code == 0
    monkeypatch.chdir(proj)
    res = wsctl("rules", "explain", "x" + SUR)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == f"x\\xff in {proj}"
