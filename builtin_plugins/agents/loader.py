"""Subagents: loading markdown agent definitions from a source.

Sources (conventions.md §1.6, blade.md §7): user and project ``.claude/agents/``
and ``.<host>/agents/`` (host folder outranks ``.claude`` at one scope), and a
content plugin's ``agents/``.

- every ``*.md`` file, recursively (depth ≤ :data:`MAX_DEPTH`); frontmatter is
  required with ``name`` and ``description``; the body is the system prompt;
- native identity is the frontmatter ``name`` (folders do not matter); a
  ``name`` starting with ``-``, holding ``:`` or whitespace is refused;
  plugin agents are named by their path below ``agents/`` (``a/b.md`` ->
  ``a:b``), or by ``name`` at the top level, and get ids ``plugin:<p>:<name>``;
- ``tools``, ``disallowedTools`` and ``skills`` accept a comma string or a list;
  ``model`` defaults to ``inherit``; ``isolation`` must be ``none`` or ``worktree``;
- a hidden control or bidirectional character anywhere in the file is a
  ``hidden-characters`` warning (the agent still loads); a description over
  :data:`MAX_DESCRIPTION` characters is an ``agent-description-too-long``
  warning and the agent is skipped;
- a bad file is a warning and is skipped; names the host reserves
  (``HostProfile.reserved_names``) are refused by :func:`agents_filter`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from wskit import fs
from wskit.builtin_plugins.agents import AGENT_FOLDERS  # declared with the plugin (registered without this module)
from wskit.formats.mdwalk import (
    description_too_long,
    hidden_chars_diag,
    is_agents_convention,
    list_field,
    text_field,
    walk_markdown,
)
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, sha256_hex
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.resources.agent import Agent


KIND = AGENT_FOLDERS.name
DEFAULT_DIR = AGENT_FOLDERS.default_dir

MAX_DEPTH = 4
MAX_AGENT_BYTES = 1024 * 1024
#: Longest description, in characters. Agent descriptions carry usage examples
#: (the official corpus peaks at ~2,300), so the bound is looser than a
#: command's; a longer one is ``agent-description-too-long``.
MAX_DESCRIPTION = 8192
#: a subagent name: letters, digits, ``_ . -`` and inner spaces (Claude Code 2.1.337 and GitHub
#: Copilot CLI 1.0.102 load ``name: Code Reviewer``)
_NAME = lazy_pattern(globals(), "_NAME", r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]| (?=[A-Za-z0-9_.-]))*\Z")
_KNOWN = {"name", "description", "tools", "disallowedTools", "disallowed-tools", "model", "skills", "color",
          "permissionMode", "permission-mode", "isolation"}


def load_agents(source: ResourceSource) -> LoadResult:
    """Load every subagent of ``source`` (see the module docstring)."""
    if is_agents_convention(source):
        return LoadResult()
    entries, diags = walk_markdown(source, AGENT_FOLDERS, max_depth=MAX_DEPTH)
    out: list[Agent] = []
    for e in entries:
        path = f"{source.base}/{e.rel}"
        if e.type != "file":
            diags.append(_warn("agent-skipped", path, source, f"{e.type} entry is not read as a subagent"))
            continue
        agent, found = _load_one(source, e.rel, e.segments)
        diags.extend(found)
        if agent is not None:
            out.append(agent)
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def _load_one(source: ResourceSource, rel: str, segments: tuple[str, ...]) -> tuple[Agent | None, list[Diagnostic]]:
    path = f"{source.base}/{rel}"
    try:
        res = fs.read_bytes(source.base, rel, max_bytes=MAX_AGENT_BYTES, follow_links=source.follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        return None, [err.diagnostic(level="warning", plugin=source.plugin)]
    parse_frontmatter, Agent = _deps()
    fm = parse_frontmatter(text, path)
    diags = [d.model_copy(update={"plugin": source.plugin, "level": "warning"}) for d in fm.diagnostics]
    hidden = hidden_chars_diag(text, path, source, "subagent file")
    if hidden is not None:
        diags.append(hidden)
    if not fm.present:
        return None, diags + [_warn("agent-no-frontmatter", path, source, "subagent file needs a '---' frontmatter block", 1)]
    if not fm.ok:
        return None, diags
    data = fm.data
    # checked first: whatever else is wrong, an oversized description is named
    too_long = description_too_long(text_field(data.get("description")) or "", MAX_DESCRIPTION,
                                    "agent-description-too-long", path, source, fm.line_of("description"))
    if too_long is not None:  # a bad subagent file is a warning here, like every other
        return None, diags + [too_long.model_copy(update={"level": "warning"})]
    fm_name = text_field(data.get("name"))
    if source.plugin:
        name = ":".join(segments) if len(segments) > 1 or not fm_name else fm_name
    elif not fm_name and source.host == "copilot":
        # GitHub Copilot CLI names an agent file without ``name`` after the file
        # (``reviewer.agent.md`` -> ``reviewer``)
        base = rel.rsplit("/", 1)[-1]
        name = base[:-len(".agent.md")] if base.endswith(".agent.md") else base[:-3]
    else:
        name = fm_name or ""
    if not name:
        return None, diags + [_warn("agent-missing-name", path, source, "required field 'name' is missing")]
    if any(not _NAME.match(part) for part in name.split(":")) or (":" in name and not source.plugin):
        return None, diags + [_warn("agent-name-invalid", path, source, f"invalid subagent name {name!r}",
                                    fm.line_of("name"))]
    description = text_field(data.get("description"))
    if not description:
        return None, diags + [_warn("agent-missing-description", path, source,
                                    "required field 'description' is missing", fm.line_of("description"))]
    isolation = text_field(data.get("isolation"))
    if isolation is not None and isolation not in ("none", "worktree"):
        return None, diags + [_warn("agent-invalid-isolation", path, source,
                                    f"isolation must be 'none' or 'worktree', not {isolation!r}", fm.line_of("isolation"))]
    aid = f"plugin:{source.plugin}:{name}" if source.plugin else f"{source.scope.value}:{name}"
    agent = Agent(
        id=aid, name=name, description=description,
        provenance=Provenance(scope=source.scope, source_root=source.base, path=rel, plugin=source.plugin,
                              sha256=sha256_hex(res.raw)),
        prompt=fm.body.strip(), tools=list_field(data.get("tools")),
        disallowed_tools=list_field(data.get("disallowedTools", data.get("disallowed-tools"))),
        model=text_field(data.get("model")) or "inherit", skills=list_field(data.get("skills")) or (),
        color=text_field(data.get("color")),
        permission_mode=text_field(data.get("permissionMode", data.get("permission-mode"))),
        isolation=isolation, extra={k: v for k, v in data.items() if k not in _KNOWN},
    )
    return agent, diags


def agents_filter(resources: list[Agent], profile) -> tuple[list[Agent], list[Diagnostic]]:
    """:class:`~wskit.kinds.ResourceKind` filter: refuse names the host reserves."""
    reserved = {n.lower() for n in getattr(profile, "reserved_names", ()) or ()}
    kept, diags = [], []
    for a in resources:
        bare = a.name.rsplit(":", 1)[-1].lower()
        if a.name.lower() in reserved or bare in reserved:
            diags.append(Diagnostic(level="warning", code="agent-reserved-name", plugin=a.plugin,
                                    path=str(a.provenance.absolute_path),
                                    message=f"subagent name {a.name!r} is reserved by host {profile.name!r}; skipped"))
            continue
        kept.append(a)
    return kept, diags


@functools.cache
def _deps() -> tuple:
    """``(parse_frontmatter, Agent)``, imported by the first subagent file read: a workspace
    without one never imports PyYAML or builds the model. Cached, so a
    per-file loop does not pay a function-level import (~2 µs) per file."""
    from wskit.formats.frontmatter import parse_frontmatter
    from wskit.resources.agent import Agent

    return parse_frontmatter, Agent


def _warn(code, path, source: ResourceSource, message, line=None) -> Diagnostic:
    return Diagnostic(level="warning", code=code, path=path, line=line, message=message, plugin=source.plugin)
