"""``wsctl rules [PATH]`` and ``wsctl rules explain FILE [PATH]`` (docs/wsctl.md, "wsctl rules").

``wsctl rules`` prints the static rules of ``--cwd`` and, with ``--for FILE``
(repeatable) or ``--shell``, the contextual rules. JSON::

    {"catalog_root", "static": [ref], "contextual": [ref],
     "skipped": [{"path", "reason"}], "diagnostics": [...]}

ref = ``{"id", "path", "scope_dir", "source", "priority", "conditional", "sha256", "bytes"}``,
definition order.
"""

from __future__ import annotations

import os

import click

from wskit.builtin_plugins.rules.bodies import load_for_rules as _load
from wskit.builtin_plugins.rules.bodies import rules_answer
from wskit.builtin_plugins.rules.bodies import session_cwd as _cwd
from wskit.cli.context import WsctlContext, json_option, safe_text, table


class _RulesGroup(click.Group):
    """A group whose first positional argument is PATH unless it names a sub-command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value = {o for p in self.params if isinstance(p, click.Option) and not p.is_flag and not p.count
                       for o in p.opts}
        rest = list(args)
        i = 0
        while i < len(rest):
            a = rest[i]
            if a == "--":
                if i + 1 < len(rest):
                    ctx.meta["wskit.builtin_plugins.rules.path"] = rest.pop(i + 1)
                rest.pop(i)
                break
            if a.startswith("-") and a != "-":
                i += 1 if ("=" in a or a not in takes_value) else 2
                continue
            if a not in self.commands:
                ctx.meta["wskit.builtin_plugins.rules.path"] = rest.pop(i)
            break
        return super().parse_args(ctx, rest)


@click.group("rules", cls=_RulesGroup, invoke_without_command=True,
             subcommand_metavar="[PATH] | explain FILE [PATH]")
@click.option("--cwd", "cwd", type=click.Path(exists=True, file_okay=False), help="Session working folder (default: PATH).")
@click.option("--for", "targets", multiple=True, metavar="FILE", help="A file a tool touches (repeatable).")
@click.option("--shell", is_flag=True, help="A shell command: every rule that could apply.")
@click.option("--loaded", multiple=True, metavar="ID", help="Rule ids already delivered (repeatable).")
@click.option("--budget", type=click.IntRange(min=0), metavar="BYTES", help="Byte budget per answer (whole files).")
@json_option
@click.pass_context
def rules_group(ctx: click.Context, cwd, targets, shell, loaded, budget) -> None:
    """Which instruction files and rules apply under PATH (default '.'), in definition order."""
    if ctx.invoked_subcommand is not None:
        if targets or shell or loaded or cwd or budget is not None:
            raise click.UsageError("options of 'wsctl rules' go after 'explain' for the explain command")
        return
    rules_answer(ctx.find_object(WsctlContext), ctx.meta.get("wskit.builtin_plugins.rules.path", "."),
                 cwd, targets, shell, loaded, budget)


@rules_group.command("explain")
@click.argument("file", type=click.Path())
@click.argument("path", required=False)
@click.option("--cwd", "cwd", type=click.Path(exists=True, file_okay=False), help="Session working folder.")
@click.option("--budget", type=click.IntRange(min=0), metavar="BYTES", help="Byte budget per answer.")
@json_option
@click.pass_obj
def explain_cmd(obj: WsctlContext, file: str, path: str | None, cwd: str | None, budget: int | None) -> None:
    """Every candidate rule file for FILE: applies or not, and why."""
    from wskit.builtin_plugins.rules.explain import explain

    if os.path.isdir(file):
        swapped = f" (did you mean 'wsctl rules explain {path} {file}'?)" if path and not os.path.isdir(path) else ""
        raise click.UsageError(safe_text(f"FILE {file!r} is a folder: 'rules explain FILE [PATH]' takes the file the "
                                         f"rules are for, then the workspace{swapped}"))
    ws, catalog = _load(obj, path or ".")
    target = str(ws.binding.to_source(os.path.abspath(file)))
    if path is None and catalog.relative(target) is None:  # FILE lies in another project: use that one
        start = os.path.abspath(file)
        while not os.path.isdir(start):
            start = os.path.dirname(start)
        ws, catalog = _load(obj, start)
        target = str(ws.binding.to_source(os.path.abspath(file)))
    entries = explain(catalog, target, _cwd(ws, cwd), budget, ws.profile)
    rel = catalog.relative(target)
    data = {"catalog_root": catalog.root, "target": rel, "trusted": catalog.trusted, "candidates": entries}

    def human() -> None:
        click.echo(safe_text(f"{rel} in {catalog.root}")
                   + ("" if catalog.trusted else " (untrusted: project rules not read; only user rules apply)"))
        rows = [[e["path"], "applies" if e["applies"] else "no", e["reason"], e["detail"]] for e in entries]
        click.echo(table(rows, ["PATH", "APPLIES", "REASON", "WHY"]) if rows else "no candidate rule files")

    obj.emit(data, human)


