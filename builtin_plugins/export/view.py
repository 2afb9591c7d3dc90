"""The source view of an export: what a workspace loaded under its ``--from`` profile
offers, project resources only, in the shape the target writers take.

Only what the trusted workspace itself loaded is read: the rule catalog's project files
(bodies with ``@`` imports already inlined by the catalog), the project-scope skills,
commands, agents, MCP servers and hooks of the registries. User-scope resources stay the
user's (each target host reads its own home); ``CLAUDE.local.md`` and ``local`` scope
stay personal (an export writes files a repository shares).
"""

from __future__ import annotations

import os
from pathlib import PurePosixPath
from typing import Any

from wskit.values import FrozenValue, Value, field


class Piece(FrozenValue):
    """One instruction file or unconditional rule of a folder.

    :ivar path: the file, relative to the project root.
    :ivar body: the text the source host delivers (frontmatter removed, imports inlined).
    :ivar raw: the file's own text with its ``@`` lines kept, when the file sits directly
        in its folder and has imports (a host that follows imports gets this); else None.
    """

    path: str
    body: str
    raw: str | None = None


class FolderText(Value):
    """The unconditional instruction text of one folder (``""``: the project root)."""

    folder: str
    pieces: list[Piece] = field(default_factory=list)


class ConditionalRule(FrozenValue):
    """A path-scoped rule (``paths:``): its patterns are relative to the project root."""

    path: str
    patterns: tuple[str, ...]
    body: str
    description: str = ""


class SkillItem(FrozenValue):
    """A project skill: ``folder`` (relative to the root) holds ``SKILL.md``;
    ``base`` is the folder whose convention folder holds it (``""``: the root)."""

    name: str
    description: str
    folder: str
    base: str


class Command(FrozenValue):
    """A project custom command (Claude-style markdown)."""

    name: str
    path: str
    description: str
    body: str
    argument_hint: str | None = None
    model: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    extra: tuple[str, ...] = ()


class SourceView(Value):
    """Everything an export carries, from one workspace.

    :ivar root: the project root (absolute).
    :ivar source: the ``--from`` host profile name.
    :ivar folders: unconditional text per folder, root first.
    :ivar conditional: path-scoped rules.
    :ivar personal: files left out as personal (``CLAUDE.local.md``, local-scope entries).
    """

    root: str
    source: str
    folders: dict[str, FolderText] = field(default_factory=dict)
    conditional: list[ConditionalRule] = field(default_factory=list)
    skills: list[SkillItem] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    agents: list[Any] = field(default_factory=list)
    servers: list[Any] = field(default_factory=list)
    hooks: list[Any] = field(default_factory=list)
    personal: list[str] = field(default_factory=list)


def _project(resource) -> bool:
    return resource.provenance.scope.value == "project" and not resource.plugin


def _rel(root: str, path: str) -> str:
    return PurePosixPath(os.path.relpath(path, root)).as_posix()


def _raw_with_imports(root: str, rule) -> str | None:
    """The file's text with ``@`` lines kept (frontmatter removed) when it has imports and
    sits directly in its folder (not in ``.claude/``): imports resolve against the file's
    folder, the same for a file written beside it."""
    if not rule.imports or PurePosixPath(rule.path).parent.as_posix() != (rule.scope_dir or "."):
        return None
    from wskit.formats.frontmatter import parse_frontmatter
    from wskit.fs import read_bytes

    try:
        text = read_bytes(root, rule.path).raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    fm = parse_frontmatter(text, rule.path)
    return (fm.body if fm.present else text).strip()


def gemini_to_markdown(body: str) -> str:
    """A Gemini CLI TOML prompt in Claude Code's markdown command syntax: ``{{args}}`` →
    ``$ARGUMENTS``, ``!{cmd}`` → ``!`cmd```, ``@{path}`` → ``@path`` (the source view is
    Claude-shaped; each writer translates from there)."""
    import re

    body = body.replace("{{args}}", "$ARGUMENTS")
    body = re.sub(r"!\{([^{}\n]*)\}", lambda m: "!`" + m.group(1) + "`", body)
    return re.sub(r"@\{([^{}\s]+)\}", lambda m: "@" + m.group(1), body)


def source_view(ws, source: str, generated: frozenset[str] = frozenset()) -> SourceView:
    """The :class:`SourceView` of the loaded workspace ``ws`` (loaded under ``source``'s
    profile). Reads nothing the load did not read, except the text of instruction files
    that have ``@`` imports (bounded, no links, through :mod:`wskit.fs`).

    :param generated: paths (relative to the root) an earlier export wrote: never a source,
        so a second export reads what the first one read.
    """
    root = str(ws.binding.source_root)
    view = SourceView(root=root, source=source)
    catalog = ws.catalog("rules")
    rules = []
    if catalog is not None:
        complete = getattr(catalog, "complete", None)
        rules = list((complete() if callable(complete) else catalog).rules())
    # an unconditional file counts only when the source host delivers it in its own folder
    # (Claude Code's AGENTS.md beside a CLAUDE.md is not read: name groups, first name wins)
    delivered: set[str] = set()
    for scope_dir in {r.scope_dir for r in rules if r.source == "project"}:
        delivered |= {r.id for r in catalog.static_rules(os.path.join(root, scope_dir) if scope_dir else root).files}
    for rule in sorted(rules, key=lambda r: r.sort_key()):
        if rule.source == "user" or rule.path in generated:
            continue
        if not rule.patterns and rule.source == "project" and rule.id not in delivered:
            continue
        if rule.source == "local":
            view.personal.append(rule.path)
            continue
        if rule.patterns:
            prefix = f"{rule.scope_dir}/" if rule.scope_dir else ""
            view.conditional.append(ConditionalRule(rule.path, tuple(prefix + p for p in rule.patterns), rule.body,
                                                    rule.description or ""))
            continue
        folder = view.folders.setdefault(rule.scope_dir, FolderText(rule.scope_dir))
        folder.pieces.append(Piece(rule.path, rule.body, _raw_with_imports(root, rule)))
    view.folders = dict(sorted(view.folders.items(), key=lambda kv: (kv[0].count("/") + bool(kv[0]), kv[0])))

    def active(kind: str) -> list:
        try:
            reg = ws.registry(kind)
        except (KeyError, LookupError):
            return []
        out = []
        for r in reg.active():
            if r.provenance.path in generated:
                continue
            if _project(r):
                out.append(r)
            elif r.provenance.scope.value == "local" and not r.plugin:
                view.personal.append(f"{kind} {r.name}")
        return out

    for s in active("skill"):
        folder = _rel(root, s.directory)
        parts = PurePosixPath(folder).parts
        base = "/".join(parts[:-3]) if len(parts) >= 3 else ""
        view.skills.append(SkillItem(s.name, s.description, folder, base))
    for c in active("command"):
        body = c.body
        if c.extra.get("format") == "gemini-toml":
            body = gemini_to_markdown(body)
        view.commands.append(Command(c.name, c.provenance.path, c.description, body, c.argument_hint, c.model,
                                     c.allowed_tools, tuple(sorted(k for k in c.extra if k != "format"))))
    view.agents = active("agent")
    view.servers = active("mcp_server")
    view.hooks = active("hook")
    return view
