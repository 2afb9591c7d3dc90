"""Coverage names what it cannot read or cannot vouch for (issue 32, red-team F8 and F15).

F8: a binary executable inside the project was read as a shell script: ``hooks status``
and the ``hooks trust`` error carried kilobytes of escaped ELF bytes, one ``not verified``
line per "line" of the binary. Now it is one unverified word with a one-line reason.
F15: a project hook running a script outside the project from a folder every local user
can write (``bash /tmp/x.sh``) showed no ``covers`` and no ``not verified`` line, as if
fully verified. Now such a file (or one another user owns) is named unverified. Real files
in ``tmp_path``, real ``wsctl``."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.security.test_approval_loads import _cov

BINARY_REASON = "a binary executable: what it loads is not followed"


def _elf() -> str | None:
    for cand in ("/bin/true", "/usr/bin/true"):
        if os.path.isfile(cand) and open(cand, "rb").read(4) == b"\x7fELF":
            return cand
    return None


@pytest.mark.skipif(_elf() is None, reason="needs an ELF /bin/true")
@pytest.mark.parametrize("command", ['"$CLAUDE_PROJECT_DIR"/bin/tool hooks/g.py', "bin/tool", "sh -c bin/tool"])
def test_a_binary_in_the_project_is_one_unverified_word_with_a_one_line_reason(tmp_path, command):
    project = tmp_path / "project"
    (project / "bin").mkdir(parents=True)
    shutil.copy(_elf(), project / "bin/tool")
    c = _cov(tmp_path, {"hooks/g.py": "print(1)\n"}, command)
    binary = [u for u in c.unverified if "bin/tool" in u.word]
    assert [u.reason for u in binary] == [BINARY_REASON], c.unverified
    assert not any("\\x" in u.word or "ELF" in u.word or "\x00" in u.reason for u in c.unverified)
    assert any(f.path.endswith("bin/tool") and f.digest for f in c.files)  # its bytes are still covered


@pytest.mark.skipif(_elf() is None, reason="needs an ELF /bin/true")
def test_hooks_status_and_trust_name_the_binary_in_one_line(wsctl, wskit_home, tmp_path):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "bin").mkdir()
    shutil.copy(_elf(), project / "bin/tool")
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/bin/tool'}]}]}}))
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    out = wsctl("hooks", "status", str(project)).stdout
    lines = [ln for ln in out.splitlines() if ln.startswith("not verified:")]
    assert len(lines) == 1 and BINARY_REASON in lines[0] and "\\x" not in out, out
    digest = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)["digest"]
    r = wsctl("hooks", "trust", str(project), "--digest", digest)
    assert r.exit_code != 0 and "bin/tool" in r.stderr and "\\x" not in r.stderr and len(r.stderr) < 600, r.stderr


def _shared(tmp_path: Path) -> Path:
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o777)  # a folder every local user can write, as /tmp or /dev/shm
    return d


def test_a_script_in_a_folder_every_user_can_write_is_unverified(tmp_path):
    d = _shared(tmp_path)
    (d / "x.sh").write_text("exit 0\n")
    c = _cov(tmp_path, {}, f"bash {d}/x.sh")
    (u,) = c.unverified
    assert u.word == f"{d}/x.sh" and "outside the project" in u.reason and "every local user can write" in u.reason
    # a file not there yet, which anyone may create there
    c = _cov(tmp_path, {}, f"sh {d}/later.sh")
    assert [u.word for u in c.unverified] == [f"{d}/later.sh"]
    # and a folder not there yet below it
    c = _cov(tmp_path, {}, f"sh {d}/sub/later.sh")
    assert [u.word for u in c.unverified] == [f"{d}/sub/later.sh"]


def test_a_script_of_the_users_system_outside_shared_folders_stays_uncovered_and_unnamed(tmp_path):
    d = tmp_path / "mine"
    d.mkdir(mode=0o755)
    (d / "x.sh").write_text("exit 0\n")
    c = _cov(tmp_path, {}, f"bash {d}/x.sh")
    assert c.unverified == () and c.files == ()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_script_another_user_owns_is_unverified(tmp_path):
    d = tmp_path / "theirs"
    d.mkdir(mode=0o755)
    f = d / "x.sh"
    f.write_text("exit 0\n")
    os.chown(f, 54321, 54321)
    (u,) = _cov(tmp_path, {}, f"bash {f}").unverified
    assert "owned by another user (uid 54321)" in u.reason
    os.chown(f, 0, 0)
    os.chown(d, 54321, 54321)
    (u,) = _cov(tmp_path, {}, f"bash {f}").unverified
    assert f"in {d}, a folder owned by another user" in u.reason
    os.chown(d, 0, 0)
    f.chmod(f.stat().st_mode | stat.S_IWOTH)
    (u,) = _cov(tmp_path, {}, f"bash {f}").unverified
    assert "a file every local user can write" in u.reason


def test_hooks_status_shows_the_shared_script_and_trust_needs_accept_unverified(wsctl, wskit_home, tmp_path):
    d = _shared(tmp_path)
    (d / "x.sh").write_text("exit 0\n")
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"bash {d}/x.sh"}]}]}}))
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    out = wsctl("hooks", "status", str(project)).stdout
    assert f"not verified: {d}/x.sh" in out and "every local user can write" in out, out
    digest = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)["digest"]
    assert wsctl("hooks", "trust", str(project), "--digest", digest).exit_code != 0
    assert wsctl("hooks", "trust", str(project), "--digest", digest, "--accept-unverified").exit_code == 0
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    assert [e["state"] for e in st["entries"]] == ["approved"]
