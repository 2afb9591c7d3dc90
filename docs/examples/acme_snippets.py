"""acme_snippets: a plugin that adds a resource kind (``snippet``) and a wsctl command.

A snippet is a text file ``snippets/<name>.txt`` in any source folder
(``~/.claude/``, a trusted project's ``.claude/``, a content plugin…).
"""

from __future__ import annotations

from typing import Literal

import click

import wskit
from wskit import fs
from wskit.cli.context import WsctlContext, json_option
from wskit.kinds import ResourceKind
from wskit.models import Diagnostic, LoadResult, Provenance, Resource, sha256_hex

KIND = "snippet"
MAX_BYTES = 64 * 1024


class Snippet(Resource):
    """A text snippet. ``text`` is the file's content."""

    kind: Literal["snippet"] = KIND
    text: str = ""


def load_snippets(source) -> LoadResult:
    """Every ``snippets/*.txt`` of ``source``, read through safe file access."""
    rel_root = source.root[len(source.base):].strip("/")
    folder = "/".join(p for p in (rel_root, *source.dirs_for(KIND, "snippets")) if p)
    try:
        entries = fs.scan_dir(source.base, folder, follow_links=source.follow_links)
    except fs.SafeFsError as err:
        return LoadResult(diagnostics=() if err.code == "not-found" else (err.diagnostic(),))
    found, diags = [], []
    for e in entries:
        if not e.name.endswith(".txt"):
            continue
        rel = f"{folder}/{e.name}"
        try:
            res = fs.read_bytes(source.base, rel, max_bytes=MAX_BYTES, follow_links=source.follow_links)
            text = fs.decode_text(res.raw, res.path)
        except fs.SafeFsError as err:
            diags.append(err.diagnostic(plugin=source.plugin))
            continue
        name = e.name[:-4]
        if not text.strip():
            diags.append(Diagnostic(level="warning", code="acme-snippet-empty", path=str(res.path),
                                    message=f"snippet {name!r} is empty; skipped"))
            continue
        prefix = f"plugin:{source.plugin}" if source.plugin else source.scope.value
        found.append(Snippet(
            id=f"{prefix}:{name}", name=name, text=text, description=text.splitlines()[0][:80],
            provenance=Provenance(scope=source.scope, source_root=source.base, path=rel,
                                  plugin=source.plugin, sha256=sha256_hex(res.raw)),
        ))
    return LoadResult(resources=tuple(found), diagnostics=tuple(diags))


@wskit.hookimpl
def wskit_resource_kinds():
    return [ResourceKind(name=KIND, loader=load_snippets, default_dir="snippets")]


@click.command("snippets")
@click.argument("path", required=False, default=".", type=click.Path(exists=True))
@json_option
@click.pass_obj
def snippets_cmd(obj: WsctlContext, path: str) -> None:
    """List the snippets of the workspace holding PATH."""
    ws = obj.resolve(path)
    rows = [{"id": s.id, "name": s.name, "path": s.provenance.path} for s in ws.registry(KIND).active()]

    def human() -> None:
        for r in rows:
            click.echo(f"{r['id']}\t{r['path']}")

    obj.emit({"snippets": rows}, human)


@wskit.hookimpl
def wskit_register_commands(cli):
    cli.add_command(snippets_cmd)
