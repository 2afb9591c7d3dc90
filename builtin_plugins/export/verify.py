"""``--verify``: load the exported tree under each target's host profile and compare it with
the source view.

Compared, per target: the instruction text reaching the model for the root and every folder
with instruction files (every line of each source file, in the source's order), path rules
carried into a folder, skills (name, description), commands (name and the expansion of a
sample argument line), agents (name, description) and MCP servers (name, transport, command
and arguments or URL). Every difference is listed; one that a reported loss explains is
marked ``explained``, one that none does makes the verification fail (an export bug, never a
silent success). A target wskit has no host profile for is reported ``verified: false`` with
the reason: never claimed.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from wskit.builtin_plugins.export.targets import Loss, Plan, literal_folder
from wskit.builtin_plugins.export.view import SourceView

#: the argument line every command is expanded with on both sides
SAMPLE_ARGS = ["alpha", "beta"]

#: the host profile each target is loaded under (``agents``: Codex, the reference AGENTS.md reader)
_PROFILE = {"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode", "agents": "codex",
            "copilot": "copilot", "cursor": "cursor"}


def profile_for(ws, target: str):
    """The host profile ``target`` is verified under, bound to ``ws``'s home, or None when
    this wskit has no such profile (a plugin's ``wskit_host_profiles`` or :data:`HOST_PRESETS`)."""
    from wskit.host import HOST_PRESETS, HostProfile

    name = _PROFILE[target]
    known, _ = ws.hooks.host_profiles()
    match = next((p for p in known if p.name == name), None)
    if match is None and name not in HOST_PRESETS:
        return None
    return (match or HostProfile(name=name)).with_home(ws.profile.require_home())


def _static_lines(ws, folder: str) -> list[str]:
    catalog = ws.catalog("rules")
    if catalog is None:
        return []
    cwd = os.path.join(str(ws.binding.source_root), folder) if folder else str(ws.binding.source_root)
    lines: list[str] = []
    for rule in catalog.static_rules(cwd).files:
        if rule.source == "user":
            continue
        lines += [ln.strip() for ln in rule.body.splitlines() if ln.strip()]
    return lines


def _missing_lines(want: list[str], have: list[str]) -> tuple[list[str], bool]:
    """The lines of ``want`` absent from ``have``, and whether those present come in order."""
    missing = [ln for ln in want if ln not in have]
    pos = [have.index(ln) for ln in want if ln in have]
    return missing, pos == sorted(pos)


def _project(resources) -> list:
    return [r for r in resources if r.provenance.scope.value == "project" and not r.plugin]


def _active(ws, kind: str) -> list:
    try:
        return _project(ws.registry(kind).active())
    except (KeyError, LookupError):
        return []


def _expand(ws, cmd) -> str | None:
    try:
        return ws.hooks.expand_command(cmd, list(SAMPLE_ARGS), str(ws.binding.source_root)).text.strip()
    except LookupError:
        return None


def opencode_expand(template: str, arguments: str) -> str:
    """A command body as opencode expands it (its ``session/prompt.ts``): ``$N`` 1-based, the
    highest placeholder takes the rest of the words, a missing one is empty; ``$ARGUMENTS`` the
    whole line; with neither, the line is appended after a blank line. wskit has no opencode
    expansion of its own (its commands follow Claude Code's 0-based rule), so the verification
    of an opencode command uses this."""
    words = [w[1:-1] if w[:1] in "\"'" and w[-1:] == w[:1] and len(w) > 1 else w
             for w in re.findall(r"(?:\[Image\s+\d+\]|\"[^\"]*\"|'[^']*'|[^\s\"']+)", arguments)]
    numbers = [int(n) for n in re.findall(r"\$(\d+)", template)]
    last = max(numbers, default=0)

    def one(m: re.Match) -> str:
        pos = int(m.group(1))
        if pos - 1 >= len(words) or pos == 0:
            return ""
        return " ".join(words[pos - 1:]) if pos == last else words[pos - 1]

    out = re.sub(r"\$(\d+)", one, template)
    uses_all = "$ARGUMENTS" in template
    out = out.replace("$ARGUMENTS", arguments)
    if not numbers and not uses_all and arguments.strip():
        out = f"{out}\n\n{arguments}"
    return out.strip()


def _server_key(s) -> dict:
    if s.transport == "stdio":
        return {"transport": "stdio", "command": [s.command, *s.args]}
    return {"transport": "remote", "url": s.url}


def _read_back(root: str, target: str) -> dict[str, dict] | None:
    """The servers of the file the export wrote for ``target``, read back (for the targets whose
    MCP file no wskit loader reads), in the shape of :func:`_server_key`."""
    import tomllib

    files = {"codex": ".codex/config.toml", "gemini": ".gemini/settings.json", "opencode": "opencode.json",
             "cursor": ".cursor/mcp.json", "copilot": ".vscode/mcp.json"}
    rel = files.get(target)
    if rel is None:
        return None
    from wskit.fs.atomic import read_state

    raw = read_state(os.path.join(root, rel), anchor=root, max_bytes=4 * 1024 * 1024)
    if raw is None:
        return {}
    data = tomllib.loads(raw.decode()) if rel.endswith(".toml") else json.loads(raw)
    table = data.get({"codex": "mcp_servers", "opencode": "mcp", "copilot": "servers"}.get(target, "mcpServers"), {})
    out = {}
    for name, e in table.items():
        if target == "opencode":
            out[name] = ({"transport": "stdio", "command": e.get("command")} if e.get("type") == "local"
                         else {"transport": "remote", "url": e.get("url")})
        elif "command" in e:
            out[name] = {"transport": "stdio", "command": [e["command"], *e.get("args", [])]}
        else:
            out[name] = {"transport": "remote", "url": e.get("httpUrl") or e.get("url")}
    return out


def _named(diff, target: str, kind: str, source: dict[str, str], loaded: dict[str, str]) -> int:
    """Compare ``{name: description}`` of the source with what the target loaded; returns the
    number compared."""
    for name, desc in source.items():
        if name not in loaded:
            diff(kind, name, f"{target} loads no {kind} {name!r}", missing=True)
        elif loaded[name] != desc:
            diff(kind, name, f"description differs: {loaded[name]!r}")
    return len(source)


def verify(ws, view: SourceView, plan: Plan, targets: list[str], losses: list[Loss]) -> dict[str, Any]:
    """``{target: {"verified", "profile", "checked", "differences", "reason"}}``; each difference
    is ``{"kind", "item", "detail", "explained"}``."""
    from wskit.cache import WorkspaceCache

    root = str(ws.binding.source_root)
    out: dict[str, Any] = {}
    for target in targets:
        reported = {(loss.kind, loss.item) for loss in losses if loss.target == target}
        reported_kinds = {(loss.kind, it) for loss in losses if loss.target == target
                          for it in loss.item.split(", ")}
        reported |= reported_kinds
        # an item the target does not load at all is explained only by a loss saying it is not
        # carried: "carried with a difference" does not explain its absence
        not_carried = {(loss.kind, it) for loss in losses if loss.target == target and not loss.carried
                       for it in (loss.item, *loss.item.split(", "))}
        if target == view.source:
            out[target] = {"verified": True, "profile": target, "checked": {}, "differences": [],
                           "reason": "the source's own layout"}
            continue
        profile = profile_for(ws, target)
        if profile is None:
            out[target] = {"verified": False, "profile": None, "checked": {}, "differences": [],
                           "reason": f"cannot verify: this wskit has no {_PROFILE[target]!r} host profile, so what "
                                     f"{target} loads from the exported tree is not known here"}
            continue
        tws = WorkspaceCache(profile, ws.hooks.pm).resolve(root)
        diffs: list[dict] = []
        checked = {"folders": 0, "skills": 0, "commands": 0, "agents": 0, "mcp_servers": 0}

        def diff(kind: str, item: str, detail: str, _reported=reported, _absent=not_carried, *,
                 missing: bool = False) -> None:
            explained = (kind, item) in (_absent if missing else _reported)
            diffs.append({"kind": kind, "item": item, "detail": detail, "explained": explained})

        # instruction text, folder by folder
        folders = dict.fromkeys(["", *view.folders])
        widened: dict[str, list] = {}
        for rule in view.conditional:
            for f in {literal_folder(p) for p in rule.patterns}:
                if f:
                    widened.setdefault(f, []).append(rule)
                    folders.setdefault(f)
        for folder in folders:
            checked["folders"] += 1
            want_pieces = []
            f = folder
            chain = [""] + ["/".join(folder.split("/")[:i]) for i in range(1, folder.count("/") + 2)] if folder else [""]
            for part in dict.fromkeys(chain):
                if part in view.folders:
                    want_pieces += [(p.path, p.body) for p in view.folders[part].pieces]
            have = _static_lines(tws, f)
            starts = []
            for path, body in want_pieces:
                lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
                missing, _ = _missing_lines(lines, have)
                if missing:
                    item = path if folder == "" or path.startswith(folder) else path
                    diff("instruction", item, f"at {folder or '.'}: {len(missing)} line(s) do not reach the model "
                         f"(first: {missing[0][:80]!r})")
                elif lines:
                    starts.append((path, have.index(lines[0])))
            if [s for _, s in starts] != sorted(s for _, s in starts):
                diff("instruction", folder or ".", f"at {folder or '.'}: {target} delivers the files in another "
                     f"order ({', '.join(p for p, _ in sorted(starts, key=lambda x: x[1]))})")
            for rule in widened.get(folder, ()):
                lines = [ln.strip() for ln in rule.body.splitlines() if ln.strip()]
                missing, _ = _missing_lines(lines, have)
                if missing and target not in ("cursor", "copilot", "claude"):
                    diff("rule", rule.path, f"at {folder}: the rule's text does not reach the model")
        # skills
        checked["skills"] = _named(diff, target, "skill", {s.name: s.description for s in view.skills},
                                   {s.name: s.description for s in _active(tws, "skill")})
        # commands: names and the expansion of a sample line
        src_cmd = {c.name: c for c in _active(ws, "command")}
        tgt_cmd = {c.name: c for c in _active(tws, "command")}
        for name, c in src_cmd.items():
            checked["commands"] += 1
            # the name the target gives it (Cursor has no namespaces: git:fixissue is /git-fixissue)
            other = tgt_cmd.get(name) or (tgt_cmd.get(name.replace(":", "-")) if target == "cursor" else None)
            if other is None:
                diff("command", name, f"{target} has no command /{name}", missing=True)
                continue
            a = _expand(ws, c)
            b = (opencode_expand(other.body, " ".join(SAMPLE_ARGS)) if target == "opencode" else _expand(tws, other))
            if a != b:
                diff("command", name, f"/{name} {' '.join(SAMPLE_ARGS)} expands to {b!r}, the source to {a!r}")
        # agents
        checked["agents"] = _named(diff, target, "agent", {a.name: a.description for a in view.agents},
                                   {a.name: a.description for a in _active(tws, "agent")})
        # MCP servers: read back from the file written (no wskit loader reads the targets' own files)
        back = _read_back(root, target)
        for s in view.servers:
            checked["mcp_servers"] += 1
            if back is None:
                diff("mcp_server", s.name, f"{target} has no MCP configuration", missing=True)
                continue
            got = back.get(s.name)
            want = _server_key(s)
            if got is None:
                diff("mcp_server", s.name, f"not in {target}'s MCP configuration", missing=True)
            elif got.get("transport") != want["transport"] or (
                    want["transport"] == "stdio" and got.get("command", [None])[0] != want["command"][0]):
                diff("mcp_server", s.name, f"written as {got}, the source is {want}")
        out[target] = {"verified": not any(not d["explained"] for d in diffs), "profile": profile.name,
                       "checked": checked, "differences": diffs,
                       "reason": "loaded under the host profile; MCP servers read back from the written file"}
    return out
