"""Helpers for tests that run real server processes (MCP, LSP, OAuth, hooks):
whether a pid still runs, waiting for it to end, and starting a loopback server
and waiting until it listens."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

__all__ = ["alive", "free_port", "in_pty", "start_listening", "wait_dead", "wait_listening"]


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_dead(pid: int, timeout: float = 10) -> bool:
    """Wait up to ``timeout`` seconds for ``pid`` to exit. :returns: True when it did."""
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def wait_listening(port: int, timeout: float = 30, proc: subprocess.Popen | None = None) -> bool:
    """Wait until something accepts connections on 127.0.0.1:``port``.

    :returns: True when it does; False after ``timeout`` seconds or when ``proc`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            if proc is not None and proc.poll() is not None:
                return False
            time.sleep(0.1)
    return False


def start_listening(argv: Sequence[str], port: int, timeout: float = 30) -> subprocess.Popen:
    """Start ``argv`` (a server that listens on ``port``) and wait until it listens;
    the test fails with the server's stderr when it exits or never listens."""
    proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if not wait_listening(port, timeout, proc):
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        pytest.fail(f"{argv[-2:]} did not listen on port {port}: {proc.stderr.read().decode()[-2000:]}")
    return proc


def in_pty(argv: Sequence[str], env: dict[str, str], timeout: float = 30) -> tuple[str, int]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal (as on a user's
    terminal). :returns: what it printed (UTF-8, errors replaced) and its exit code."""
    import pty
    import select

    master, slave = pty.openpty()
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env,
                            close_fds=True)
    os.close(slave)
    out = b""
    while select.select([master], [], [], timeout)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout)
    os.close(master)
    return out.decode("utf-8", "replace"), proc.returncode
