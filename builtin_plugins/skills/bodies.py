"""The body of ``wsctl skills list [PATH]`` with plain arguments (click-free: the per-turn
dispatcher :mod:`wskit.cli.fast` and the click command :mod:`wskit.builtin_plugins.skills.cli`
both call it)."""

from __future__ import annotations

import os

from wskit.cli.bodies import print_diagnostics
from wskit.cli.context import WsctlContext, table
from wskit.cli.plain import echo
from wskit.models import display_path


def _skill_diags(ws):
    """Diagnostics about skills (skill codes, or any code about a file in a skills
    folder) and trust; not those of rule files or other kinds that share a generic
    code (``yaml-error``, ``symlink``…)."""
    return [d for d in ws.diagnostics
            if d.code.startswith(("skill", "project-untrusted", "trust", "invalid-allowed-tools"))
            or (d.path and ("/skills/" in d.path.replace("\\", "/") or d.path.endswith("/skills")))]


skill_diagnostics = _skill_diags


def list_skills(obj: WsctlContext, path: str) -> None:
    """``wsctl skills list PATH``: the active skills of the workspace holding ``path``."""
    from wskit.util.gcpause import gc_paused

    # the load and the listing build acyclic objects only (10,000 skills: a few hundred
    # thousand), which the cyclic collector would scan again and again
    with gc_paused():
        _list(obj, path)


def _list(obj: WsctlContext, path: str) -> None:
    from wskit.builtin_plugins.skills.runtime import SkillRuntime

    ws = obj.resolve(path)
    root = ws.binding.source_root
    skills = SkillRuntime(ws, ws.profile).list()
    diags = obj.listing_diagnostics(ws, _skill_diags(ws))
    shown = _shown_path(root)
    rows = []
    for s in skills:
        p = s.provenance  # scope and plugin are the provenance's (Resource.scope, Resource.plugin)
        rows.append({"id": s.id, "name": s.name, "description": s.description, "scope": p.scope._value_,
                     "path": shown(p), "plugin": p.plugin})
    data = {
        "skills": rows,
        "diagnostics": [d.to_json(root) for d in diags],
    }

    def human() -> None:
        if not skills:
            echo("no skills")
        else:
            rows = [[s.id, s.scope.value, _short(s.description)] for s in skills]
            echo(table(rows, ["ID", "SCOPE", "DESCRIPTION"]))
        print_diagnostics(diags, root)

    obj.emit(data, human)


def _shown_path(root: str):
    """A function giving ``display_path(prov.absolute_str, root)`` for a provenance
    ``prov``: for a file below a normal absolute ``root`` stored relative to it in
    normal form (every skill of the project), that relative path itself, with no
    join or path check per skill; anything else through :func:`display_path`."""
    r = os.fspath(root)
    plain = r if isinstance(r, str) and r.startswith("/") and display_path(r, "/") == r[1:] else None

    def shown(prov) -> str:
        p = prov.path
        if (plain is not None and prov.source_root == plain and p and p[0] != "/" and p[-1] != "/"
                and "//" not in p and p != "." and not p.startswith("./") and "/./" not in p
                and not p.endswith("/.")):
            return p
        return display_path(prov.absolute_str, root)

    return shown


def _short(text: str, width: int = 60) -> str:
    from wskit.cli.context import shorten

    return shorten(text, width)
