"""``wsctl trust status|grant|revoke|list|forget`` (the trust built-in's commands)."""

import json

import pytest

from tests.conftest import git, skill_md
from wskit.trust import TrustStore


@pytest.fixture
def project(make_tree):
    return make_tree({
        ".claude/skills/alpha/SKILL.md": skill_md("alpha", "Alpha skill."),
        ".agents/skills/beta/SKILL.md": skill_md("beta", "Beta skill."),
        ".claude/skills/broken/SKILL.md": "---\nname: broken\n---\n",
    })


def test_trust_commands(wsctl, project, wskit_home):
    git(project, "init", "-q")
    st = json.loads(wsctl("trust", "status", str(project), json=True).stdout)
    assert st == {"path": str(project.resolve()), "state": "unknown", "decided_by": None}
    wsctl("trust", "grant", str(project / ".claude"))  # maps to the project holding it
    st = json.loads(wsctl("trust", "status", str(project), json=True).stdout)
    assert st["state"] == "trusted" and st["decided_by"] == str(project.resolve())
    wsctl("trust", "revoke", str(project))
    assert json.loads(wsctl("trust", "status", str(project), json=True).stdout)["state"] == "untrusted"
    listed = json.loads(wsctl("trust", "list", json=True).stdout)["decisions"]
    assert [(d["path"], d["state"]) for d in listed] == [(str(project.resolve()), "untrusted")]
    wsctl("trust", "forget", str(project))
    assert json.loads(wsctl("trust", "list", json=True).stdout)["decisions"] == []


def test_trust_grant_of_the_root_or_the_home_warns_and_still_grants(wsctl, project, wskit_home, monkeypatch):
    """`trust grant /` still grants, with a warning: trusting every folder is rarely what is meant."""
    r = wsctl("trust", "grant", "/", json=True)
    assert r.exit_code == 0 and json.loads(r.stdout) == {"path": "/", "state": "trusted", "decided_by": "/"}
    assert "warning: / is the file-system root: every folder below it is now trusted" in r.stderr
    r = wsctl("trust", "grant", str(wskit_home))
    assert r.exit_code == 0 and f"warning: {wskit_home.resolve()} is your home folder" in r.stderr
    monkeypatch.setenv("HOME", str(project.parent))  # the real home, when --home is another folder
    r = wsctl("trust", "grant", str(project.parent))
    assert r.exit_code == 0 and "is your home folder" in r.stderr
    paths = {d["path"] for d in json.loads(wsctl("trust", "list", json=True).stdout)["decisions"]}
    assert {"/", str(wskit_home.resolve()), str(project.parent.resolve())} <= paths
    for quiet in (("grant", str(project)), ("revoke", "/"), ("forget", "/")):
        r = wsctl("trust", *quiet)
        assert r.exit_code == 0 and "warning" not in r.stderr, quiet


def test_trust_grant_of_a_folder_holding_the_home_warns(wsctl, tmp_path, monkeypatch):
    """`trust grant /home` (or `/tmp` with the home below it) trusts the home folder and
    everything beside it, so it says so."""
    home = tmp_path / "users/me"
    home.mkdir(parents=True)
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setenv("HOME", str(other))
    for parent in (tmp_path / "users", tmp_path):
        r = wsctl("trust", "grant", str(parent), "--exact", home=home)
        assert r.exit_code == 0, r.output
        assert f"warning: {parent.resolve()} is a folder holding your home folder: every folder below it" in r.stderr
    # the real $HOME counts too
    real = tmp_path / "real/home"
    real.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(real))
    r = wsctl("trust", "grant", str(tmp_path / "real"), "--exact", home=home)
    assert r.exit_code == 0 and "is a folder holding your home folder" in r.stderr
    # a sibling of the home, or a folder below it, is not
    for quiet in (tmp_path / "users/you", home / "proj"):
        quiet.mkdir(parents=True)
        r = wsctl("trust", "grant", str(quiet), "--exact", home=home)
        assert r.exit_code == 0 and "warning" not in r.stderr, quiet
    # a name that only starts like the home's parent is not a parent
    (tmp_path / "use").mkdir()
    r = wsctl("trust", "grant", str(tmp_path / "use"), "--exact", home=home)
    assert "warning" not in r.stderr


def test_corrupt_trust_store_is_an_error_not_a_traceback(wsctl, project, wskit_home):
    store = TrustStore.for_home(wskit_home)
    store.grant(project)
    store.path.write_text("[[[")
    r = wsctl("trust", "status", str(project))
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and "corrupt" in r.stderr
    assert "Traceback" not in r.output
    r = wsctl("inspect", str(project), json=True)  # inspect fails closed, still answers
    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["resources"] == [] and data["trust"]["state"] == "unknown"
    assert any(d["code"] == "trust-store-error" for d in data["diagnostics"])


def test_exact_trust_decision_inside_a_project_says_it_does_not_apply(wsctl, make_tree):
    """``trust revoke --exact src`` inside a trusted git project is recorded but changes
    nothing, so it says so: in silence, the user would believe src revoked."""
    root = make_tree({".git/HEAD": "ref: refs/heads/main\n", "src/AGENTS.md": "x\n"})
    wsctl("trust", "grant", str(root))
    res = wsctl("trust", "revoke", "--exact", str(root / "src"), json=True)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["path"] == str(root / "src") and data["state"] == "untrusted"
    assert data["project"] == {"path": str(root), "state": "trusted", "decided_by": str(root)}
    assert "does not apply" in res.stderr
    status = json.loads(wsctl("trust", "status", str(root / "src"), json=True).stdout)
    assert status["state"] == "trusted"  # what the warning said
    plain = wsctl("trust", "revoke", str(root / "src"), json=True)  # without --exact: the project
    assert "project" not in json.loads(plain.stdout) and "does not apply" not in plain.stderr
