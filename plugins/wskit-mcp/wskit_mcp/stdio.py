"""The stdio transport of wskit's MCP client: the SDK's ``stdio_client`` with a byte
bound on every message and a record of what a server sent that is not JSON-RPC.

The SDK's transport joins stdout chunks until a newline arrives, without a bound
(a 400 MiB line is buffered whole), and quotes a line it cannot parse only in a log
record. Here each line is read into a buffer of at most ``max_message_bytes``: a
longer one ends the connection (the rest is never buffered) and
:attr:`StdioReport.violation` says so; a line that is not JSON-RPC is passed on as
an exception (as the SDK does, so a server that writes one stray log line keeps its
session, as in Claude Code) and its first bytes are kept in
:attr:`StdioReport.garbage`, so the error the host finally sees names them.

The process handling is the SDK's: a new session (its own process group), env =
the SDK's safe defaults + the given variables, and on close stdin closed, a grace
period, then SIGTERM and SIGKILL to the whole group
(``mcp.os.posix.utilities.terminate_posix_process_tree``) — here also when the
server itself exited in the grace period, so no process it started outlives it
(the SDK leaves those running).
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio

from wskit.values import Value

__all__ = ["StdioReport", "bounded_stdio_client", "first_bytes"]

#: Seconds a server may take to exit after its stdin closes (the SDK's value).
EXIT_GRACE = 2.0
#: Seconds between SIGTERM and SIGKILL to its process group.
KILL_GRACE = 2.0
#: Bytes of a bad message quoted in an error.
SHOWN_BYTES = 64


def first_bytes(data: bytes, limit: int = SHOWN_BYTES) -> str:
    """The first ``limit`` bytes of ``data`` as a Python bytes literal (every control
    character and non-ASCII byte escaped, so it is safe on a terminal), ``…`` when cut."""
    shown = repr(bytes(data[:limit]))
    return shown + ("…" if len(data) > limit else "")


class StdioReport(Value):
    """What the transport saw that the session cannot say.

    :ivar violation: why the transport ended the connection (an over-long message).
    :ivar garbage: the first bytes of the last line that was not JSON-RPC.
    :ivar garbage_lines: how many such lines there were.
    """

    violation: str | None = None
    garbage: bytes | None = None
    garbage_lines: int = 0

    def describe(self) -> str | None:
        """One line for an error message, or None when nothing was seen."""
        if self.violation:
            return self.violation
        if self.garbage is not None:
            more = f" ({self.garbage_lines} such lines)" if self.garbage_lines > 1 else ""
            return f"it wrote something that is not JSON-RPC{more}: {first_bytes(self.garbage)}"
        return None


@asynccontextmanager
async def bounded_stdio_client(command: str, args: list[str], env: dict[str, str], cwd: str | None,
                               errlog: TextIO = sys.stderr, *, max_message_bytes: int = 16 << 20,
                               report: StdioReport | None = None) -> AsyncGenerator[tuple[Any, Any], None]:
    """Start ``command args`` (a new process group) and yield the SDK's
    ``(read_stream, write_stream)`` pair speaking newline-delimited JSON-RPC to it.

    :param env: variables over the SDK's safe defaults (``PATH``, ``HOME``…).
    :param max_message_bytes: the longest line accepted from the server.
    :param report: filled with what was refused (see :class:`StdioReport`).
    :raises OSError: the command could not be started.
    """
    import mcp_types as types
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    report = report if report is not None else StdioReport()
    process = await anyio.open_process([command, *args], env=get_default_environment() | env, stderr=errlog,
                                       cwd=cwd, start_new_session=True)
    read_writer, read_stream = anyio.create_memory_object_stream(0)
    write_stream, write_reader = anyio.create_memory_object_stream(0)

    async def deliver(line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:
            report.garbage, report.garbage_lines = bytes(line[:SHOWN_BYTES + 1]), report.garbage_lines + 1
            await read_writer.send(ValueError(f"not a JSON-RPC message: {first_bytes(line)}"))
            return
        await read_writer.send(SessionMessage(message))

    async def stdout_reader() -> None:
        buf = bytearray()
        try:
            async with read_writer:
                while True:
                    try:
                        chunk = await process.stdout.receive(65536)
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return
                    start = 0
                    while True:
                        nl = chunk.find(b"\n", start)
                        end = len(chunk) if nl < 0 else nl
                        if len(buf) + end - start > max_message_bytes:
                            head = bytes(buf[:SHOWN_BYTES + 1]) or chunk[start:start + SHOWN_BYTES + 1]
                            report.violation = (f"it sent a message over the {max_message_bytes}-byte bound "
                                                f"(starting {first_bytes(head)}); the connection was closed")
                            return
                        if nl < 0:
                            buf += chunk[start:]
                            break
                        line = bytes(buf) + chunk[start:nl] if buf else chunk[start:nl]
                        buf.clear()
                        start = nl + 1
                        await deliver(line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the session is gone

    async def stdin_writer() -> None:
        try:
            async with write_reader:
                async for session_message in write_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_writer.aclose()

    async def stop() -> None:
        from mcp.os.posix.utilities import terminate_posix_process_tree

        read_stream.close()
        write_stream.close()
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
        with anyio.move_on_after(EXIT_GRACE):
            while process.returncode is None:
                await anyio.sleep(0.01)
        # the whole group, even when the server itself exited: nothing it started outlives it
        await terminate_posix_process_tree(process, KILL_GRACE)
        with anyio.move_on_after(KILL_GRACE):
            while process.returncode is None:
                await anyio.sleep(0.01)
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()
        transport = getattr(getattr(process, "_process", None), "_transport", None)
        if callable(getattr(transport, "close", None)):
            with suppress(PermissionError):
                transport.close()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await stop()
            tg.cancel_scope.cancel()
