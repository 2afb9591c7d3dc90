"""A reader that closes wsctl's stdout early (``wsctl … | head -1``) ends it quietly with
the status of a process killed by SIGPIPE (141, as git and the coreutils), never
``error: Broken pipe``; a stdout that fails otherwise (a full disk) is still an error
(docs/wsctl.md, exit status)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from wskit.cli import STDOUT_CLOSED_STATUS


def _marketplace(tmp_path, n=4000):
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "owner": {"name": "x"}, "plugins": [
        {"name": f"plugin-{i}", "source": f"./p{i}", "description": "d" * 40} for i in range(n)]}))
    return m


def _first_line_then_close(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    proc = subprocess.Popen([sys.executable, "-m", "wskit", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does
    err = proc.stderr.read()
    proc.stderr.close()
    return first, proc.wait(timeout=120), err


def test_a_closed_stdout_ends_quietly_with_the_sigpipe_status(tmp_path):
    m = _marketplace(tmp_path)
    first, rc, err = _first_line_then_close(["--home", str(tmp_path / "h"), "marketplace", "list", str(m)], tmp_path)
    assert first.startswith(b"m (x): 4000 plugins")
    assert (rc, err) == (STDOUT_CLOSED_STATUS, b"")


def test_a_stdout_that_fails_otherwise_is_still_an_error(tmp_path):
    if not os.path.exists("/dev/full"):
        import pytest

        pytest.skip("no /dev/full")
    m = _marketplace(tmp_path, 50)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    with open("/dev/full", "w") as full:
        res = subprocess.run([sys.executable, "-m", "wskit", "--home", str(tmp_path / "h"), "marketplace", "list",
                              str(m)], stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    assert res.returncode == 1 and res.stderr.startswith("error: ") and "No space left" in res.stderr
