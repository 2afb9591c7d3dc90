"""Command hooks as real subprocesses (reference/blade.md §11.4, Claude Code hooks).

:func:`run_command` starts ``/bin/sh -c <command>`` in a *new process group*
(``start_new_session=True``), writes the payload to stdin, reads stdout and
stderr concurrently with a cap on each, and on timeout kills the whole group
(``SIGKILL`` to ``-pgid``) so a hook's children die with it. The group is
also killed after a normal exit: a hook never leaves processes behind.

:func:`arun_command` is the same on the event loop (``asyncio`` subprocess and stream
readers, no thread per hook); cancelling the task that awaits it kills the hook's
process group before the cancellation goes on.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from wskit.builtin_plugins.hooks import DEFAULT_OUTPUT_CAP  # noqa: F401  (declared with the plugin)
from wskit.resources.hooks import MAX_HOOK_INPUT_BYTES
from wskit.values import FrozenValue

if TYPE_CHECKING:  # pragma: no cover
    import asyncio


#: Largest stdin payload accepted, bytes: every input a tool-call gate lets through
#: (:data:`wskit.resources.hooks.MAX_HOOK_INPUT_BYTES`; Blade's 100 KB bound let a model
#: pad a tool input until the user's guard could not start).
MAX_STDIN_BYTES = MAX_HOOK_INPUT_BYTES


class CommandResult(FrozenValue):
    """What one command hook produced.

    :ivar exit_code: the process's exit status (None when killed at the timeout).
    :ivar stdout, stderr: decoded text (UTF-8, errors replaced), at most the cap.
    :ivar stdout_truncated, stderr_truncated: True when output went past the cap
        (the rest was read and discarded so the process never blocked).
    :ivar timed_out: the timeout expired and the process group was killed.
    :ivar duration: wall time in seconds.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    duration: float


class _CappedReader:
    """Reads ``stream`` to its end, keeping at most ``cap`` bytes (run by a daemon thread
    :func:`run_command` starts)."""

    def __init__(self, stream, cap: int) -> None:
        self.stream, self.cap = stream, cap
        self.buf = bytearray()
        self.truncated = False

    def run(self) -> None:
        try:
            while True:
                chunk = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
                if not chunk:
                    break
                room = self.cap - len(self.buf)
                if room > 0:
                    self.buf += chunk[:room]
                if len(chunk) > max(room, 0):
                    self.truncated = True
        except (OSError, ValueError):
            pass


def _feed(stream, data: bytes) -> None:
    try:
        stream.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


def _kill_group(pgid: int) -> None:
    import signal

    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _check_stdin(stdin: bytes) -> None:
    if len(stdin) > MAX_STDIN_BYTES:
        raise ValueError(f"hook input is {len(stdin)} bytes, over the {MAX_STDIN_BYTES}-byte limit")


def run_command(
    command: str,
    stdin: bytes,
    *,
    cwd: str,
    env: dict[str, str],
    timeout: float,
    output_cap: int = DEFAULT_OUTPUT_CAP,
) -> CommandResult:
    """Run ``command`` through ``/bin/sh -c`` as a hook.

    :param command: shell command line.
    :param stdin: bytes written to the process's stdin (then closed).
    :param cwd: working folder (the session's execution root).
    :param env: the *whole* environment (nothing else from this process leaks).
    :param timeout: seconds before the process group is killed.
    :param output_cap: bytes kept of each of stdout and stderr.
    :raises ValueError: ``stdin`` larger than :data:`MAX_STDIN_BYTES`.
    :raises OSError: the shell could not be started.
    """
    _check_stdin(stdin)
    import subprocess  # when a command hook runs, not when the runner is made
    import threading

    start = time.monotonic()
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
    )
    pgid = proc.pid  # leader of its own session/group
    out, err = _CappedReader(proc.stdout, output_cap), _CappedReader(proc.stderr, output_cap)
    readers = [threading.Thread(target=r.run, daemon=True) for r in (out, err)]
    for reader in readers:
        reader.start()
    # written by a thread: a hook that never reads a payload larger than the pipe's buffer
    # must not hold this call past its timeout
    writer = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
    writer.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(pgid)
        proc.wait()
    # children that outlive the hook (or hold its pipes open) are killed too
    _kill_group(pgid)
    writer.join(5)
    for reader in readers:
        reader.join(5)
    for s in (proc.stdout, proc.stderr):
        try:
            s.close()
        except OSError:
            pass
    return CommandResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=bytes(out.buf).decode("utf-8", "replace"),
        stderr=bytes(err.buf).decode("utf-8", "replace"),
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        timed_out=timed_out,
        duration=time.monotonic() - start,
    )


async def _read_capped(stream: asyncio.StreamReader, cap: int) -> tuple[bytes, bool]:
    """Everything ``stream`` gives until EOF, at most ``cap`` bytes kept (the rest read
    and dropped so the process never blocks on a full pipe); ``(kept, truncated)``."""
    buf, truncated = bytearray(), False
    try:
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                break
            room = cap - len(buf)
            if room > 0:
                buf += chunk[:room]
            if len(chunk) > max(room, 0):
                truncated = True
    except (OSError, ValueError):
        pass
    return bytes(buf), truncated


async def _afeed(stream: asyncio.StreamWriter, data: bytes) -> None:
    try:
        stream.write(data)
        await stream.drain()
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


async def arun_command(
    command: str,
    stdin: bytes,
    *,
    cwd: str,
    env: dict[str, str],
    timeout: float,
    output_cap: int = DEFAULT_OUTPUT_CAP,
) -> CommandResult:
    """:func:`run_command` without blocking the event loop: the same process (``/bin/sh -c``
    in a new process group, the whole environment given), the same caps, the same timeout
    (the group killed when it expires), the same result.

    Cancelling the awaiting task kills the hook's process group and reaps the shell, then
    lets :class:`asyncio.CancelledError` go on: a cancelled tool call leaves no hook running.

    :raises ValueError: ``stdin`` larger than :data:`MAX_STDIN_BYTES`.
    :raises OSError: the shell could not be started.
    :raises asyncio.CancelledError: the awaiting task was cancelled (the hook is killed).
    """
    import asyncio  # the async path only: a sync run never imports it

    _check_stdin(stdin)
    start = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", command, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True, close_fds=True,
    )
    pgid = proc.pid
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = asyncio.ensure_future(_read_capped(proc.stdout, output_cap))
    err = asyncio.ensure_future(_read_capped(proc.stderr, output_cap))
    feed = asyncio.ensure_future(_afeed(proc.stdin, stdin))
    timed_out = False
    try:
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except asyncio.TimeoutError:
            timed_out = True
            _kill_group(pgid)
            await proc.wait()
        # children that outlive the hook (or hold its pipes open) are killed too
        _kill_group(pgid)
        done, _ = await asyncio.wait({out, err, feed}, timeout=5)
    except BaseException:  # cancelled (or the loop is closing): the hook dies with the call
        _kill_group(pgid)
        for task in (out, err, feed):
            task.cancel()
        try:
            await asyncio.shield(proc.wait())
        except BaseException:  # cancelled again while reaping: the group is already killed
            pass
        raise
    for task in (out, err, feed):
        if task not in done:
            task.cancel()
    stdout, stdout_cut = out.result() if out in done else (b"", False)
    stderr, stderr_cut = err.result() if err in done else (b"", False)
    return CommandResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        stdout_truncated=stdout_cut,
        stderr_truncated=stderr_cut,
        timed_out=timed_out,
        duration=time.monotonic() - start,
    )
