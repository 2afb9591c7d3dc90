"""The click application of ``wsctl`` (:mod:`wskit.cli` exports it; see its docstring)."""

from __future__ import annotations

import sys

import click

from wskit import __version__
from wskit.cli.failures import (
    STDOUT_CLOSED_STATUS,
    command_failure,
    failure_message,
    paint_error_line,
    show_error,
    shown_message,
    stdout_closed,
)
from wskit.cli.plain import ExitStatus


class WsctlError(click.ClickException):
    """An operation failed: printed as ``error: <message>`` on stderr, exit status 1."""

    exit_code = 1

    def show(self, file=None) -> None:  # noqa: D102
        if file is not None:
            click.echo(paint_error_line(self.format_message()), err=True, file=file)
            return
        show_error(self.format_message())


_failure_message = failure_message


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

    def _ensure(self, ctx: click.Context | None) -> None:
        if self._loaded:
            return
        self._loaded = True
        from wskit.cli.lazy import CommandTable, add_lazy_command  # not for `wsctl --version`

        self.commands = CommandTable(self.commands)
        from wskit.cli.lazy import CORE_COMMANDS

        for name, target, help_text in CORE_COMMANDS:
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
        argv = [*getattr(ctx, "_protected_args", ()), *ctx.args]  # before click consumes them
        try:
            return super().invoke(ctx)
        except ExitStatus as end:  # a command body's exit status (click-free)
            raise click.exceptions.Exit(end.code) from None
        except click.ClickException as err:
            _escape_message(err)  # a usage error naming a path given on the command line
            raise
        except BrokenPipeError as err:
            if _stdout_closed():  # the reader went away (`| head`): main() ends quietly
                raise StdoutClosed() from None
            raise WsctlError(_failure_message(err, argv)) from err
        except Exception as err:
            message = command_failure(err, argv, getattr(ctx, "obj", None))
            if message is None:
                raise
            raise WsctlError(message) from err

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._ensure(ctx)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str):
        self._ensure(ctx)
        return super().get_command(ctx, cmd_name)

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
                       "host loads; wskit reads every convention; a profile a plugin contributes by its name. "
                       "Any other name is refused. Env: WSKIT_HOST.")
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
        if ctx.get_parameter_source("host") is click.core.ParameterSource.ENVIRONMENT:
            ctx.obj.host_from = "WSKIT_HOST"  # an error names the variable the user set, not a flag they did not type
        ctx.obj.check_host()
        for d in plugin_dirs:
            from wskit.fs.names import not_utf8, shown_path

            why = not_utf8(d)
            if why is not None:  # its plugin could not be named in JSON, a ledger or a session file
                raise click.UsageError(f"--plugin-dir {shown_path(d)}: the path {why}")
        ctx.obj.plugin_dirs = tuple(plugin_dirs)
        ctx.obj.managed_settings = managed_settings

    return cli


def main(argv: list[str] | None = None, pm=None) -> int:
    """Run ``wsctl`` through click and map errors to exit codes.

    :param argv: the arguments; ``None`` means this process's own command line.
    :param pm: a plugin manager to use (the per-turn dispatcher passes the one it built).

    The console script reaches this through :func:`wskit.cli.fast.main` for what the
    per-turn dispatcher does not answer: help, version, errors and the rare commands.
    """
    cli = make_cli(pm)
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
    return 0


class StdoutClosed(Exception):
    """A command's output pipe was closed by its reader (raised by :class:`LazyGroup`
    instead of the ``BrokenPipeError``, which click would turn into exit status 1)."""


_stdout_closed = stdout_closed


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
