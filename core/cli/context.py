"""The object every ``wsctl`` command receives: global options and lazy services."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit.cli.plain import RUN, echo, usage_error

if TYPE_CHECKING:
    import click

__all__ = [
    "broad_folder", "colour_on", "complete_names", "progress", "global_args", "json_option", "json_text", "paint", "with_global_args", "kind_diag_dicts", "path_argument", "plugin_dir_failures",
    "escaped_output", "EscapingStream", "file_text", "line_text", "print_diag_dicts", "read_user_file", "safe_text", "shorten",
    "table", "unescaped", "WsctlContext"
]


class WsctlContext:
    """Global options of one ``wsctl`` run and lazily built services.

    :ivar home: the user home (``--home``, ``WSKIT_HOME``, else ``~``).
    :ivar host: host profile name. :ivar json: JSON output requested.
    """

    def __init__(self, home: str | None, host: str, json: bool, pm=None) -> None:
        self.home = Path(home).expanduser().absolute() if home else Path.home()
        self.host = host
        #: where :attr:`host` came from, as error messages name it (``--host`` or ``WSKIT_HOST``)
        self.host_from = "--host"
        self.json = json
        self.pm = pm
        self._profile = None
        self._cache = None
        #: content plugin folders from ``--plugin-dir`` (put in ``profile.settings["plugin_dirs"]``)
        self.plugin_dirs: tuple[str, ...] = ()
        #: the managed settings file (``--managed-settings``; ``profile.settings["managed_settings"]``)
        self.managed_settings: str | None = None
        #: failures of ``--plugin-dir`` folders not reported yet (see :meth:`listing_diagnostics`)
        self._plugin_dir_failures: list = []
        self._flush_registered = False
        #: the workspace :meth:`resolve` loaded last (named in "unknown name" errors)
        self.last_workspace = None
        #: the cache learns of changes from file notifications (``wsctl serve``; see
        #: :class:`~wskit.cache.WorkspaceCache`'s ``watch``): set before the first resolve
        self.watch = False

    def plugin_manager(self):
        """The plugin manager (built on first use)."""
        if self.pm is None:
            # the lazy group may have built one already to look the sub-command up:
            # reuse it rather than building (and scanning entry points) twice
            ctx = _click_context()
            self.pm = getattr(ctx.find_root().command, "_pm", None) if ctx is not None else None
        if self.pm is None:
            from wskit.plugin.manager import make_plugin_manager

            # the entry points are kept in the state folder of --home (read once per environment)
            self.pm = make_plugin_manager(state_dir=self.home / ".wskit")
        return self.pm

    def use_host(self, host: str) -> None:
        """Switch this run to the host profile ``host`` (``wsctl session verify`` uses the
        host a state was recorded under); the profile and cache built so far are dropped."""
        if host != self.host:
            self.host = host
            self._profile = None
            self._cache = None

    def check_host(self) -> None:
        """Refuse a ``--host`` (or ``WSKIT_HOST``) that names no host profile: the
        reproduced hosts (``claude``, ``codex``…), ``wskit`` and the profiles plugins
        contribute (``wskit_host_profiles``). A typo would otherwise load wskit's own
        union under a made-up name, silently. (From Python, ``HostProfile(name=…)``
        takes any valid name: an integrator's own host.)

        :raises click.UsageError: ``--host: unknown host 'claud'; known hosts: …`` (exit
            status 2; ``WSKIT_HOST: …`` when the name came from that variable), or the name
            is not a valid host name.
        """
        from wskit.host import HOST_PRESETS, HostProfile

        if self.host in HOST_PRESETS or self.host == "wskit":
            return
        try:
            HostProfile(name=self.host)
        except ValueError:
            self.profile()  # raises the validator's words, as for every other use
            raise
        known, _ = self.hooks().host_profiles()
        names = sorted({*HOST_PRESETS, "wskit", *(p.name for p in known)})
        if self.host not in names:
            from wskit.errors import nearest

            near = nearest(self.host, names)
            hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
            raise usage_error(f"{self.host_from}: unknown host {self.host!r}{hint}; known hosts: {', '.join(names)} (a host "
                              "of your own is known once a plugin contributes its profile: wskit_host_profiles)")

    def hooks(self):
        """The :class:`~wskit.plugin.facade.WskitHooks` facade."""
        from wskit.plugin.facade import WskitHooks

        return WskitHooks(self.plugin_manager())

    def profile(self):
        """The host profile named by ``--host``, bound to ``--home``.

        A profile contributed by a plugin (``wskit_host_profiles``) is used
        when one has that name; otherwise ``HostProfile(name=host)``.
        """
        if self._profile is None:
            from wskit.host import HostProfile

            known, _ = self.hooks().host_profiles()
            match = next((p for p in known if p.name == self.host), None)
            try:
                base = match or HostProfile(name=self.host)
            except ValueError as err:
                # the validator's own words, not pydantic's report around them
                errors = getattr(err, "errors", None)
                why = errors()[0].get("msg", str(err)).removeprefix("Value error, ") if callable(errors) else str(err)
                raise usage_error(f"{self.host_from}: {why}") from None
            self._profile = base.with_home(self.home)
            if self.managed_settings:
                settings = {**self._profile.settings, "managed_settings": os.path.abspath(self.managed_settings)}
                self._profile = self._profile.model_copy(update={"settings": settings})
            if self.plugin_dirs:
                # normalised: a missing ../x is named /abs/x, not /abs/cwd/../x
                dirs = [os.path.abspath(Path(d).expanduser()) for d in self.plugin_dirs]
                settings = {**self._profile.settings, "plugin_dirs": dirs}
                self._profile = self._profile.model_copy(update={"settings": settings})
        return self._profile

    def cache(self):
        """A :class:`~wskit.cache.WorkspaceCache` for this run."""
        if self._cache is None:
            from wskit.cache import WorkspaceCache

            self._cache = WorkspaceCache(self.profile(), self.plugin_manager(), watch=self.watch)
        return self._cache

    def resolve(self, path: str | os.PathLike[str]):
        """Load the workspace holding ``path``.

        When a ``--plugin-dir`` folder failed (missing, not a plugin, a bad
        manifest, an unmet dependency…), its diagnostics are kept until the command
        reports them (:meth:`listing_diagnostics`); those it did not report are
        printed on stderr when the command ends, so no command that loads the
        workspace is silent about a plugin the user named.
        """
        with progress(f"loading the workspace of {path}"):  # the first walk of a huge tree
            ws = self.cache().resolve(path)
        from wskit.util.gcpause import loaded

        loaded()  # a wsctl run: the loaded workspace lives until exit (frozen)
        self.note_plugin_dir_failures(ws)
        self.last_workspace = ws
        return ws

    def note_plugin_dir_failures(self, ws) -> None:
        """Keep the failures of the explicit plugin folders (``--plugin-dir``, or
        ``plugin_dirs`` of the host profile's settings) in ``ws`` to be reported
        (:func:`plugin_dir_failures`); called by :meth:`resolve`, and by commands
        that resolve a workspace another way (``wsctl rules`` builds its own cache)."""
        dirs = self.profile().settings.get("plugin_dirs") or ()
        if not dirs:
            return
        ctx = _click_context()
        if not self._flush_registered and (ctx is not None or RUN.active):
            self._flush_registered = True
            if ctx is not None:
                ctx.call_on_close(self._flush_plugin_dir_failures)
            else:  # the per-turn dispatcher's run (wskit.cli.fast)
                RUN.on_close.append(self._flush_plugin_dir_failures)
        for d in plugin_dir_failures(ws, dirs):
            if d not in self._plugin_dir_failures:
                self._plugin_dir_failures.append(d)

    def listing_diagnostics(self, ws, diags) -> list:
        """``diags`` (:class:`~wskit.models.Diagnostic` objects a command reports for
        ``ws``) followed by the failures of ``--plugin-dir`` folders not among them;
        those count as reported (nothing more on stderr)."""
        out = list(diags)
        out += [d for d in self._plugin_dir_failures if d not in out]
        self._plugin_dir_failures = []
        return out

    def _flush_plugin_dir_failures(self) -> None:
        pending, self._plugin_dir_failures = self._plugin_dir_failures, []
        for d in pending:
            echo(safe_text(f"wsctl: {d.level} {d.code} {d.path}: {d.message}"), err=True)

    def emit(self, data: Any, human: Callable[[], None]) -> None:
        """Print ``data`` as one JSON document when ``--json``, else call ``human``."""
        if self.json:
            echo(json_text(data))
        else:
            human()


def json_text(data: Any) -> str:
    """``data`` as the JSON document of ``--json`` (indent 2, ``str()`` of other
    objects). A string holding a byte that is not UTF-8 (a lone surrogate
    U+DC80–U+DCFF, how POSIX file names reach Python) is written as
    :func:`wskit.fs.names.shown_path` text (``\\xNN``): a ``"\\udcff"``
    escape is a lone surrogate that strict JSON parsers refuse. Such strings
    are only looked for when the first text holds one (cheap otherwise)."""
    from wskit.util.jsonindent import dumps_indent2  # lazily: keeps `wsctl --version` to click alone

    text = dumps_indent2(data, default=str)
    if "\\udc" not in text:  # ensure_ascii writes every lone surrogate as \udcNN
        return text
    return dumps_indent2(_shown(data), default=lambda o: _shown(str(o)))


def _shown(value: Any) -> Any:
    from wskit.fs.names import shown_path

    if isinstance(value, str):
        return value if value.isascii() else shown_path(value)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown(v) for v in value]
    return value


#: codes of discovery that concern one plugin folder (its path is the diagnostic's path)
_PLUGIN_DIR_CODES = ("plugin-failed", "plugin-dir-missing", "plugin-shadowed")


def plugin_dir_failures(ws, dirs) -> list:
    """The diagnostics of ``ws`` saying that one of the explicit plugin folders
    ``dirs`` (``--plugin-dir``) failed: missing (``plugin-dir-missing``), not loaded
    (``plugin-failed``: no manifest and no marketplace entry, a bad manifest, an unmet
    dependency…) or given twice (``plugin-shadowed`` warning). Info lines are left out.

    :param ws: a resolved workspace (its ``diagnostics`` are read).
    :param dirs: the explicit folders (absolute or relative to the current folder).
    :returns: :class:`~wskit.models.Diagnostic` objects, in the workspace's order.
    """
    wanted = {os.path.realpath(str(d)) for d in dirs}
    if not wanted:
        return []
    return [d for d in ws.diagnostics
            if d.code in _PLUGIN_DIR_CODES and d.level != "info" and d.path
            and os.path.realpath(d.path) in wanted]


def json_option(f):
    """Add a per-command ``--json`` flag equivalent to the global one."""
    import click

    def _cb(ctx: click.Context, _param, value: bool):
        if value:
            ctx.ensure_object(WsctlContext).json = True
        return value

    return click.option("--json", "json_flag", is_flag=True, expose_value=False, callback=_cb,
                        is_eager=False, help="Print one JSON document on stdout.")(f)


_CONTROL = None


def safe_text(value: object) -> str:
    """``value`` as text fit for a terminal: C0 controls (but tab), DEL and C1
    controls are shown as ``\\xNN`` escapes, so text from files (a skill's
    description, a rule path) can never move the cursor, set the clipboard
    (OSC 52) or otherwise drive the terminal; bidirectional overrides and
    invisible characters (U+200B-U+200F, U+202A-U+202E, U+2060-U+206F, U+FEFF)
    as ``\\uNNNN``, so they cannot reorder or hide what is shown; a byte of a
    file name that is not UTF-8 (a lone surrogate U+DC80–U+DCFF) as ``\\xNN``,
    the byte itself (printing it raw would write an invalid UTF-8 sequence). A
    ``'wsctl …'`` hint in it gets the global options typed (:func:`with_global_args`)."""
    return file_text(with_global_args(str(value)))


def file_text(value: object) -> str:
    """:func:`safe_text` without the hint rewriting: for text taken from files (a skill's
    body, a description, a table cell), shown exactly but for the escapes — a
    ``'wsctl …'`` written in a file is the author's, not a hint of this run."""
    global _CONTROL
    if _CONTROL is None:
        import re

        _CONTROL = re.compile(
            "[\x00-\x08\x0a-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\udc80-\udcff]")
    return _CONTROL.sub(_escape, str(value))


def _escape(m) -> str:
    c = ord(m.group())
    if c < 0x100:
        return f"\\x{c:02x}"
    if 0xDC80 <= c <= 0xDCFF:  # surrogateescape: the byte c - 0xDC00
        return f"\\x{c - 0xDC00:02x}"
    return f"\\u{c:04x}"


#: the colour sequences :func:`paint` writes (click.style: red, yellow, bold, reset); the
#: only escape sequences the output guard lets through
_PAINT = ("\x1b[31m", "\x1b[33m", "\x1b[1m", "\x1b[0m")
_LINES = None


def line_text(text: str) -> str:
    """:func:`file_text` for multi-line output: line feeds and tabs kept, and the colour
    sequences of :func:`paint`; every other control, invisible or bidirectional
    character escaped."""
    global _LINES
    if _LINES is None:
        import re

        _LINES = re.compile("(" + "|".join(re.escape(p) for p in _PAINT) + ")|"
                            "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
                            "\ufeff\ud800-\udfff]")
    return _LINES.sub(lambda m: m.group(1) or _escape(m), text)


class EscapingStream:
    """A text stream that writes what it is given through :func:`line_text`: the one
    guard between every human-readable line of ``wsctl`` and the terminal. A folder
    name holding ``ESC ] 0 ; … BEL`` (set the title), ``ESC [ 2 J`` (clear the screen)
    or OSC 52 (set the clipboard) reaches the terminal as ``\x1b]0;…\x07``, whichever
    command printed it and whether or not that line went through :func:`safe_text`.

    :param stream: the stream wrapped (``sys.stdout`` or ``sys.stderr``).
    :param passthrough: a callable saying when to write unchanged (``--json`` on stdout:
        the JSON document is ASCII with its own escapes, and must stay valid JSON).
    Binary writes (``.buffer``, used by protocol transports such as ``serve``'s stdio)
    are not text for people and go through unchanged.
    """

    #: what :func:`wskit.cli.plain.echo` asks to leave escape sequences to this guard (plain
    #: cannot import this module: it is imported by it)
    escapes_control = True

    def __init__(self, stream: Any, passthrough: Callable[[], bool] | None = None) -> None:
        self.unescaped = stream
        self._passthrough = passthrough

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes text vs binary with write(b"")
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not (self._passthrough is not None and self._passthrough()):
            text = line_text(text)
        self.unescaped.write(text)
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self):
        enc = (getattr(self.unescaped, "encoding", None) or "").lower().replace("-", "")
        if enc in ("ascii", "usascii", "ansix3.41968", "646"):
            # click would write text to a new stream over this buffer, around the guard
            raise AttributeError("buffer")
        return self.unescaped.buffer

    def __getattr__(self, name: str) -> Any:  # encoding, errors, flush, isatty, fileno…
        return getattr(self.unescaped, name)


def unescaped(stream: Any) -> Any:
    """The stream under an :class:`EscapingStream` (``stream`` itself otherwise): for
    the few writes that are terminal control by design (the progress line's ``\r``)."""
    return getattr(stream, "unescaped", stream) if isinstance(stream, EscapingStream) else stream


class escaped_output:
    """``with escaped_output():`` — ``sys.stdout`` and ``sys.stderr`` are
    :class:`EscapingStream` inside (stdout unchanged while ``--json`` is on); nested
    uses keep the outer guard. ``wsctl`` runs every command inside one.

    Inside, click's own ANSI stripping is off for the current context (``ctx.color``): on a
    pipe it would delete a CSI sequence of a name (``\x1b[2J``) before the guard sees it, so
    ``trust grant`` printed another folder's name; the guard escapes it instead, and
    :func:`paint` colours only where :func:`colour_on`, so no colour reaches a pipe."""

    def __enter__(self) -> "escaped_output":
        import sys

        click = sys.modules.get("click")  # not imported: no click context (the click-free dispatcher)
        ctx = click.get_current_context(silent=True) if click is not None else None
        if ctx is not None:
            ctx.color = True
        self._saved = None
        if not isinstance(sys.stdout, EscapingStream):
            self._saved = (sys.stdout, sys.stderr)
            sys.stdout = EscapingStream(sys.stdout, _json_mode)
            sys.stderr = EscapingStream(sys.stderr)
        return self

    def __exit__(self, *exc) -> None:
        import sys

        if self._saved is not None:
            sys.stdout, sys.stderr = self._saved


def _json_mode() -> bool:
    ctx = _click_context()
    obj = ctx.find_object(WsctlContext) if ctx is not None else RUN.obj
    return bool(obj is not None and obj.json)


class progress:
    """``with progress("installing x"):`` — on a terminal, a line on stderr saying what a
    long operation is doing, with the elapsed seconds, shown only once it has taken
    longer than ``delay`` seconds and erased when it ends; nothing at all with ``--json``
    or when stderr is not a terminal (pipes, files, CI logs stay exactly as before).

    :param message: what is being done (one line). :param delay: seconds before it shows.
    """

    def __init__(self, message: str, delay: float = 0.4) -> None:
        self.message = message
        self.delay = delay
        self._timer = None
        self._shown = False
        self._stop = None

    def __enter__(self) -> "progress":
        if not colour_on(err=True, colour=False):
            return self
        import sys
        import threading
        import time

        self._stop = threading.Event()
        start = time.monotonic()

        def tick() -> None:
            while not self._stop.wait(0 if not self._shown else 0.5):
                self._shown = True
                echo(f"\r{safe_text(self.message)}… {time.monotonic() - start:.0f} s", nl=False,
                     file=unescaped(sys.stderr))

        def later() -> None:
            if not self._stop.is_set():
                tick()

        self._timer = threading.Timer(self.delay, later)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._timer is None:
            return
        self._stop.set()
        self._timer.cancel()
        self._timer.join(1)  # the line is erased only after the last tick was written
        if self._shown:
            import sys

            echo("\r\033[K", nl=False, file=unescaped(sys.stderr))


def complete_names(kind: str):
    """A click ``shell_complete`` callback offering the names of ``kind`` (``skill``,
    ``command``, ``agent``, ``style``…) in the workspace of the current folder, bare
    names first then qualified ids, under the ``--home``/``--host`` already typed.
    Completion never fails: any error offers nothing."""

    def complete(ctx: click.Context, _param, incomplete: str) -> list:
        try:
            root = ctx.find_root().params
            obj = WsctlContext(home=root.get("home") or os.environ.get("WSKIT_HOME"),
                               host=root.get("host") or os.environ.get("WSKIT_HOST") or "wskit", json=False)
            ws = obj.cache().resolve(".")
            resources = list(ws.registry(kind).active())
            names = [r.name for r in resources if kind != "style"] + [r.id for r in resources]
        except Exception:
            return []
        seen: list[str] = []
        for n in names:
            if n.startswith(incomplete) and n not in seen:
                seen.append(n)
        return seen

    return complete


#: the global options a hint repeats: (parameter name, flag)
_GLOBAL_OPTIONS = (("home", "--home"), ("host", "--host"), ("managed_settings", "--managed-settings"),
                   ("plugin_dirs", "--plugin-dir"))


def global_args() -> str:
    """The global options the user typed on this command line (``--home``, ``--host``,
    ``--managed-settings``, each ``--plugin-dir``), quoted for a shell, so a hint naming
    another command can keep them; ``""`` outside a ``wsctl`` run or when none was typed
    (environment variables carry over by themselves)."""
    import shlex

    ctx = _click_context()
    if ctx is None and not RUN.active:
        return ""
    root = ctx.find_root() if ctx is not None else None
    out = []
    for name, flag in _GLOBAL_OPTIONS:
        if root is None:  # the per-turn dispatcher's run: what it parsed off the command line
            value = RUN.typed.get(name)
        else:
            import click

            value = root.params.get(name)
            if root.get_parameter_source(name) is not click.core.ParameterSource.COMMANDLINE:
                value = None
        if value in (None, ()):
            continue
        for v in value if isinstance(value, tuple) else (value,):
            out.append(f"{flag} {shlex.quote(str(v))}")
    return " ".join(out)


def with_global_args(text: str) -> str:
    """``text`` with every ``'wsctl …'`` (or ```wsctl …```) hint given the global options
    of this run (:func:`global_args`): ``'wsctl trust grant P'`` becomes
    ``'wsctl --home H trust grant P'`` after ``wsctl --home H …``. A hint that already
    starts with a global option is left alone, so applying it twice changes nothing.
    :func:`safe_text`, which every human output line goes through, applies it: this is
    the one place hints get the options."""
    if "wsctl " not in text:
        return text
    extra = global_args()
    if not extra:
        return text
    import re

    return re.sub(r"(['`]wsctl) (?!--(?:home|host|managed-settings|plugin-dir)[ =])",
                  lambda m: f"{m.group(1)} {extra} ", text)


def colour_on(err: bool = False, colour: bool = True) -> bool:
    """Whether to colour output: the stream is a terminal, ``NO_COLOR`` is unset or empty
    (no-color.org) and ``--json`` was not asked for.

    :param colour: False asks only whether the stream is an interactive terminal (for
        progress lines, which ``NO_COLOR`` does not switch off)."""
    if colour and os.environ.get("NO_COLOR"):
        return False
    ctx = _click_context()
    obj = ctx.find_object(WsctlContext) if ctx is not None else RUN.obj
    if obj is not None and obj.json:
        return False
    import sys

    stream = sys.stderr if err else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


_LEVEL_COLOUR = {"error": "red", "warning": "yellow"}


def paint(text: str, level: str, err: bool = False) -> str:
    """``text`` coloured for ``level`` (``error`` red, ``warning`` yellow) when
    :func:`colour_on`, else unchanged."""
    colour = _LEVEL_COLOUR.get(level)
    if not (colour and colour_on(err)):
        return text
    import click

    return click.style(text, fg=colour, bold=level == "error")


def print_diag_dicts(diags: list[dict]) -> None:
    """Print JSON-form diagnostics (``level``, ``code``, ``path``, ``line``, ``message``)
    under a ``diagnostics (N):`` heading, each line through :func:`safe_text`; nothing
    when there are none."""
    if not diags:
        return
    echo(f"\ndiagnostics ({len(diags)}):")
    for d in diags:
        where = (d.get("path") or "") + (f":{d['line']}" if d.get("line") else "")
        level = paint(f"{d['level']:<7}", d["level"])
        echo(f"  {level} " + safe_text(with_global_args(f"{d['code']:<24} {where} {d['message']}".rstrip())))


def shorten(text: object, width: int = 60) -> str:
    """``text`` on one line (runs of white space made one space), cut to ``width``
    characters with a final "…" when longer: how every ``wsctl`` listing cuts descriptions."""
    one = " ".join(str(text or "").split())
    return one if len(one) <= width else one[: width - 1].rstrip() + "…"


def table(rows: list[list[str]], headers: list[str]) -> str:
    """A plain, aligned text table (cells pass through :func:`file_text`: they are names,
    paths and descriptions from files)."""
    rows = [[file_text(c) for c in r] for r in rows]
    cols = [headers, *rows]
    widths = [max(len(str(r[i])) for r in cols) for i in range(len(headers))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


#: the optional ``PATH`` argument (default ``.``, must exist) of the commands that take one
path_argument: Callable[[Callable], Callable]


def __getattr__(name: str):
    # ``path_argument`` is a click decorator: made on first use, so importing this module
    # (a command body does) does not import click
    if name == "path_argument":
        import click

        value = click.argument(
            "path", required=False, default=".", type=click.Path(exists=True, file_okay=True, dir_okay=True))
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _click_context():
    """The current click context, None outside one (or when click was never imported)."""
    import sys

    click = sys.modules.get("click")
    return click.get_current_context(silent=True) if click is not None else None


def read_user_file(path: str) -> str:
    """Read a file named on the command line through safe file access (text).

    :raises WskitError: refused or unreadable (with the safe-fs code)."""
    from wskit.errors import WskitError
    from wskit.fs import SafeFsError, decode_text, read_bytes

    p = Path(path).absolute()
    try:
        return decode_text(read_bytes(p.parent, p.name).raw, str(p))
    except SafeFsError as err:
        raise WskitError(str(err)) from None


#: standard input as read once in this process: (the stream, its text); a command that
#: the per-turn dispatcher hands to click after reading it reads the same text again
_STDIN: list = []


def read_user_input(path: str) -> str:
    """:func:`read_user_file`, or standard input for ``-``: read to its end, at most
    :func:`wskit.fs.limits.read_limit` bytes (8 MiB unless set; more is refused, not
    cut), decoded as a file is (UTF-8, one BOM stripped). Read once per process.

    :raises WskitError: over the bound, not UTF-8, or standard input is closed."""
    import sys

    from wskit.errors import WskitError
    from wskit.fs import SafeFsError, decode_text
    from wskit.fs.limits import read_limit

    if path != "-":
        return read_user_file(path)
    if _STDIN and _STDIN[0] is sys.stdin:
        return _STDIN[1]
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise WskitError("standard input: not open")
    limit = read_limit()
    data = bytearray()
    try:
        while len(data) <= limit:
            chunk = stream.read(min(1 << 16, limit + 1 - len(data)))
            if not chunk:
                break
            data += chunk
    except OSError as err:
        raise WskitError(f"standard input: {err.strerror or err}") from None
    if len(data) > limit:
        raise WskitError(f"standard input: over the limit of {limit} bytes (not read further)")
    try:
        text = decode_text(bytes(data), "standard input")
    except SafeFsError as err:
        raise WskitError(str(err)) from None
    _STDIN[:] = [sys.stdin, text]
    return text


def kind_diag_dicts(obj: WsctlContext, ws, kind_codes: tuple[str, ...]) -> list[dict[str, Any]]:
    """The JSON form of ``ws``'s diagnostics with one of ``kind_codes``, and the
    failures of ``--plugin-dir`` folders (:meth:`WsctlContext.listing_diagnostics`)."""
    return [d.to_json(ws.source_root)
            for d in obj.listing_diagnostics(ws, (d for d in ws.diagnostics if d.code.startswith(kind_codes)))]


def broad_folder(path: str, home: "str | os.PathLike[str]") -> str | None:
    """What makes ``path`` too broad to trust or attach as one project: ``"the file-system
    root"``, ``"your home folder"`` (``home`` — the ``--home`` — or the real one) or ``"a
    folder holding your home folder"``; None when it is none of those. Paths are compared
    resolved (links followed). ``trust grant`` and ``workspace attach`` warn with it."""
    import os
    from pathlib import Path

    real = os.path.realpath(path)
    homes = {os.path.realpath(str(h)) for h in (home, Path.home())}
    if os.path.dirname(real) == real:
        return "the file-system root"
    if real in homes:
        return "your home folder"
    if any(os.path.commonpath([real, h]) == real for h in homes):
        return "a folder holding your home folder"
    return None
