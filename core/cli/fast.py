"""``wsctl``'s per-turn dispatcher: the forms a host calls once per turn or once per tool
call, answered without importing click.

The console script (:mod:`wskit._console`) calls :func:`main`. It owns exactly these
forms, with the global options ``--home``, ``--host``, ``--json``, ``--managed-settings``
and ``--plugin-dir`` (and their environment variables) before the command:

- ``inspect [PATH] [--json]``
- ``rules [PATH] [--for FILE]… [--cwd DIR] [--shell] [--loaded ID]… [--budget N] [--json]``
- ``skills list [PATH] [--json]``
- ``hooks run EVENT [PATH] [--payload FILE|-] [--tool NAME] [--allow-http] [--allow-loopback]
  [--allow-private] [--json]``
- ``permissions check TOOL [INPUT] [PATH] [--hook allow|ask|deny] [--json]``

and calls the same command body (a function taking plain arguments, in the command's
``bodies`` module) the click command calls, so both print the same bytes and end with
the same status. Everything else goes to click (:func:`wskit.cli.main`): help and
version, ``--``, an option or value it does not know, a value click would refuse (a
path that must exist and does not, a number or choice it cannot read), text that is not
UTF-8, a stream that is not UTF-8, and a form whose command is not the built-in's own —
the plugins' ``wskit_register_commands`` are recorded on a click-free stand-in for the
root group (:func:`recorded_commands`) and a form is owned only when its command path
resolves to exactly the registration the built-in makes (a plugin that replaces,
merges into or adds beside it sends the form to click). A usage error raised by a body
before it printed anything is answered by click (the command runs again there, to print
click's usage line); any other failure is printed as click's path prints it
(:mod:`wskit.cli.failures`).

``tests/core/cli/test_fast.py`` runs every form, fallback and error through this
dispatcher and through click and requires byte-identical stdout, stderr and exit status.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any


class Form:
    """One owned form: its command path, the registration that must stand behind it, how
    its arguments are read and the body that answers it.

    :ivar path: the command words (``("hooks", "run")``).
    :ivar top: the ``"module:attr"`` target the built-in registers for ``path[0]``.
    :ivar sub: for a two-word path, the target registered for ``path[1]`` under it, or
        None when the sub-command is defined in the module of ``top``'s group.
    :ivar parse: ``args -> kwargs`` of the body, or None (not owned: click answers).
    :ivar body: ``"module:attr"`` of the body, called as ``body(obj, **kwargs)``.
    """

    __slots__ = ("path", "top", "sub", "parse", "body")

    def __init__(self, path: tuple[str, ...], top: str, parse: Callable[[list[str]], dict | None], body: str,
                 sub: str | None = None) -> None:
        self.path, self.top, self.sub, self.parse, self.body = path, top, sub, parse, body


#: the sub-commands the built-in groups define in their own modules (a lazy registration
#: of the same name under the group replaces them)
_MODULE_SUBS = {
    "wskit.builtin_plugins.skills.cli:skills_group": frozenset(
        {"list", "show", "files", "validate", "install", "enable", "disable"}),
    "wskit.builtin_plugins.permissions.cli:permissions_group": frozenset({"list", "check"}),
    "wskit.builtin_plugins.hooks.cli:hooks_group": frozenset({"list", "status", "trust", "revoke"}),
}


# -- reading arguments as click reads them (anything else: None, click answers) ----------

def _path_ok(value: str, *, exists: bool, file_okay: bool = True, dir_okay: bool = True) -> bool:
    """Whether ``click.Path(exists, file_okay, dir_okay)`` (readable) takes ``value``."""
    import stat

    try:
        st = os.stat(value)
    except OSError:
        return not exists
    if not file_okay and stat.S_ISREG(st.st_mode):
        return False
    if not dir_okay and stat.S_ISDIR(st.st_mode):
        return False
    return os.access(value, os.R_OK)


def _scan(args: list[str], values: dict[str, tuple[str, bool]], flags: dict[str, str],
          ) -> tuple[dict[str, Any], list[str]] | None:
    """Options and positional arguments of ``args``: ``values`` maps an option taking a
    value to ``(key, repeatable)``, ``flags`` a flag to its key. None for anything else
    (an unknown option, ``--``, a flag given a value, an option value starting with ``-``)."""
    out: dict[str, Any] = {}
    pos: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            name, eq, val = a.partition("=")
            if name in values:
                if not eq:
                    if i + 1 >= len(args):
                        return None
                    i += 1
                    val = args[i]
                if val.startswith("-") and val != "-":  # "-" is a value (standard input) for click too
                    return None
                key, repeat = values[name]
                if repeat:
                    out.setdefault(key, []).append(val)
                else:
                    out[key] = val
            elif name in flags and not eq:
                out[flags[name]] = True
            else:
                return None
        else:
            pos.append(a)
        i += 1
    return out, pos


_JSON = {"--json": "json"}


def _parse_inspect(args: list[str]) -> dict | None:
    got = _scan(args, {}, _JSON)
    if got is None or len(got[1]) > 1:
        return None
    path = got[1][0] if got[1] else "."
    if not _path_ok(path, exists=True):
        return None
    return {"path": path, "_json": bool(got[0].get("json"))}


def _parse_rules(args: list[str]) -> dict | None:
    got = _scan(args, {"--cwd": ("cwd", False), "--for": ("targets", True), "--loaded": ("loaded", True),
                       "--budget": ("budget", False)}, {**_JSON, "--shell": "shell"})
    if got is None or len(got[1]) > 1:
        return None
    opts, pos = got
    path = pos[0] if pos else "."
    if path == "explain" or not os.path.exists(path):  # the sub-command; a missing PATH (click's error)
        return None
    cwd = opts.get("cwd")
    if cwd is not None and not _path_ok(cwd, exists=True, file_okay=False):
        return None
    budget = opts.get("budget")
    if budget is not None:
        try:
            budget = int(budget)
        except ValueError:
            return None
        if budget < 0:
            return None
    return {"path": path, "cwd": cwd, "targets": tuple(opts.get("targets", ())), "shell": bool(opts.get("shell")),
            "loaded": tuple(opts.get("loaded", ())), "budget": budget, "_json": bool(opts.get("json"))}


def _parse_skills_list(args: list[str]) -> dict | None:
    return _parse_inspect(args)


def _parse_hooks_run(args: list[str]) -> dict | None:
    got = _scan(args, {"--payload": ("payload_file", False), "--tool": ("tool", False)},
                {**_JSON, "--allow-http": "allow_http", "--allow-loopback": "allow_loopback",
                 "--allow-private": "allow_private"})
    if got is None or not 1 <= len(got[1]) <= 2:
        return None
    opts, pos = got
    path = pos[1] if len(pos) > 1 else "."
    if not _path_ok(path, exists=True, file_okay=False):
        return None
    payload = opts.get("payload_file")
    if payload not in (None, "-") and not _path_ok(payload, exists=False, dir_okay=False):
        return None
    return {"event": pos[0], "path": path, "payload_file": payload, "tool": opts.get("tool"),
            "allow_http": bool(opts.get("allow_http")), "allow_loopback": bool(opts.get("allow_loopback")),
            "allow_private": bool(opts.get("allow_private")), "_json": bool(opts.get("json"))}


def _parse_permissions_check(args: list[str]) -> dict | None:
    got = _scan(args, {"--hook": ("hook", False)}, _JSON)
    if got is None or not 1 <= len(got[1]) <= 3:
        return None
    opts, pos = got
    path = pos[2] if len(pos) > 2 else "."
    if not _path_ok(path, exists=True):
        return None
    hook = opts.get("hook")
    if hook is not None and hook not in ("allow", "ask", "deny"):
        return None
    return {"tool": pos[0], "tool_input": pos[1] if len(pos) > 1 else "", "path": path, "hook": hook,
            "_json": bool(opts.get("json"))}


#: the owned forms
FORMS = (
    Form(("inspect",), "wskit.cli.inspect:inspect_cmd", _parse_inspect, "wskit.cli.bodies:inspect_workspace"),
    Form(("rules",), "wskit.builtin_plugins.rules.cli:rules_group", _parse_rules,
         "wskit.builtin_plugins.rules.bodies:rules_answer"),
    Form(("skills", "list"), "wskit.builtin_plugins.skills.cli:skills_group", _parse_skills_list,
         "wskit.builtin_plugins.skills.bodies:list_skills"),
    Form(("hooks", "run"), "wskit.builtin_plugins.hooks.cli:hooks_group", _parse_hooks_run,
         "wskit.builtin_plugins.hooks.bodies:run_hooks", sub="wskit.builtin_plugins.hooks.cli:hooks_run_cmd"),
    Form(("permissions", "check"), "wskit.builtin_plugins.permissions.cli:permissions_group",
         _parse_permissions_check, "wskit.builtin_plugins.permissions.bodies:check_permission_call"),
)

#: the global options taking a value: flag -> (parameter name, repeatable, click.Path file_okay, dir_okay)
_GLOBAL_VALUES = {"--home": ("home", False, False, True), "--host": ("host", False, None, None),
                  "--managed-settings": ("managed_settings", False, True, False),
                  "--plugin-dir": ("plugin_dirs", True, False, True)}
_ENVVARS = {"home": "WSKIT_HOME", "host": "WSKIT_HOST", "managed_settings": "WSKIT_MANAGED_SETTINGS"}


def _parse_globals(argv: list[str]) -> tuple[dict[str, Any], bool, list[str]] | None:
    """``(typed global options, --json, the rest)``, or None (click answers)."""
    typed: dict[str, Any] = {}
    as_json = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-") or a == "-":
            break
        name, eq, val = a.partition("=")
        if name == "--json" and not eq:
            as_json = True
        elif name in _GLOBAL_VALUES:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                val = argv[i]
            if val.startswith("-") or not val:
                return None
            key, repeat, file_okay, dir_okay = _GLOBAL_VALUES[name]
            if file_okay is not None and not _path_ok(val, exists=False, file_okay=file_okay, dir_okay=dir_okay):
                return None
            if repeat:
                typed[key] = (*typed.get(key, ()), val)
            else:
                typed[key] = val
        else:
            return None  # --help, --version, an unknown option
        i += 1
    return typed, as_json, argv[i:]


# -- which registration stands behind a command path --------------------------------------

class _Recorder:
    """A click-free stand-in for the root group given to ``wskit_register_commands``:
    registrations through :func:`~wskit.cli.lazy.add_lazy_command` are recorded in its
    command table; anything else a plugin does with it fails that plugin's hook (a
    diagnostic), which sends every form to click."""

    def __init__(self) -> None:
        from wskit.cli.lazy import CommandTable

        self.commands = CommandTable()


def recorded_commands(pm) -> tuple[dict, list]:
    """``(command table, registration diagnostics)``: wsctl's own commands and those of
    every plugin's ``wskit_register_commands`` of ``pm``, registered as
    :class:`wskit.cli.LazyGroup` registers them, on a click-free recorder (nothing imported)."""
    from wskit.cli.lazy import CORE_COMMANDS, add_lazy_command
    from wskit.plugin.facade import WskitHooks

    rec = _Recorder()
    for name, target, help_text in CORE_COMMANDS:
        add_lazy_command(rec, name, target, help_text)
    diags = WskitHooks(pm).register_commands(rec)
    return rec.commands, diags


_UNKNOWN = object()


def _sub_registration(spec, name: str):
    """What ``name`` under the lazily registered group ``spec`` is once realized: a
    :class:`~wskit.cli.lazy.LazySpec` registered under it, ``("module", target)`` for a
    sub-command its module defines, None for none, :data:`_UNKNOWN` when that cannot be
    told without importing (a plugin's group)."""
    from wskit.cli.lazy import LazySpec

    for sub in reversed(spec.subs):  # added after the import: the last one wins
        if sub.name == name:
            return sub
    if spec.target is not None:
        subs = _MODULE_SUBS.get(spec.target) if isinstance(spec.target, str) else None
        if subs is None:
            return _UNKNOWN
        if name in subs:
            return ("module", spec.target)
    prev = spec.previous  # merged in: its commands come after the group's own
    if prev is None:
        return None
    return _sub_registration(prev, name) if isinstance(prev, LazySpec) else _UNKNOWN


def _owned(form: Form, table: dict) -> bool:
    from wskit.cli.lazy import LazySpec

    top = dict.get(table, form.path[0])
    # a sub-command registered by itself may sit in a plain group its registration made
    if not isinstance(top, LazySpec) or top.target not in (form.top, *((None,) if form.sub else ())):
        return False
    if len(form.path) == 1:
        return top.previous is None and not top.subs
    got = _sub_registration(top, form.path[1])
    if form.sub is None:
        return got == ("module", form.top)
    return (isinstance(got, LazySpec) and got.target == form.sub and got.previous is None and not got.subs)


def _utf8_stream(stream) -> bool:
    enc = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    return stream is None or enc == "utf8"


# -- running a form ---------------------------------------------------------------------

def dispatch(argv: list[str], after_lookup: Callable[[], None] | None = None,
             keep: dict | None = None) -> int | None:
    """Answer ``argv`` (the arguments after ``wsctl``) when it is an owned form; None
    when click must (nothing was printed then).

    :param after_lookup: called once the form is known to be owned, before the body runs
        (the console script freezes the start-up objects there: :func:`main`).
    :param keep: given, ``keep["pm"]`` is the plugin manager built (for click to reuse:
        a plugin that failed to load is reported once).
    :returns: the exit status.
    """
    if not all(_utf8_stream(s) for s in (sys.stdout, sys.stderr)):
        return None
    for a in argv:
        if not a.isascii():
            try:
                a.encode("utf-8")
            except UnicodeEncodeError:
                return None
    parsed = _parse_globals(argv)
    if parsed is None:
        return None
    typed, as_json, rest = parsed
    form = next((f for f in FORMS if tuple(rest[:len(f.path)]) == f.path), None)
    if form is None:
        return None
    kwargs = form.parse(rest[len(form.path):])
    if kwargs is None:
        return None
    env = {k: os.environ.get(v) or None for k, v in _ENVVARS.items()}
    home = typed.get("home") or env["home"]
    host = typed.get("host") or env["host"] or "wskit"
    from wskit.host import HOST_PRESETS

    if host not in HOST_PRESETS and host != "wskit":
        return None  # a plugin's profile, or an unknown name click refuses: click's path decides
    managed = typed.get("managed_settings") or env["managed_settings"]
    for key in ("home", "managed_settings"):
        if key not in typed and env[key] is not None:
            file_okay = key == "managed_settings"
            if not _path_ok(env[key], exists=False, file_okay=file_okay, dir_okay=not file_okay):
                return None
    plugin_dirs = typed.get("plugin_dirs", ())
    if plugin_dirs:
        from wskit.fs.names import not_utf8

        if any(not_utf8(d) is not None for d in plugin_dirs):
            return None
    from pathlib import Path

    from wskit.plugin.manager import make_plugin_manager

    state = (Path(home).expanduser().absolute() if home else Path.home()) / ".wskit"
    pm = make_plugin_manager(state_dir=state)
    if keep is not None:
        keep["pm"] = pm
    table, diags = recorded_commands(pm)
    if diags or not _owned(form, table):
        return None
    if after_lookup is not None:
        after_lookup()
    return _run(form, kwargs, argv, typed, pm, home=home, host=host, as_json=as_json, managed=managed,
                plugin_dirs=plugin_dirs)


def _run(form: Form, kwargs: dict, argv: list[str], typed: dict, pm, *, home, host, as_json, managed,
         plugin_dirs) -> int | None:
    from wskit.cli.context import WsctlContext
    from wskit.cli.plain import RUN, ExitStatus
    from wskit.util.deferred import import_target

    obj = WsctlContext(home=home, host=host, json=as_json, pm=pm)
    if "host" not in typed and os.environ.get("WSKIT_HOST"):
        obj.host_from = "WSKIT_HOST"  # as click's callback says it
    obj.plugin_dirs = tuple(plugin_dirs)
    obj.managed_settings = managed
    if kwargs.pop("_json"):
        obj.json = True
    RUN.reset()
    RUN.active, RUN.typed, RUN.obj = True, typed, obj
    from wskit.cli.context import escaped_output

    failure: BaseException | None = None
    rc = 0
    try:
        # the output guard of click's path (LazyGroup.invoke): control characters escaped
        with escaped_output():
            try:
                import_target(form.body)(obj, **kwargs)
            except ExitStatus as end:
                rc = end.code
            except Exception as err:  # reported below, after the close callbacks (as click's context closes first)
                failure = err
            for callback in RUN.on_close:
                callback()
        if failure is None:
            return rc
        click = sys.modules.get("click")
        if click is not None and isinstance(failure, click.ClickException):
            if not RUN.written:
                return None  # a usage error: click runs the command again and prints its usage line
            from wskit.cli.app import _escape_message

            _escape_message(failure)
            failure.show()
            return failure.exit_code
        return _report(failure, argv, obj)
    finally:
        RUN.reset()


def _report(err: BaseException, argv: list[str], obj) -> int:
    """Print what :func:`wskit.cli.main` prints for ``err`` let through by a command; its status."""
    from wskit.cli.failures import STDOUT_CLOSED_STATUS, command_failure, failure_message, show_error, stdout_closed

    if isinstance(err, BrokenPipeError):
        if stdout_closed():
            return STDOUT_CLOSED_STATUS
        show_error(failure_message(err, argv))
        return 1
    message = command_failure(err, argv, obj)
    if message is not None:
        show_error(message)
        return 1
    if os.environ.get("WSKIT_TRACEBACK"):
        raise err
    show_error(f"internal error: {type(err).__name__}: {failure_message(err, argv)} "
               "(set WSKIT_TRACEBACK=1 for the traceback)")
    return 1


def main(argv: list[str] | None = None) -> int:
    """Run ``wsctl``: an owned form here, everything else through :func:`wskit.cli.main`.

    :param argv: the arguments; ``None`` (the console script) means this process's own
        command line, and then the cyclic garbage collector is paused while ``wsctl``
        imports its modules and builds the plugin manager, and what exists once the form
        is known to be owned (modules, classes, the plugin manager: objects that live
        until exit) is frozen (:func:`gc.freeze`) before the body runs and the collector
        resumes; the workspace a body loads is frozen once loaded
        (:func:`wskit.util.gcpause.loaded`). No collection walks them, neither during the
        start nor at interpreter exit. Callers passing ``argv`` (tests, hosts) keep their
        collector as it was. A form handed to click runs with the collector on.
    """
    import gc

    args = sys.argv[1:] if argv is None else list(argv)
    pause = argv is None and gc.isenabled()
    keep: dict = {}
    if pause:
        gc.disable()
        from wskit.util.gcpause import freeze_loads

        freeze_loads(True)
    try:
        rc = dispatch(args, after_lookup=_end_startup if pause else None, keep=keep)
    finally:
        if pause:
            from wskit.util.gcpause import freeze_loads

            freeze_loads(False)
            if not gc.isenabled():
                gc.enable()  # not owned: click answers with the collector on
    if rc is not None:
        return rc
    from wskit.cli.app import main as click_main

    return click_main(argv, pm=keep.get("pm"))


def _end_startup() -> None:
    import gc

    gc.freeze()
    gc.enable()
