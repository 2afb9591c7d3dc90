"""What a newcomer following the README met, through the CLI (both front ends: the
per-turn dispatcher in a real ``wsctl`` process, and click): an unknown ``--host``
is refused naming the known hosts; ``hooks run --payload -`` reads standard input
(bounded); ``hooks trust`` says what it approved; ``ref resolve`` says why a
reference did not resolve."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.trust import TrustStore


def _real(home: Path, *args: str, stdin: str | bytes | None = None, env: dict | None = None,
          cwd: Path | None = None) -> subprocess.CompletedProcess:
    """A real ``wsctl`` process (``wskit.cli.fast.main``: the dispatcher, then click)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), *args], input=data,
                          capture_output=True, env={**base, **(env or {})}, cwd=cwd, timeout=120)


@pytest.fixture
def guarded(tmp_path: Path, wskit_home: Path) -> Path:
    """A trusted project whose PreToolUse guard (approved) blocks ``rm -rf``."""
    p = tmp_path / "proj"
    (p / ".git").mkdir(parents=True)
    (p / ".claude").mkdir()
    (p / "guard.py").write_text("import json, sys\nd = json.load(sys.stdin)\n"
                                "sys.exit(2 if 'rm -rf' in d['tool_input'].get('command', '') else 0)\n")
    (p / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} guard.py"}]}]}}))
    TrustStore.for_home(wskit_home).grant(p)
    return p


# -- an unknown --host -------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["inspect"], ["hooks", "run", "PreToolUse"], ["trust", "list"]])
def test_an_unknown_host_is_refused_naming_the_known_hosts(wskit_home, tmp_path, argv):
    """``inspect`` and ``hooks run`` are the dispatcher's forms, ``trust list`` is click's:
    the same refusal (exit 2) through both, with the flag and through WSKIT_HOST."""
    for res, named in ((_real(wskit_home, "--host", "claud", *argv, cwd=tmp_path), "--host"),
                       (_real(wskit_home, *argv, env={"WSKIT_HOST": "claud"}, cwd=tmp_path), "WSKIT_HOST")):
        err = res.stderr.decode()
        assert res.returncode == 2, err
        assert f"{named}: unknown host 'claud' (did you mean 'claude'?); known hosts: claude, codex, copilot, " \
               "cursor, gemini, opencode, wskit" in err
        assert res.stdout == b""


def test_an_unknown_host_through_click_and_known_ones_still_work(wsctl, tmp_path):
    res = wsctl("--host", "xyz", "inspect", str(tmp_path))
    assert res.exit_code == 2 and "unknown host 'xyz'; known hosts: claude," in res.output
    assert "did you mean" not in res.output  # nothing near
    for host in ("claude", "codex", "wskit"):
        assert wsctl("--host", host, "inspect", str(tmp_path)).exit_code == 0
    res = wsctl("--host", "bad host", "inspect", str(tmp_path))
    assert res.exit_code == 2 and "--host: invalid host name 'bad host'" in res.output


# -- hooks run --payload - ------------------------------------------------------------------

def test_hooks_run_reads_the_payload_from_standard_input(wskit_home, guarded, wsctl):
    st = json.loads(wsctl("hooks", "status", str(guarded), json=True).output)
    assert wsctl("hooks", "trust", str(guarded), "--digest", st["digest"]).exit_code == 0
    bad = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    good = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    # a real process (the dispatcher's form) and click, from a pipe
    res = _real(wskit_home, "hooks", "run", "PreToolUse", str(guarded), "--payload", "-", stdin=bad)
    assert res.returncode == 0 and res.stdout.decode().startswith("PreToolUse: blocked"), res
    res = _real(wskit_home, "hooks", "run", "PreToolUse", str(guarded), "--payload", "-", stdin=good)
    assert res.returncode == 0 and res.stdout.decode().startswith("PreToolUse: allowed"), res
    r = wsctl("hooks", "run", "PreToolUse", str(guarded), "--payload", "-", input=bad)
    assert r.exit_code == 0 and r.stdout.startswith("PreToolUse: blocked")
    r = wsctl("hooks", "run", "PreToolUse", str(guarded), "--payload", "-", "--json", input=good)
    assert json.loads(r.stdout)["blocked"] is False


def test_a_payload_on_standard_input_is_bounded_and_checked(wskit_home, guarded):
    res = _real(wskit_home, "hooks", "run", "PreToolUse", str(guarded), "--payload", "-",
                stdin=b'{"tool_name": "Bash", "x": "' + b"y" * 5000 + b'"}', env={"WSKIT_MAX_READ_BYTES": "4096"})
    assert res.returncode == 1
    assert res.stderr.decode().strip() == "error: standard input: over the limit of 4096 bytes (not read further)"
    res = _real(wskit_home, "hooks", "run", "PreToolUse", str(guarded), "--payload", "-", stdin="[1, 2]")
    assert res.returncode == 1 and "standard input: the payload must be a JSON object" in res.stderr.decode()
    res = _real(wskit_home, "hooks", "run", "PreToolUse", str(guarded), "--payload", "-", stdin=b"\xff{}")
    assert res.returncode == 1 and "standard input" in res.stderr.decode()


def test_hooks_run_help_says_what_the_payload_is(wsctl):
    out = " ".join(wsctl("hooks", "run", "--help").output.split())
    assert "tool_name, tool_input" in out and "'-' reads it from standard input" in out


# -- hooks trust says what it approved ---------------------------------------------------------

def test_hooks_trust_names_the_entries_their_source_and_digests(wsctl, guarded):
    st = json.loads(wsctl("hooks", "status", str(guarded), json=True).output)
    entry = st["entries"][0]
    res = wsctl("hooks", "trust", str(guarded), "--digest", st["digest"])
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0] == f"approved 1 hook entry (reviewed digest {st['digest']}):"
    row = next(line for line in lines if line.startswith(entry["key"]))
    assert "project .claude/settings.json" in row and "PreToolUse Bash:" in row and entry["digest"] in row
    assert lines[-1] == f"{guarded}: hooks approved (1 hook; folder trusted)"
    assert f"{guarded}: trusted" not in res.output  # folder trust's words
    data = json.loads(wsctl("hooks", "revoke", str(guarded), json=True).output)
    assert data["state"] == "awaiting"
    data = json.loads(wsctl("hooks", "trust", str(guarded), "--digest", st["digest"], json=True).output)
    assert data["approved_entries"] == [{"key": entry["key"], "source": "project .claude/settings.json",
                                         "label": entry["label"], "digest": entry["digest"]}]


# -- ref resolve says why -------------------------------------------------------------------

def test_ref_resolve_shows_the_reason_without_json(wsctl, tmp_path):
    res = wsctl("ref", "resolve", str(tmp_path / "x.txt"), "rel.txt", "workspace://nope/a")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert lines[0].split() == ["STATUS", "ROOT", "PATH", "REF", "REASON"]
    assert "no registered execution root holds this path" in lines[2]
    assert "relative reference needs --base-file" in lines[3]
    assert "workspace `nope` is not registered" in lines[4]
