"""``wsctl skills list [PATH]``: the skills of a workspace."""

from __future__ import annotations

import click

from ..models import display_path
from .context import WsctlContext, json_option, path_argument, table
from .inspect import print_diagnostics


@click.group("skills")
def skills_group() -> None:
    """Skills: <root>/<slug>/SKILL.md folders."""


@skills_group.command("list")
@path_argument
@json_option
@click.pass_obj
def list_cmd(obj: WsctlContext, path: str) -> None:
    """List the active skills of the workspace holding PATH."""
    ws = obj.resolve(path)
    root = ws.binding.source_root
    skills = ws.registry("skill").active()
    diags = [d for d in ws.diagnostics if d.code.startswith(("skill", "yaml", "frontmatter", "project-untrusted",
                                                              "trust", "shadowed", "symlink", "followed"))
             or (d.path and "/skills/" in d.path)]
    data = {
        "skills": [
            {
                "id": s.id, "name": s.name, "description": s.description, "scope": s.scope.value,
                "path": display_path(s.provenance.absolute_path, root), "plugin": s.plugin,
            }
            for s in skills
        ],
        "diagnostics": [d.to_json(root) for d in diags],
    }

    def human() -> None:
        if not skills:
            click.echo("no skills")
        else:
            rows = [[s.id, s.scope.value, _short(s.description)] for s in skills]
            click.echo(table(rows, ["ID", "SCOPE", "DESCRIPTION"]))
        print_diagnostics(diags, root)

    obj.emit(data, human)


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
