"""Every read of content has a byte bound, and nothing named on the command line blocks.

Each case gives a 2 GiB sparse file (``truncate``: no disk used) or a FIFO to
one reader. The commands run as real ``wsctl`` processes under a 512 MiB
address-space limit and a time bound, so a reader that reads the file whole
fails the case (out of memory, or the time bound) instead of taking the
machine's memory; a FIFO that blocks hits the time bound.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import skill_md
from wskit import fs
from wskit.fs import limits
from wskit.trust import TrustStore

GIB2 = 2 * 1024**3
#: address space a wsctl child may use: far below the 2 GiB a whole read needs
MEM_LIMIT = 512 * 1024**2


def _sparse(path: Path, head: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(GIB2)
    return path


_MAIN = "import sys; from wskit.cli import main; sys.exit(main())"


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))


def _wsctl(home: Path, *args: str, cwd: Path, timeout: float = 60, env: dict | None = None):
    run_env = {**os.environ, "WSKIT_HOME": str(home), **(env or {})}
    run_env.pop("WSKIT_TRACEBACK", None)
    return subprocess.run([sys.executable, "-c", _MAIN, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=run_env, preexec_fn=_limit_memory)


@pytest.fixture
def project(make_tree, wskit_home):
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n", ".claude/skills/ok/SKILL.md": skill_md("ok")})
    TrustStore.for_home(wskit_home).grant(ws)
    return ws


def _one_error_line(res, *needles: str) -> str:
    assert res.returncode in (1, 2), (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    assert "Traceback" not in res.stderr and "MemoryError" not in res.stderr, res.stderr[-2000:]
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith(("error:", "Error:"))]
    assert lines, res.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


# -- the mechanism --------------------------------------------------------------------------


def test_read_bytes_without_a_limit_is_bounded_by_the_default(tmp_path):
    big = _sparse(tmp_path / "big.md")
    with pytest.raises(fs.SafeFsError) as err:
        fs.read_bytes(tmp_path, "big.md")  # no max_bytes: the default bound, not the whole file
    assert err.value.code == "too-large" and err.value.path == str(big)
    assert f"{GIB2} bytes" in err.value.reason and str(limits.MAX_READ_BYTES) in err.value.reason


def test_the_limit_is_a_setting_and_a_bad_value_keeps_the_default(tmp_path, monkeypatch):
    (tmp_path / "f.md").write_bytes(b"x" * 2000)
    assert fs.read_limit() == limits.MAX_READ_BYTES == 8 * 1024 * 1024
    monkeypatch.setenv(limits.ENV_VAR, "1000")
    assert fs.read_limit() == 1000
    with pytest.raises(fs.SafeFsError, match="over the limit of 1000 bytes"):
        fs.read_bytes(tmp_path, "f.md")
    assert fs.read_limit({"max_read_bytes": 4096}) == 4096  # the host setting wins
    assert fs.read_bytes(tmp_path, "f.md", max_bytes=4096).size == 2000
    for bad in ("0", "-5", "8M", "", "1e9", "9" * 40):
        monkeypatch.setenv(limits.ENV_VAR, bad)
        assert fs.read_limit() == limits.MAX_READ_BYTES, bad  # never unbounded, never 0
    assert fs.read_limit({"max_read_bytes": True}) == limits.MAX_READ_BYTES
    assert fs.read_limit({"max_read_bytes": -1}) == limits.MAX_READ_BYTES


def test_a_file_that_grows_past_the_limit_while_read_is_refused_not_truncated(tmp_path):
    """``fstat`` said small; the reads then see more: the bound holds while reading."""
    from wskit.fs.descriptors import read_all

    p = tmp_path / "grows"
    p.write_bytes(b"a" * 100)
    fd = os.open(p, os.O_RDONLY)
    try:
        with open(p, "ab") as fh:
            fh.write(b"b" * 5000)  # grows after the size check
        assert read_all(fd, 100, 1000) is None  # over the limit: refused
    finally:
        os.close(fd)


# -- the readers ----------------------------------------------------------------------------


def test_skill_runtime_refuses_a_2gib_body(project, wskit_home):
    from wskit.builtin_plugins.skills.runtime import SkillError, SkillRuntime
    from wskit.cache import WorkspaceCache
    from wskit.host import HostProfile

    _sparse(project / ".claude/skills/huge/SKILL.md", b"---\nname: huge\ndescription: sparse\n---\n")
    profile = HostProfile(name="wskit", home=wskit_home)
    ws = WorkspaceCache(profile).resolve(project)
    rt = SkillRuntime(ws, profile)
    assert "huge" in {s.name for s in rt.list()}  # discovery read its frontmatter only
    with pytest.raises(SkillError) as err:
        rt.read("huge")
    assert err.value.code == "SKILL_CONTENT_REJECTED" and "too-large" in str(err.value)
    assert "SKILL.md" in str(err.value)
    small = HostProfile(name="wskit", home=wskit_home, settings={"max_read_bytes": 10})
    with pytest.raises(SkillError, match="over the limit of 10 bytes"):
        SkillRuntime(ws, small).read("ok")  # the host setting bounds every body
    assert "Body of ok" in rt.read("ok").content


def test_wsctl_skills_show_refuses_a_2gib_skill_md(project, wskit_home):
    _sparse(project / ".claude/skills/huge/SKILL.md", b"---\nname: huge\ndescription: sparse\n---\n")
    res = _wsctl(wskit_home, "skills", "show", "huge", str(project), cwd=project)
    _one_error_line(res, "too-large", "huge/SKILL.md")


def test_hooks_run_payload_sparse_and_fifo(project, wskit_home, tmp_path):
    big = _sparse(tmp_path / "payload.json", b'{"a": "')
    res = _wsctl(wskit_home, "hooks", "run", "PreToolUse", str(project), "--payload", str(big), cwd=project)
    _one_error_line(res, "payload.json", "too-large")
    fifo = tmp_path / "payload.fifo"
    os.mkfifo(fifo)
    res = _wsctl(wskit_home, "hooks", "run", "PreToolUse", str(project), "--payload", str(fifo), cwd=project,
                 timeout=30)
    _one_error_line(res, "payload.fifo", "special-file")


def test_session_verify_sparse_and_fifo(project, wskit_home, tmp_path):
    big = _sparse(tmp_path / "state.json", b'{"format": 1, "x": "')
    _one_error_line(_wsctl(wskit_home, "session", "verify", str(big), str(project), cwd=project),
                    "state.json", "too-large")
    fifo = tmp_path / "state.fifo"
    os.mkfifo(fifo)
    _one_error_line(_wsctl(wskit_home, "session", "verify", str(fifo), str(project), cwd=project, timeout=30),
                    "state.fifo", "special-file")


def test_mcp_config_file_sparse_and_fifo_are_diagnostics(project, wskit_home, tmp_path):
    """``--mcp-config FILE``: read through safe file access (open() blocked on a FIFO
    and read a 2 GiB file whole); each bad file is that config's diagnostic."""
    big = _sparse(tmp_path / "big.json", b'{"mcpServers": {"a": {"command": "')
    fifo = tmp_path / "servers.fifo"
    os.mkfifo(fifo)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"mcpServers": {"fine": {"command": "echo"}}}))
    res = _wsctl(wskit_home, "--json", "mcp", "list", str(project), "--mcp-config", str(big),
                 "--mcp-config", str(fifo), "--mcp-config", str(good), cwd=project, timeout=30)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(res.stdout)
    diags = {(d["code"], Path(d["path"]).name): d["message"] for d in data["diagnostics"]}
    assert "too-large" in diags[("mcp-config", "big.json")]
    assert "special-file" in diags[("mcp-config", "servers.fifo")]
    assert "fine" in json.dumps(data["servers"])  # the good config still loads


def test_plugins_enable_refuses_a_2gib_settings_file(project, wskit_home):
    _sparse(project / ".wskit/settings.json", b'{"a": "')
    res = _wsctl(wskit_home, "plugins", "enable", "demo", "--force", "--scope", "project", "--path", str(project), cwd=project)
    _one_error_line(res, "settings.json", "larger than 1048576 bytes; refused unread")
    assert (project / ".wskit/settings.json").stat().st_size == GIB2  # not changed


def test_a_2gib_settings_file_is_that_file_s_diagnostic(project, wskit_home):
    _sparse(project / ".claude/settings.json", b'{"a": "')
    res = _wsctl(wskit_home, "--json", "inspect", str(project), cwd=project)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(res.stdout)
    assert any(d["code"] == "too-large" and d["path"].endswith(".claude/settings.json") for d in data["diagnostics"])
    assert "project:ok" in json.dumps(data)
