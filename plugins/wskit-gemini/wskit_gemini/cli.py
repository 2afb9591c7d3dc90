"""``wsctl gemini memory [PATH] [--for FILE]``: the memory of a folder, as Gemini CLI assembles it.

It reads the workspace's rule catalog (public API: ``WorkspaceResources.catalog("rules")``)
and prints the files that apply to ``PATH`` (the session's working folder) and,
with ``--for``, the files newly applicable to a touched file (Gemini's
just-in-time memory), each wrapped in ``--- Context from: <path> ---`` …
``--- End of Context from: <path> ---``. JSON::

    {"catalog_root", "trusted", "files": [{"path", "source", "scope_dir", "bytes", "trigger"}]}

``trigger`` is ``cwd`` or ``touched``; ``path`` is absolute. ``trusted`` is false
when no trust decision lets the project's files be read (only user memory
applies then); the human output says so on its first line, like ``wsctl rules``.
"""

from __future__ import annotations

import os
import shlex

import click

from wskit.cli.context import WsctlContext, json_option, safe_text


def _is_memory(rule, ws, trusted: bool) -> bool:
    """A file Gemini CLI reads as memory: one named by ``context.fileName`` (the project's
    settings when trusted, else the user's; default ``GEMINI.md``) or an extension's
    context file. Other instruction files of the workspace (``AGENTS.md``, ``CLAUDE.md``
    under the default host) are not shown."""
    from .config import memory_file_names
    from .memory import EXTENSION_PRIORITY

    if rule.priority == EXTENSION_PRIORITY:
        return True
    home = str(ws.profile.require_home()) if getattr(ws, "profile", None) is not None else None
    if home is None:
        return True
    project = str(ws.binding.source_root) if trusted and rule.source != "user" else None
    names, _ = memory_file_names(home, project)
    return os.path.basename(rule.path) in names


@click.group("gemini")
def gemini_group() -> None:
    """Gemini CLI conventions (plugin wskit-gemini)."""


@gemini_group.command("memory")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--for", "targets", multiple=True, metavar="FILE", help="A file a tool touches (repeatable).")
@json_option
@click.pass_obj
def memory_cmd(obj: WsctlContext, path: str, targets: tuple[str, ...]) -> None:
    """Memory files that apply in PATH (and to --for files), in Gemini's order: only the
    configured memory file names (``context.fileName``) and extensions' context files."""
    ws = obj.resolve(path)
    catalog = ws.catalog("rules")
    files: list[tuple[str, object]] = []
    if catalog is not None:
        cwd = str(ws.binding.to_source(os.path.abspath(path)))
        static = catalog.static_rules(cwd)
        files = [("cwd", r) for r in static.files]
        if targets:
            mapped = [str(ws.binding.to_source(os.path.abspath(t))) for t in targets]
            ctx = catalog.contextual_rules(cwd, mapped, static.ids)
            files += [("touched", r) for r in ctx.files]
    trusted = catalog.trusted if catalog is not None else False
    files = [(t, r) for t, r in files if _is_memory(r, ws, trusted)]
    data = {
        "catalog_root": str(ws.binding.source_root),
        "trusted": trusted,
        "files": [{"path": str(r.provenance.absolute_path), "source": r.source, "scope_dir": r.scope_dir,
                   "bytes": r.bytes, "trigger": trig} for trig, r in files],
    }

    def human() -> None:
        if not trusted:
            click.echo(safe_text(f"{ws.binding.source_root}: untrusted, project memory files not read "
                                 f"(run 'wsctl trust grant {shlex.quote(str(ws.binding.source_root))}')"), err=True)
        if not files:
            click.echo("no memory files apply")
        for _trig, r in files:
            p = r.provenance.absolute_path
            click.echo(f"--- Context from: {p} ---\n{r.body}\n--- End of Context from: {p} ---\n")

    obj.emit(data, human)
