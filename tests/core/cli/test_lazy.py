"""Lazily imported ``wsctl`` commands (:mod:`wskit.cli.lazy`, for start-up): the
command tree and ``--help`` equal what eager ``add_command`` registration gives."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from wskit.cli import LazyGroup, make_cli
from wskit.cli.lazy import CommandTable, LazySpec, add_lazy_command, ensure_group
from wskit.plugin.manager import make_plugin_manager


def _tree(cmd: click.Command) -> dict:
    """A comparable description of a command and its sub-commands (objects by identity)."""
    out = {"type": type(cmd), "name": cmd.name, "help": cmd.help, "short_help": cmd.short_help,
           "hidden": cmd.hidden, "callback": cmd.callback, "params": [p.name for p in cmd.params]}
    if isinstance(cmd, click.Group):
        out["commands"] = {n: _tree(c) for n, c in sorted(dict(cmd.commands.items()).items())}
    return out


class _EagerGroup(LazyGroup):
    """Eager registration: every ``add_lazy_command`` imports and adds at once
    (its fallback for a group without a :class:`CommandTable`)."""

    def _ensure(self, ctx) -> None:
        if self._loaded:
            return
        from wskit.cli import _CORE_COMMANDS
        from wskit.plugin.facade import WskitHooks

        self._loaded = True
        for name, target, help_text in _CORE_COMMANDS:
            add_lazy_command(self, name, target, help_text)
        self.registration_diagnostics = WskitHooks(self._get_pm()).register_commands(self)


def _eager_cli(pm) -> click.Group:
    cli = make_cli(pm)
    eager = _EagerGroup(name=cli.name, callback=cli.callback, params=cli.params, help=cli.help,
                        pm=pm, context_settings=cli.context_settings)
    return eager


def test_lazy_tree_equals_eager_registration() -> None:
    pm = make_plugin_manager()
    lazy = make_cli(pm)
    ctx = click.Context(lazy)
    lazy.list_commands(ctx)
    assert isinstance(lazy.commands, CommandTable)
    assert any(isinstance(v, LazySpec) for v in dict.values(lazy.commands))  # nothing imported yet
    eager = _eager_cli(pm)
    eager.list_commands(click.Context(eager))
    assert not isinstance(eager.commands, CommandTable)
    assert lazy.registration_diagnostics == eager.registration_diagnostics == []
    assert sorted(lazy.commands) == sorted(eager.commands)
    assert {"inspect", "plugins", "snapshot", "mcp", "lsp", "hooks", "session", "gemini"} <= set(lazy.commands)
    assert _tree(lazy)["commands"] == _tree(eager)["commands"]
    # sub-commands from several plugins merged into one group, as add_command merges them
    assert {"list", "check"} <= set(lazy.commands["mcp"].commands)
    assert {"list", "run"} <= set(lazy.commands["hooks"].commands)


def test_help_lists_every_command_without_importing_them() -> None:
    pm = make_plugin_manager()
    lazy, eager = make_cli(pm), _eager_cli(pm)
    runner = CliRunner()
    lazy_help = runner.invoke(lazy, ["--help"]).output
    assert any(isinstance(v, LazySpec) for v in dict.values(lazy.commands))  # --help imported none
    assert lazy_help == runner.invoke(eager, ["--help"]).output
    lazy.commands.realize_all()  # and it is the help of the imported commands
    assert runner.invoke(lazy, ["--help"]).output == lazy_help
    for name in ("inspect", "plugins", "mcp", "gemini", "session"):
        assert f"\n  {name} " in lazy_help


def test_sub_group_help_and_invocation_import_the_command(tmp_path) -> None:
    pm = make_plugin_manager()
    lazy, eager = make_cli(pm), _eager_cli(pm)
    runner = CliRunner()
    for argv in (["hooks", "--help"], ["mcp", "check", "--help"], ["session", "--help"], ["inspect", "--help"]):
        assert runner.invoke(lazy, argv).output == runner.invoke(eager, argv).output
    assert not isinstance(dict.get(lazy.commands, "hooks"), LazySpec)
    assert isinstance(dict.get(lazy.commands, "styles"), LazySpec)


def _cmd(name: str) -> click.Command:
    return click.Command(name, callback=lambda: None)


class _Holder:
    """Targets for the specs below (``tests.core.cli.test_lazy:_Holder.x``)."""

    group_a = click.Group("g", commands={"one": _cmd("one"), "both": _cmd("both-a")}, help="A.")
    group_b = click.Group("g", commands={"two": _cmd("two"), "both": _cmd("both-b")}, help="B.")
    plain = _cmd("p")


_T = "tests.core.cli.test_lazy:_Holder."


@pytest.fixture(autouse=True)
def _fresh_holder(monkeypatch):
    # each test starts from fresh groups
    monkeypatch.setattr(_Holder, "group_a", click.Group("g", commands={"one": _cmd("one"), "both": _cmd("both-a")},
                                                        help="A."))
    monkeypatch.setattr(_Holder, "group_b", click.Group("g", commands={"two": _cmd("two"), "both": _cmd("both-b")},
                                                        help="B."))


def _root() -> LazyGroup:
    root = LazyGroup(name="root")
    root._loaded = True
    root.commands = CommandTable()
    return root


def test_group_replacing_group_keeps_older_sub_commands() -> None:
    root = _root()
    add_lazy_command(root, "g", _T + "group_a", "A.")
    add_lazy_command(root, "g", _T + "group_b", "B.")
    g = root.commands["g"]
    assert g.name == "g" and g.help == "B." and g.callback is _Holder.group_b.callback
    assert set(g.commands) == {"one", "two", "both"} and g.commands["both"].name == "both-b"
    # merged into this CLI's copy: the module-level groups other CLIs import are unchanged
    assert set(_Holder.group_b.commands) == {"two", "both"} and set(_Holder.group_a.commands) == {"one", "both"}


def test_lazy_registration_merges_with_an_eager_group_both_ways() -> None:
    root = _root()
    root.add_command(_Holder.group_a)
    add_lazy_command(root, "g", _T + "group_b", "B.")
    assert set(root.commands["g"].commands) == {"one", "two", "both"}
    root = _root()
    add_lazy_command(root, "g", _T + "group_a", "A.")
    root.add_command(_Holder.group_b)  # realizes the lazy one, then merges as before
    assert root.commands["g"].help == "B." and set(root.commands["g"].commands) == {"one", "two", "both"}
    assert set(_Holder.group_b.commands) == {"two", "both"}  # into a copy, not the shared group


def test_sub_command_into_absent_lazy_and_eager_parents() -> None:
    root = _root()
    add_lazy_command(root, "x", _T + "plain", "P.", parent="new", parent_help="New group.")
    new = root.commands["new"]
    assert type(new) is click.Group and new.help == "New group." and new.commands["x"] is _Holder.plain
    root = _root()
    add_lazy_command(root, "g", _T + "group_a", "A.")
    add_lazy_command(root, "x", _T + "plain", "P.", parent="g")
    assert isinstance(dict.get(root.commands, "g"), LazySpec)
    assert set(root.commands["g"].commands) == {"one", "both", "x"}
    root = _root()
    root.add_command(_Holder.group_a)
    add_lazy_command(root, "x", _T + "plain", "P.", parent="g")
    assert root.commands["g"].commands["x"] is _Holder.plain


def test_sub_command_under_a_plain_command_fails() -> None:
    root = _root()
    root.add_command(_Holder.plain, "p")
    with pytest.raises(click.UsageError):
        add_lazy_command(root, "x", _T + "plain", "P.", parent="p")
    root = _root()
    add_lazy_command(root, "p", _T + "plain", "P.")
    add_lazy_command(root, "x", _T + "plain", "P.", parent="p")
    with pytest.raises(click.UsageError):
        root.commands["p"]  # noqa: B018


def test_plain_group_imports_at_once() -> None:
    plain = click.Group("root")
    add_lazy_command(plain, "g", _T + "group_a", "A.")
    add_lazy_command(plain, "x", _T + "plain", "P.", parent="h", parent_help="H.")
    assert plain.commands["g"] is _Holder.group_a
    assert plain.commands["h"].help == "H." and plain.commands["h"].commands["x"] is _Holder.plain


def test_command_table_reads_import_names_do_not() -> None:
    table = CommandTable()
    dict.__setitem__(table, "g", LazySpec("g", _T + "group_a", "A."))
    assert "g" in table and list(table) == ["g"] and len(table) == 1
    assert isinstance(dict.get(table, "g"), LazySpec) and table.pending("g") is not None
    assert table.get("g") is _Holder.group_a and table.pending("g") is None
    assert table.get("missing", 1) == 1 and table.setdefault("g") is _Holder.group_a
    assert table.pop("g") is _Holder.group_a and "g" not in table


@pytest.mark.parametrize("target, why", [
    ("wskit_no_such_module_xyz:cmd", "ModuleNotFoundError"),
    ("wskit.cli.lazy:does_not_exist", "AttributeError"),
    ("wskit.cli.lazy:LazySpec", "is not a click command"),
])
def test_a_broken_lazy_command_is_an_error_line_not_a_traceback(target, why) -> None:
    """A plugin's registration that cannot be imported: ``error: …`` naming the command
    and its target, exit status 1, for the command and for its ``--help``."""
    from wskit.plugin import hookimpl

    class Broken:
        @hookimpl
        def wskit_register_commands(self, cli):
            add_lazy_command(cli, "broken", target, "Broken on purpose.")

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(Broken(), name="broken-plugin")
    runner = CliRunner()
    listed = runner.invoke(make_cli(pm), ["--help"])
    assert listed.exit_code == 0 and "Broken on purpose." in listed.output  # listing imports nothing
    for argv in (["broken"], ["broken", "--help"]):
        res = runner.invoke(make_cli(pm), argv)
        assert res.exit_code == 1, res.output
        assert res.exception is None or isinstance(res.exception, SystemExit)
        assert f"error: wsctl command 'broken' cannot be loaded from '{target}'" in res.output
        assert why in res.output and "Traceback" not in res.output


def test_a_function_target_is_called_when_the_command_is_needed() -> None:
    calls: list[int] = []

    def build() -> click.Command:
        calls.append(1)
        return _Holder.group_a

    root = _root()
    add_lazy_command(root, "g", build, "A.")
    assert "g" in root.commands and calls == []  # registered, not built
    assert isinstance(dict.get(root.commands, "g"), LazySpec)
    assert root.commands["g"] is _Holder.group_a and calls == [1]
    assert root.commands["g"] is _Holder.group_a and calls == [1]  # once per tree


def test_a_broken_function_target_is_named_in_the_error() -> None:
    def broken_builder() -> click.Command:
        raise RuntimeError("no group today")

    root = _root()
    add_lazy_command(root, "g", broken_builder, "A.")
    with pytest.raises(click.ClickException) as err:
        root.commands["g"]  # noqa: B018
    assert "cannot be loaded from" in err.value.message and "broken_builder" in err.value.message
    assert "RuntimeError: no group today" in err.value.message


def test_sub_commands_added_by_one_cli_do_not_reach_another() -> None:
    """Two CLIs in one process (two plugin sets): the sub-commands one adds under a shared
    module-level group stay in that CLI (wskit-mcp's ``mcp check`` does not appear in a CLI
    without it; the bundles built-in's ``plugins list`` does not survive it being blocked)."""
    first = _root()
    add_lazy_command(first, "g", _T + "group_a", "A.")
    add_lazy_command(first, "x", _T + "plain", "P.", parent="g")
    assert set(first.commands["g"].commands) == {"one", "both", "x"}
    ensure_group(first, "g", "A.").add_command(_cmd("late"), "late")
    assert "late" in first.commands["g"].commands
    second = _root()
    add_lazy_command(second, "g", _T + "group_a", "A.")
    assert set(second.commands["g"].commands) == {"one", "both"}
    assert set(_Holder.group_a.commands) == {"one", "both"}
