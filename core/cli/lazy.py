"""Lazily imported ``wsctl`` sub-commands, so start-up imports only the command that runs.

A plugin registers a command by name, the ``"module:attr"`` path of its click
object (or a function that builds it) and its help text; the module is
imported (the function called) only when the command is
looked up by name (invoked, or its own ``--help``), when a plugin reads it from
``cli.commands``, or when its values are listed. ``wsctl --help`` lists lazy
commands with the help text given here, without importing them, so
``wsctl inspect`` imports the inspect command alone.

A lazy registration means exactly what ``cli.add_command(<the object>)`` would
have meant at that moment (a group replacing a group keeps the sub-commands of
the older one, see :meth:`wskit.cli.LazyGroup.add_command`); the import and that
merge are replayed when the command is first needed.

:func:`add_lazy_command` is the entry point for plugins; on a plain
:class:`click.Group` (a test, another tool) it imports and adds at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError

if TYPE_CHECKING:
    import click

__all__ = ["CORE_COMMANDS", "CommandTable", "LazySpec", "Target", "add_lazy_command", "ensure_group", "own_group"]

#: wsctl's own commands, registered before the plugins' (name, "module:attr", help): imported when used (:mod:`wskit.cli.lazy`)
CORE_COMMANDS = (
    ("inspect", "wskit.cli.inspect:inspect_cmd",
     "Show the workspace holding PATH: binding, trust, resources, diagnostics."),
    ("plugins", "wskit.cli.plugins:plugins_group",
     "List Python plugins (built-ins and entry points of group 'wskit') and the\n"
     "content plugins (bundles) of the workspace at --path."),
    ("snapshot", "wskit.cli.session:snapshot_cmd",
     "Snapshot the workspace holding PATH into a session state file (JSON)."),
)


#: What :func:`add_lazy_command` registers: ``"module:attr"`` or a function returning the command.
Target = str | Callable[[], "click.Command"]


class LazySpec:
    """A command registered by path, not yet imported.

    :ivar name: the command name under its parent.
    :ivar target: ``"module:attr"`` of the click command or group, a function
        without arguments that returns it, or ``None`` for a plain
        :class:`click.Group` made on realization (a parent group that
        :func:`add_lazy_command` created, like ``ensure_group`` does).
    :ivar help: the help text shown in the parent's command list.
    :ivar previous: what this registration replaced (a command or a spec).
    :ivar subs: lazy sub-commands added to this group before it was imported.
    """

    __slots__ = ("name", "target", "help", "previous", "subs")

    def __init__(self, name: str, target: Target | None, help: str, previous: Any = None) -> None:
        self.name, self.target, self.help, self.previous = name, target, help, previous
        self.subs: list[LazySpec] = []

    def short_help(self, limit: int) -> str:
        """The command-list line click shows for a command whose help is ``help``
        (``limit``: characters available, as in :meth:`click.Command.get_short_help_str`)."""
        import click

        return click.Command(self.name, help=self.help).get_short_help_str(limit)

    def realize(self) -> click.Command:
        """Import the command and replay the registration (merge with ``previous``,
        then add the sub-commands registered meanwhile).

        :raises click.UsageError: a sub-command was registered under a command
            that is not a group (``ensure_group`` raises the same at once).
        :raises click.ClickException: (``error: …``, exit status 1) the target
            cannot be imported or is not a click command; the message names the
            command and the target, never a traceback.
        """
        import click

        if self.target is None:
            cmd: click.Command = click.Group(name=self.name, help=self.help)
        else:
            cmd = self._import()
        old = self.previous.realize() if isinstance(self.previous, LazySpec) else self.previous
        merge = isinstance(old, click.Group) and isinstance(cmd, click.Group) and old is not cmd
        if self.target is not None and isinstance(cmd, click.Group) and (merge or self.subs):
            # an imported group is a module-level object: this CLI merges and adds into its own
            # copy, so another CLI in the process (another plugin set) never sees those changes
            cmd = own_group(cmd)
        if merge:
            for sub_name, sub in old.commands.items():
                cmd.commands.setdefault(sub_name, sub)
        if self.subs:
            if not isinstance(cmd, click.Group):
                raise click.UsageError(f"wsctl command {self.name!r} exists and is not a group")
            for sub in self.subs:
                cmd.add_command(sub.realize(), sub.name)
        return cmd


    def _import(self) -> click.Command:
        import click

        try:
            if callable(self.target):
                obj: Any = self.target()
            else:
                from wskit.util.deferred import import_target

                obj = import_target(self.target)
        except Exception as err:  # a plugin's broken registration: said, not a traceback
            raise _broken(self, f"{type(err).__name__}: {err}") from err
        if not isinstance(obj, click.Command):
            raise _broken(self, f"{type(obj).__name__} is not a click command")
        return obj


def own_group(group: click.Group) -> click.Group:
    """A shallow copy of ``group`` with a command table of its own: what a CLI adds to or
    merges into, so a module-level group shared by every CLI in the process is never changed."""
    import copy

    clone = copy.copy(group)
    clone.commands = dict(group.commands)
    return clone


def _broken(spec: LazySpec, why: str) -> click.ClickException:
    from wskit.cli import WsctlError  # the root group's error type (``error: …``, exit status 1)

    target = spec.target
    shown = getattr(target, "__qualname__", repr(target)) if callable(target) else target
    return WsctlError(f"wsctl command {spec.name!r} cannot be loaded from {shown!r}: {why}")


class CommandTable(dict):
    """``Group.commands`` holding :class:`LazySpec` values that turn into the
    command on first read (``[]``, ``get``, ``values``, ``items``, ``pop``…);
    names (``in``, iteration, ``len``) never import."""

    def _real(self, name: str, value: Any) -> Any:
        if isinstance(value, LazySpec):
            value = value.realize()
            dict.__setitem__(self, name, value)
        return value

    def __getitem__(self, name: str) -> Any:
        return self._real(name, dict.__getitem__(self, name))

    def get(self, name: str, default: Any = None) -> Any:  # noqa: D102
        return self[name] if name in self else default

    def pop(self, name: str, *default: Any) -> Any:  # noqa: D102
        if name in self:
            value = self[name]
            dict.__delitem__(self, name)
            return value
        return dict.pop(self, name, *default)

    def setdefault(self, name: str, default: Any = None) -> Any:  # noqa: D102
        return self[name] if name in self else dict.setdefault(self, name, default)

    def realize_all(self) -> None:
        """Import every lazy command."""
        for name in list(dict.keys(self)):
            self[name]  # noqa: B018

    def values(self):  # noqa: D102
        self.realize_all()
        return dict.values(self)

    def items(self):  # noqa: D102
        self.realize_all()
        return dict.items(self)

    def copy(self) -> dict:  # noqa: D102
        self.realize_all()
        return dict(dict.items(self))

    def pending(self, name: str) -> LazySpec | None:
        """The spec registered under ``name`` if it is not imported yet."""
        value = dict.get(self, name)
        return value if isinstance(value, LazySpec) else None


def add_lazy_command(cli: click.Group, name: str, target: Target, help: str,
                     parent: str | None = None, parent_help: str = "") -> None:
    """Register the click command at ``target`` (``"module:attr"``) as ``name``,
    imported only when it is needed (see the module docstring).

    :param cli: the root group ``wskit_register_commands`` received.
    :param name: the command name (under ``parent`` when given).
    :param target: ``"package.module:attribute"`` of a :class:`click.Command`,
        or a function without arguments that returns one (called when the
        command is needed; :class:`wskit.kit.markdown.MarkdownKind` builds its
        group so).
    :param help: the command's help text as its docstring has it (the list in
        ``wsctl --help`` shows its first sentence, as for an imported command).
    :param parent: put the command in this sub-group of ``cli``, created as a
        plain group with ``parent_help`` when no plugin made it
        (like :func:`ensure_group`).
    :param parent_help: help text of that group when created here.

    On a group without lazy support the command is imported and added at once.
    A sub-command under a name that holds a plain command fails when the group is
    first needed (:class:`click.UsageError`) instead of during registration.
    """
    table = getattr(cli, "commands", None)
    if not isinstance(table, CommandTable):
        cmd = LazySpec(name, target, help).realize()
        if parent is None:
            cli.add_command(cmd, name)
            return
        ensure_group(cli, parent, parent_help).add_command(cmd, name)
        return
    if parent is None:
        dict.__setitem__(table, name, LazySpec(name, target, help, previous=dict.get(table, name)))
        return
    spec = LazySpec(name, target, help)
    group = table.pending(parent)
    if group is None and parent not in table:
        group = LazySpec(parent, None, parent_help)
        dict.__setitem__(table, parent, group)
    if group is not None:
        group.subs.append(spec)
        return
    import click  # a parent already imported: click is there

    existing = table[parent]
    if not isinstance(existing, click.Group):
        raise click.UsageError(f"wsctl command {parent!r} exists and is not a group")
    existing = own_group(existing)  # never add into a module-level group other CLIs share
    dict.__setitem__(table, parent, existing)
    existing.add_command(spec.realize(), name)


def ensure_group(cli: click.Group, name: str, help: str) -> click.Group:
    """The sub-group ``name`` of ``cli``, created (with ``help``) when absent.

    :raises WskitError: ``name`` exists and is a command, not a group.
    """
    import click

    existing = cli.commands.get(name)
    if existing is None:
        grp = click.Group(name=name, help=help)
        cli.add_command(grp)
        return grp
    if not isinstance(existing, click.Group):
        raise WskitError(f"wsctl command {name!r} exists and is not a group")
    # the caller adds to it: give this CLI its own copy of a group other CLIs may share
    own = own_group(existing)
    cli.commands[name] = own  # in place: nothing to merge, it is a copy of what was there
    return own
