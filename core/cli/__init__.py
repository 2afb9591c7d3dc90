"""``wsctl``: the command that manages wskit workspaces (design §7).

The CLI is built by :func:`make_cli` (never at import time). The plugin
manager is built lazily, the first time a sub-command is looked up, so
``wsctl --version`` imports nothing but click. Plugins add sub-commands
through ``wskit_register_commands(cli)``.

Global options: ``--home DIR`` (env ``WSKIT_HOME``), ``--host NAME`` (env
``WSKIT_HOST``), ``--json``. Exit status 0 on success, 1 when the operation
failed (``error: …`` on stderr, one line: an OS error names its file, an
argument that is not UTF-8 is named, a run of more than 300 characters is
shortened), 2 on usage errors. No failure prints a traceback (``internal
error: …`` is the last resort; ``WSKIT_TRACEBACK=1`` shows it).
"""

from __future__ import annotations

import gc
import sys

import click

from wskit import __version__

__all__ = ["LazyGroup", "main", "make_cli", "MAX_SHOWN_RUN", "paint_error_line", "shorten_runs", "shown_message", "STDOUT_CLOSED_STATUS", "StdoutClosed", "WsctlError"]


#: (name, "module:attr", help): imported when used (:mod:`wskit.cli.lazy`)
_CORE_COMMANDS = (
    ("inspect", "wskit.cli.inspect:inspect_cmd",
     "Show the workspace holding PATH: binding, trust, resources, diagnostics."),
    ("plugins", "wskit.cli.plugins:plugins_group",
     "List Python plugins (built-ins and entry points of group 'wskit') and the\n"
     "content plugins (bundles) of the workspace at --path."),
    ("snapshot", "wskit.cli.session:snapshot_cmd",
     "Snapshot the workspace holding PATH into a session state file (JSON)."),
)


class WsctlError(click.ClickException):
    """An operation failed: printed as ``error: <message>`` on stderr, exit status 1."""

    exit_code = 1

    def show(self, file=None) -> None:  # noqa: D102
        click.echo(paint_error_line(self.format_message()), err=True, file=file)


def shown_message(message: str) -> str:
    """An error message as the terminal may show it: hints completed
    (:func:`~wskit.cli.context.with_global_args`), every byte of a name that is not UTF-8
    as ``\\xNN``, every control character (an escape sequence in a folder name) escaped
    but line feeds, and runs of 300+ characters shortened."""
    from wskit.cli.context import line_text, with_global_args
    from wskit.fs.names import shown_path

    return shorten_runs(line_text(shown_path(with_global_args(message))))


def paint_error_line(message: str) -> str:
    """``error: <message>`` (``error:`` coloured on a terminal), the message through :func:`shown_message`."""
    from wskit.cli.context import paint

    return paint("error:", "error", err=True) + f" {shown_message(message)}"


#: Longest run of non-blank characters an error line shows whole.
MAX_SHOWN_RUN = 300


def shorten_runs(text: str, limit: int = MAX_SHOWN_RUN) -> str:
    """``text`` with every run of more than ``limit`` non-blank characters (a
    100,000-character name echoed in a message) cut to its head and tail around
    ``…[N characters]…``, so an error stays one readable line."""
    if len(text) <= limit:
        return text
    import re

    def cut(m: re.Match) -> str:
        run = m.group()
        return f"{run[:120]}…[{len(run)} characters]…{run[-40:]}"

    return re.sub(rf"\S{{{limit + 1},}}", cut, text)


def _failure_message(err: BaseException, argv: list[str]) -> str:
    """The one-line message of an error a command let through: an OS error names
    its file (``File name too long``, ``Device or resource busy``); a text that
    cannot be encoded names the argument that is not UTF-8."""
    if isinstance(err, UnicodeError):
        from wskit.fs.names import shown_path, undecodable

        for arg in argv:
            if isinstance(arg, str) and undecodable(arg) is not None:
                return (f"argument {shown_path(arg)!r} is not valid UTF-8 text; "
                        "names, ids and refs must be UTF-8")
        return f"a value is not valid UTF-8 text ({err.reason})"
    if isinstance(err, OSError):
        names = " -> ".join(repr(n) for n in (err.filename, err.filename2) if n is not None)
        why = err.strerror or type(err).__name__
        return f"{names}: {why}" if names else why
    return str(err)


def _escape_message(err: click.ClickException) -> None:
    """Give a click error (printed by click itself, outside the output guard) a message
    the terminal may show (:func:`shown_message`); :class:`WsctlError` does it when shown."""
    if not isinstance(err, WsctlError) and isinstance(err.message, str):
        err.message = shown_message(err.message)


class LazyGroup(click.Group):
    """A group whose plugin commands are registered on first lookup, each imported
    when first needed (:func:`wskit.cli.lazy.add_lazy_command`; ``add_command``
    works as on any group)."""

    def __init__(self, *args, pm=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._pm = pm
        self._loaded = False
        self.registration_diagnostics: list = []
        #: called once, after the first sub-command lookup (see :func:`main`)
        self.after_lookup = None

    def _ensure(self, ctx: click.Context | None) -> None:
        if self._loaded:
            return
        self._loaded = True
        from wskit.cli.lazy import CommandTable, add_lazy_command  # not for `wsctl --version`

        self.commands = CommandTable(self.commands)
        for name, target, help_text in _CORE_COMMANDS:
            add_lazy_command(self, name, target, help_text)
        from wskit.cli.context import WsctlContext

        obj = ctx.find_object(WsctlContext) if ctx is not None else None
        if obj is not None and self._pm is not None:
            obj.pm = self._pm
        pm = obj.plugin_manager() if obj is not None else self._get_pm(ctx)
        from wskit.plugin.facade import WskitHooks

        self.registration_diagnostics = WskitHooks(pm).register_commands(self)

    def _get_pm(self, ctx: click.Context | None = None):
        if self._pm is None:
            from pathlib import Path

            from wskit.plugin.manager import make_plugin_manager

            # the entry points are kept in the state folder of --home (read once per
            # environment); the home is the one WsctlContext will use
            home = (ctx.params.get("home") if ctx is not None else None) or None
            state = (Path(home).expanduser().absolute() if home else Path.home()) / ".wskit"
            self._pm = make_plugin_manager(state_dir=state)
        return self._pm

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Add ``cmd``; when a group of that name exists, the two groups are merged
        (sub-commands of the older one are kept), so several plugins can add
        sub-commands to one group (``hooks list`` from one, ``hooks run`` from another)."""
        name = name or cmd.name
        old = self.commands.get(name) if name else None
        if isinstance(old, click.Group) and isinstance(cmd, click.Group) and old is not cmd:
            from wskit.cli.lazy import own_group

            cmd = own_group(cmd)  # merge into this CLI's copy, not the module-level group
            for sub_name, sub in old.commands.items():
                cmd.commands.setdefault(sub_name, sub)
        super().add_command(cmd, name)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as err:
            _escape_message(err)
            raise

    def invoke(self, ctx: click.Context):
        from wskit.cli.context import escaped_output

        # every line a command prints reaches the terminal through one guard: control
        # characters of names and paths (an escape sequence in a folder name) are escaped
        with escaped_output():
            return self._invoke(ctx)

    def _invoke(self, ctx: click.Context):
        from wskit.errors import WskitError

        argv = [*getattr(ctx, "_protected_args", ()), *ctx.args]  # before click consumes them
        try:
            return super().invoke(ctx)
        except click.ClickException as err:
            _escape_message(err)  # a usage error naming a path given on the command line
            raise
        except BrokenPipeError as err:
            if _stdout_closed():  # the reader went away (`| head`): main() ends quietly
                raise StdoutClosed() from None
            raise WsctlError(_failure_message(err, argv)) from err
        except (WskitError, FileNotFoundError, NotADirectoryError, PermissionError) as err:
            from wskit.cli.context import with_global_args

            # hints are completed here, while the command line's options are still known
            raise WsctlError(with_global_args(str(err) + _searched(ctx, err))) from err
        except (OSError, UnicodeError) as err:
            # a name too long for the file system, a path that is busy, an argument
            # that is not UTF-8 reaching JSON or a store: one error line, not a traceback
            raise WsctlError(_failure_message(err, argv)) from err

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._ensure(ctx)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str):
        self._ensure(ctx)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        try:
            return super().resolve_command(ctx, args)
        finally:
            hook, self.after_lookup = self.after_lookup, None
            if hook is not None:
                hook()

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, as click writes it, with each command not
        imported yet shown by the help it was registered with (nothing imported)."""
        from wskit.cli.lazy import LazySpec

        commands = []
        for name in self.list_commands(ctx):
            spec = dict.get(self.commands, name)
            cmd = spec if isinstance(spec, LazySpec) else self.get_command(ctx, name)
            if cmd is None or (not isinstance(cmd, LazySpec) and cmd.hidden):
                continue
            commands.append((name, cmd))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            rows = [(name, cmd.short_help(limit) if isinstance(cmd, LazySpec) else cmd.get_short_help_str(limit))
                    for name, cmd in commands]
            from gettext import gettext as _  # as click.Group.format_commands

            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


def _searched(ctx: click.Context, err: Exception) -> str:
    """For an unknown or ambiguous resource name: the folder that was searched and
    whether it was trusted (an untrusted project loads none of its own resources)."""
    ws = getattr(ctx.obj, "last_workspace", None)
    if ws is None or not getattr(err, "searched_hint", False):  # errors about a name looked up
        return ""
    root = ws.binding.source_root
    if ws.trust.trusted:
        return f" (searched {root} and the user folders; the project is trusted)"
    return (f" (searched {root}: untrusted, so only user and plugin resources were loaded; "
            f"'wsctl trust grant {root}' loads the project's)")


def make_cli(pm=None) -> click.Group:
    """Build the ``wsctl`` root group.

    :param pm: a plugin manager to use (default: one made on first need with
        :func:`~wskit.plugin.manager.make_plugin_manager`).
    :returns: a fresh :class:`click.Group`.
    """

    @click.group(cls=LazyGroup, pm=pm, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, "--version", prog_name="wsctl", message="%(prog)s %(version)s")
    @click.option("--home", type=click.Path(file_okay=False), envvar="WSKIT_HOME",
                  help="User home to read and write (default: your home). Env: WSKIT_HOME.")
    @click.option("--host", default="wskit", envvar="WSKIT_HOST", show_default=True,
                  help="Host profile name: claude, codex, gemini, opencode, copilot, cursor load what that "
                       "host loads; any other adds .<host>/ folders and <HOST>.md to every convention. "
                       "Env: WSKIT_HOST.")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
    @click.option("--managed-settings", "managed_settings", type=click.Path(dir_okay=False),
                  envvar="WSKIT_MANAGED_SETTINGS",
                  help="Administrator (managed) settings file, applied over every other layer. "
                       "Env: WSKIT_MANAGED_SETTINGS.")
    @click.option("--plugin-dir", "plugin_dirs", multiple=True, type=click.Path(file_okay=False),
                  help="Load the content plugin in DIR (repeatable; always active, never overridden).")
    @click.pass_context
    def cli(ctx: click.Context, home: str | None, host: str, as_json: bool, managed_settings: str | None,
            plugin_dirs: tuple[str, ...]) -> None:
        """Inspect and manage wskit workspaces: resources, trust, plugins, sessions."""
        from wskit.cli.context import WsctlContext  # not for `wsctl --version` (pathlib and the rest)

        # reuse the manager the group built to list its commands (one manager per run)
        ctx.obj = WsctlContext(home=home, host=host, json=as_json, pm=pm if pm is not None else ctx.command._pm)
        for d in plugin_dirs:
            from wskit.fs.names import not_utf8, shown_path

            why = not_utf8(d)
            if why is not None:  # its plugin could not be named in JSON, a ledger or a session file
                raise click.UsageError(f"--plugin-dir {shown_path(d)}: the path {why}")
        ctx.obj.plugin_dirs = tuple(plugin_dirs)
        ctx.obj.managed_settings = managed_settings

    return cli


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run ``wsctl`` and map errors to exit codes.

    :param argv: the arguments; ``None`` (the ``wsctl`` console script) means this
        process's own command line, and then the cyclic garbage collector is
        paused while ``wsctl`` imports its modules and looks the command up, and
        what exists at that point (modules, classes, the plugin manager: objects
        that live until exit) is frozen (:func:`gc.freeze`) before the command
        runs: no collection during start-up walks them, and neither does the one
        at interpreter exit (together ~7 % of the instructions of ``wsctl
        inspect`` on an empty workspace). The command's own objects are collected
        as usual, but the workspace it loads is frozen once loaded
        (:func:`wskit.util.gcpause.loaded`). Callers passing ``argv`` (tests, hosts) are
        left alone.
    """
    pause = argv is None and gc.isenabled()
    if pause:
        gc.disable()
        from wskit.util.gcpause import freeze_loads

        freeze_loads(True)  # the command's loaded workspace is frozen too (gcpause.loaded)
    cli = make_cli()
    if pause:
        cli.after_lookup = _end_startup
    try:
        rc = cli.main(args=argv, prog_name="wsctl", standalone_mode=False)
        if isinstance(rc, int):  # ctx.exit(n) returns n in non-standalone mode
            return rc
    except click.exceptions.Exit as ex:
        return ex.exit_code
    except click.ClickException as ex:
        _escape_message(ex)  # a usage error echoing a 100,000-character value, or an escape sequence
        ex.show()
        return ex.exit_code
    except click.Abort:
        click.echo("Aborted!", err=True)
        return 1
    except StdoutClosed:
        # the reader went away (`wsctl … | head -1`): end quietly with the status a process
        # killed by SIGPIPE has, as git and the coreutils do (click would print nothing
        # but exit 1, which a script cannot tell from a failure)
        return STDOUT_CLOSED_STATUS
    except Exception as ex:
        import os

        from wskit.errors import WskitError

        if isinstance(ex, WskitError):
            # raised outside a command's invocation (listing the commands for --help while
            # a plugin failed to load under WSKIT_STRICT_PLUGINS): the same one-line error
            # as inside one, not a traceback
            WsctlError(str(ex)).show()
            return 1
        if os.environ.get("WSKIT_TRACEBACK"):
            raise
        # the last resort: a failure no command expected is still one error line
        # (WSKIT_TRACEBACK=1 shows the traceback, for a bug report)
        WsctlError(f"internal error: {type(ex).__name__}: {_failure_message(ex, list(argv or sys.argv[1:]))} "
                   "(set WSKIT_TRACEBACK=1 for the traceback)").show()
        return 1
    finally:
        if pause:
            from wskit.util.gcpause import freeze_loads

            freeze_loads(False)
            if not gc.isenabled():
                gc.enable()  # no command was looked up (--version, --help, a usage error)
    return 0


#: exit status when stdout was closed by its reader: 128 + SIGPIPE, what a shell reports
#: for git or ``cat`` cut off by ``| head``
STDOUT_CLOSED_STATUS = 141


class StdoutClosed(Exception):
    """A command's output pipe was closed by its reader (raised by :class:`LazyGroup`
    instead of the ``BrokenPipeError``, which click would turn into exit status 1)."""


def _stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone; if so it is pointed at
    ``/dev/null``, so the interpreter's last flush at exit prints nothing either."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real stream (a test runner's buffer)
        return False
    gone = False
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        gone = True
    except (OSError, ValueError):
        pass
    import select

    if not gone and hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        gone = any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    if gone:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    return gone


def _end_startup() -> None:
    """Freeze the start-up objects and resume the collector (see :func:`main`)."""
    gc.freeze()
    gc.enable()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
