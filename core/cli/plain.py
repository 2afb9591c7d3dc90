"""The click-free part of a ``wsctl`` run: output, exit statuses and error lines.

A command body (the function a click command calls with plain arguments) writes
through :func:`echo`, ends with a status through :class:`ExitStatus` and reports a
usage error through :func:`usage_error` / :func:`bad_parameter`, so that the same body
runs under click (:func:`wskit.cli.main`) and under the per-turn dispatcher
(:mod:`wskit.cli.fast`), which answers the forms a host calls once per turn without
importing click. What a run typed on its command line (for the ``'wsctl …'`` hints)
and the callbacks to run when the command ends live in :data:`RUN` while the
dispatcher runs a command; under click they come from click's context.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class PlainRun:
    """What the dispatcher's run knows that click's context knows under click.

    :ivar active: a dispatcher run is under way.
    :ivar typed: the global options typed on the command line, ``{parameter name: value}``
        (``plugin_dirs``: a tuple), in the names of :data:`wskit.cli.context._GLOBAL_OPTIONS`.
    :ivar obj: the run's :class:`~wskit.cli.context.WsctlContext`.
    :ivar on_close: called when the command ends, before an error is printed (as
        ``click.Context.call_on_close``).
    :ivar written: something was written through :func:`echo`.
    """

    __slots__ = ("active", "typed", "obj", "on_close", "written")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Back to "no dispatcher run"."""
        self.active = False
        self.typed: dict[str, Any] = {}
        self.obj: Any = None
        self.on_close: list[Callable[[], None]] = []
        self.written = False


#: the dispatcher's run (inactive outside one)
RUN = PlainRun()


class ExitStatus(Exception):
    """End the command with exit status ``code`` (what ``click.Context.exit(code)`` does)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def echo(message: object = "", err: bool = False, nl: bool = True, file: Any = None) -> None:
    """Write ``message`` (and a newline) to stdout, or stderr with ``err``, or ``file``, and
    flush: :func:`click.echo` for text, without importing click (click is imported only to
    strip an ANSI escape from text going to something that is not a terminal, as click does)."""
    stream = file if file is not None else sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = message if isinstance(message, str) else str(message)
    if nl:
        out += "\n"
    if not out:
        stream.flush()
        return
    if "\x1b" in out and not _guarded(stream):
        import click

        click.echo(out, err=err, nl=False, file=file)
        RUN.written = True
        return
    stream.write(out)
    stream.flush()
    RUN.written = True


def _guarded(stream: Any) -> bool:
    """``stream`` is behind the output guard (:class:`wskit.cli.context.EscapingStream`), which
    escapes an escape sequence of a name where click would delete it off a terminal."""
    return getattr(stream, "escapes_control", False) is True


def usage_error(message: str):
    """A :class:`click.UsageError` (exit status 2, the command's usage line first) to raise."""
    import click

    return click.UsageError(message)


def bad_parameter(message: str, param_hint: str | None = None):
    """A :class:`click.BadParameter` (``Invalid value for PARAM: …``, exit status 2) to raise."""
    import click

    return click.BadParameter(message, param_hint=param_hint)
