"""The smaller findings of the second newcomer (reports/old/s2/newcomer2.md), each through
the CLI or the API a newcomer used: ``hooks trust --entry`` with the digest of another
selection says so; ``hooks run --unapproved block`` counts a guard once; ``styles list``
says a user style is shadowed and why a host lists none; ``WSKIT_HOST`` is named as the
variable. (A gate ``command_arg`` the input lacks: tests/core/session/test_gate.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.trust import TrustStore


def _real(home: Path, *args: str, stdin: str | None = None, env: dict | None = None,
          cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A real ``wsctl`` process (the dispatcher, then click)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    return subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), *args], input=stdin,
                          capture_output=True, text=True, env={**base, **(env or {})}, cwd=cwd, timeout=120)


@pytest.fixture
def two_guards(tmp_path: Path, wskit_home: Path) -> Path:
    """A trusted project with two PreToolUse/Bash guards, neither approved."""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".claude").mkdir()
    hooks = [{"type": "command", "command": "exit 0"}, {"type": "command", "command": "exit 2"}]
    (p / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": hooks}]}}))
    TrustStore.for_home(wskit_home).grant(p)
    return p


# -- hooks trust --entry with another selection's digest ----------------------------------------

def test_trusting_one_entry_with_the_digest_of_all_says_which_digest_it_is(wsctl, two_guards):
    st = json.loads(wsctl("hooks", "status", str(two_guards), json=True).output)
    first, second = st["entries"]
    res = wsctl("hooks", "trust", str(two_guards), "--entry", first["key"], "--digest", st["digest"])
    assert res.exit_code == 1
    assert f"is the digest of all awaiting entries, not of what is to be approved (entry {first['key']})" \
        in res.output
    assert "changed after review" not in res.output and first["digest"] in res.output  # the one to give
    # another entry's digest, and one entry's digest for two entries
    res = wsctl("hooks", "trust", str(two_guards), "--entry", first["key"], "--digest", second["digest"])
    assert res.exit_code == 1 and f"is the digest of entry {second['key']} alone" in res.output
    res = wsctl("hooks", "trust", str(two_guards), "--entry", first["key"], "--entry", second["key"],
                "--digest", first["digest"])
    assert res.exit_code == 1 and "not of what is to be approved (these 2 entries together)" in res.output
    # a digest nobody showed still reads as a change since review
    res = wsctl("hooks", "trust", str(two_guards), "--entry", first["key"], "--digest", "sha256:" + "0" * 64)
    assert res.exit_code == 1 and "it changed after review" in res.output
    assert json.loads(wsctl("hooks", "status", str(two_guards), json=True).output)["state"] == "awaiting"
    ok = wsctl("hooks", "trust", str(two_guards), "--entry", first["key"], "--digest", first["digest"])
    assert ok.exit_code == 0, ok.output


# -- hooks run --unapproved block counts a guard once -------------------------------------------

def test_a_guard_blocking_by_policy_is_one_result(wskit_home, wsctl, two_guards):
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    args = ("hooks", "run", "PreToolUse", str(two_guards), "--payload", "-", "--unapproved", "block")
    res = _real(wskit_home, *args, stdin=payload)
    assert res.stdout.splitlines()[0].endswith("(2 hook(s))"), res.stdout
    assert res.stdout.startswith("PreToolUse: blocked")
    data = json.loads(wsctl(*args, "--json", input=payload).stdout)
    ids = [r["hook_id"] for r in data["results"]]
    assert len(ids) == len(set(ids)) == 2
    assert [r["status"] for r in data["results"]] == ["blocked", "skipped"]
    assert data["blocked"] is True


# -- styles list -----------------------------------------------------------------------------------

def _style(path: Path, description: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: terse\ndescription: {description}\n---\nBe terse.\n")


def test_styles_list_says_a_user_style_is_shadowed(wsctl, wskit_home, tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    _style(p / ".claude/output-styles/terse.md", "project's")
    _style(wskit_home / ".claude/output-styles/terse.md", "user's")
    TrustStore.for_home(wskit_home).grant(p)
    res = wsctl("styles", "list", str(p))
    assert res.exit_code == 0
    assert "shadowed" in res.output and "style 'user:terse' is shadowed by 'project:terse'" in res.output
    data = json.loads(wsctl("styles", "list", str(p), json=True).output)
    assert [s["id"] for s in data["styles"]] == ["project:terse"]
    (d,) = [d for d in data["diagnostics"] if d["code"] == "shadowed"]
    assert d["level"] == "info" and d["path"].endswith(".claude/output-styles/terse.md")
    assert "project" not in d["path"].split("/")[-4:-3]  # the user's file is the one named


def test_styles_list_says_why_a_host_lists_none(wsctl, wskit_home, tmp_path):
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    _style(p / ".codex/output-styles/terse.md", "codex's")
    TrustStore.for_home(wskit_home).grant(p)
    res = wsctl("--host", "codex", "styles", "list", str(p))
    assert res.exit_code == 0
    assert "no styles" in res.output
    assert "host 'codex' reads no output styles, so none is listed (hosts that read output-styles folders: " \
           "claude, wskit)" in res.output
    data = json.loads(wsctl("--host", "codex", "styles", "list", str(p), json=True).output)
    assert [d["code"] for d in data["diagnostics"]] == ["style-host-none"]
    # a host that reads styles says nothing of the kind
    assert "style-host-none" not in wsctl("--host", "claude", "styles", "list", str(p)).output


# -- WSKIT_HOST is named as the variable -------------------------------------------------------------

@pytest.mark.parametrize("argv", [["inspect"], ["hooks", "run", "PreToolUse"], ["trust", "list"]])
def test_a_bad_host_from_the_variable_names_the_variable(wskit_home, tmp_path, argv):
    res = _real(wskit_home, *argv, env={"WSKIT_HOST": "Claude"}, cwd=tmp_path)
    assert res.returncode == 2
    assert "Error: WSKIT_HOST: invalid host name 'Claude': use lowercase letters" in res.stderr
    assert "--host" not in res.stderr.splitlines()[-1]
    res = _real(wskit_home, "--host", "Claude", *argv, cwd=tmp_path)
    assert res.returncode == 2 and "Error: --host: invalid host name 'Claude'" in res.stderr


def test_a_bad_host_from_the_variable_through_click(wsctl, tmp_path, monkeypatch):
    monkeypatch.setenv("WSKIT_HOST", "claud")
    res = wsctl("inspect", str(tmp_path))
    assert res.exit_code == 2 and "WSKIT_HOST: unknown host 'claud' (did you mean 'claude'?)" in res.output
