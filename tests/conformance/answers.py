"""wskit's answer to a conformance case under a host profile, in the shape the host
oracles give (:mod:`tests.conformance.oracles`)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from wskit import HostProfile, WorkspaceCache
from wskit.trust import TrustStore

__all__ = ["wskit_answer"]

_MARK = re.compile(r"S:(\S+)")


@functools.cache
def _plugin_manager():
    """One plugin manager for every case: the built-ins and the installed plugins
    (wskit-gemini reads Gemini's memory files), no environment switches."""
    from wskit.plugin.manager import make_plugin_manager

    return make_plugin_manager(load_entrypoints=True, env={})


def wskit_answer(case, host: str, base: Path, settings: dict | None = None) -> dict:
    """Lay ``case`` out under ``base``, trust the project and load it with
    ``HostProfile(name=host)``: the static instruction files of the cwd (their markers,
    in delivery order), the active skills whose names the case made (``sk-…``) and the
    description of each ``sk-``/``cmd-`` skill and command (``descriptions``).
    ``settings`` are the profile's settings (e.g. ``{"rules": {"exact_byte_budget": 32768}}``)."""
    project, home, cwd = case.lay_out(base)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name=host, home=home, settings=settings or {}), _plugin_manager()).resolve(str(cwd))
    labels: list[str] = []
    catalog = ws.catalog("rules")
    if catalog is not None:
        for rule in catalog.static_rules(str(ws.binding.to_source(ws.binding.cwd))).files:
            for m in _MARK.finditer(rule.body):
                if m.group(1) not in labels:
                    labels.append(m.group(1))
    skills = sorted({r.name for r in ws.registry("skill").active() if r.name.startswith("sk-")})
    listed = {r.name: r.description for kind in ("skill", "command") for r in ws.registry(kind).active()
              if r.name.startswith(("sk-", "cmd-"))}
    slash = sorted(r.name for kind in ("skill", "command") for r in ws.registry(kind).active()
                   if r.name.startswith(("sk-", "cmd-")))
    offered = _listed(ws, catalog, cwd) if "listed" in getattr(case, "compare", ()) else []
    agents = sorted(r.name for r in ws.registry("agent").active())
    mcp = sorted(r.name for r in ws.registry("mcp_server").active())
    return {"instructions": labels, "skills": skills, "slash_commands": slash, "listed": offered,
            "agents": agents, "mcp": mcp,
            "descriptions": dict(sorted(listed.items())),
            "commands": _commands(ws, project, case)}


def _listed(ws, catalog, cwd: Path) -> list[list[str]]:
    """The path-triggered rules of the root's and the cwd's rules trees, ``[patterns joined by
    ", ", path]`` in delivery order: what GitHub Copilot CLI lists for the model to open."""
    if catalog is None:
        return []
    cwd_rel = catalog.cwd_relative(str(ws.binding.to_source(cwd)))
    rules = sorted((r for r in catalog.rules() if r.patterns and r.file_kind == "rule"
                    and r.scope_dir in ("", cwd_rel)),
                   key=lambda r: (r.scope_dir != "", 0 if r.path.startswith((".github/", f"{cwd_rel}/.github/"))
                                  else 1, r.path))
    return [[", ".join(r.patterns), r.path] for r in rules]


def _commands(ws, project: Path, case) -> list[list[str]]:
    """Each ``/name args`` of the case as wskit expands it (a Gemini TOML command through
    ``wskit_gemini.expansion.expand_toml_command`` with the raw argument text); a prompt
    naming no command is sent as typed."""
    out: list[list[str]] = []
    if not getattr(case, "commands", ()):  # a RealRepo (tests.conformance.real) types none
        return out
    from wskit_gemini.expansion import expand_toml_command

    commands = {c.name: c for c in ws.registry("command").active()}
    for prompt in case.commands:
        name, _, args = prompt[1:].partition(" ")
        cmd = commands.get(name)
        out.append([prompt, prompt if cmd is None else expand_toml_command(cmd, args, root=project).text])
    return out
