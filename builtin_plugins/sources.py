"""Built-in plugin ``sources``: the standard user and project resource folders.

Ranks (higher wins for a bare name), design §5::

    builtin 0 < user .agents 10 < user .claude 11 < user .<host> 12
      < project .agents 20 < project .claude 21 < project .<host> 22
      < admin 40 < cli 50

Project folders are only returned for a trusted source project; user folders
follow links (design §5), project folders never do.
"""

from __future__ import annotations

from wskit.models import ResourceSource, Scope
from wskit.plugin import hookimpl

__all__ = ["HOST_FOLDERS", "PROJECT_RANK", "USER_RANK", "host_reads_kind", "wskit_resource_sources"]


USER_RANK = 10
PROJECT_RANK = 20


def _dirs(profile) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    if profile.agents_conventions:
        out.append((".agents", 0))
    if profile.claude_conventions:
        out.append((".claude", 1))
    if profile.host_dir not in {d for d, _ in out}:
        out.append((profile.host_dir, 2))
    else:  # host named like a convention folder: it is already there, rank it highest
        out = [(d, 2 if d == profile.host_dir else r) for d, r in out]
    return out


_SKILLS = frozenset({"skill"})
_ALL = None

#: The folders each reproduced host reads (:attr:`wskit.host.HostProfile.family`), asked of
#: the hosts themselves (tests/conformance): ``user``: ``(folder below the home, kinds)``;
#: ``project``: ``(folder, kinds)`` read in every folder from the project root down to
#: the cwd (``chain``), in the cwd alone (Gemini CLI's workspace is the cwd) or in the
#: project root alone (``root``: Cursor's workspace is the folder opened). ``kinds``
#: None: every kind of that folder; else only those.
HOST_FOLDERS: dict[str, dict] = {
    "claude": {"user": ((".claude", _ALL),), "project": ((".claude", _ALL),), "where": "chain"},
    "codex": {"user": ((".agents", _SKILLS), (".codex", _SKILLS)), "project": ((".agents", _SKILLS),),
              "where": "chain", "nested_skills": True},
    # later folders rank higher: .agents/skills outranks .gemini/skills in each scope (Gemini's rule)
    "gemini": {"user": ((".gemini", frozenset({"skill", "command", "agent"})), (".agents", _SKILLS)),
               "project": ((".gemini", frozenset({"skill", "command", "agent"})), (".agents", _SKILLS)),
               "where": "cwd"},
    "opencode": {"user": ((".claude", _SKILLS), (".agents", _SKILLS),
                          (".config/opencode", frozenset({"skill", "command", "agent"}))),
                 "project": ((".claude", _SKILLS), (".agents", _SKILLS),
                             (".opencode", frozenset({"skill", "command", "agent"}))),
                 "where": "chain", "nested_skills": True},
    # GitHub Copilot CLI 1.0.102 (copilot skill list --json, the custom agents of its task tool)
    "copilot": {"user": ((".copilot", _SKILLS), (".agents", _SKILLS)),
                "project": ((".github", frozenset({"skill", "agent"})), (".agents", _SKILLS),
                            (".claude", frozenset({"skill", "agent"}))),
                "where": "chain", "nested_skills": True},
    # Cursor (cursor.com/docs/context/skills, /commands; docs/compatibility.md): its workspace
    # is the folder opened, the project root
    "cursor": {"user": ((".codex", _SKILLS), (".claude", _SKILLS), (".agents", _SKILLS),
                        (".cursor", frozenset({"skill", "command"}))),
               "project": ((".codex", _SKILLS), (".claude", _SKILLS), (".agents", _SKILLS),
                           (".cursor", frozenset({"skill", "command"}))),
               "where": "root"},
}


def host_reads_kind(profile, kind: str) -> bool:
    """Whether the host of ``profile`` reads resources of ``kind`` from any folder
    (:data:`HOST_FOLDERS`; wskit's own union and a custom host read every kind).
    ``host_reads_kind(codex, "style")`` is False: Codex has no output styles."""
    table = HOST_FOLDERS.get(profile.family or "")
    if table is None:
        return True
    return any(kinds is None or kind in kinds for scope in ("user", "project") for _, kinds in table[scope])


#: GitHub Copilot's and Cursor's own folders, read by wskit's default host too (below every
#: convention folder of the same scope: listed first at the lowest rank, a later source wins)
_OTHER_HOSTS: dict[str, tuple] = {
    "user": ((".copilot", _SKILLS), (".cursor", frozenset({"skill", "command"}))),
    "project": ((".github", frozenset({"skill", "agent"})), (".cursor", frozenset({"skill", "command"}))),
}


#: Codex and opencode read skills recursively below a skills root: at most this deep, this many folders
_NESTED_DEPTH, _NESTED_FOLDERS = 6, 2000


def _skill_groups(root: str) -> tuple[str, ...]:
    """``skills`` and every folder below ``<root>/skills`` (at most :data:`_NESTED_DEPTH`
    levels, :data:`_NESTED_FOLDERS` folders, links not followed, secret names skipped)
    that holds a ``<slug>/SKILL.md``: Codex's recursive skills roots (``group/<slug>/SKILL.md``)."""
    import os

    from wskit import fs

    out = ["skills"]
    stack = [("skills", 0)]
    seen = 0
    while stack and seen < _NESTED_FOLDERS:
        rel, depth = stack.pop()
        seen += 1
        try:
            entries = list(os.scandir(os.path.join(root, rel)))
        except OSError:
            continue
        for e in entries:
            if not e.is_dir(follow_symlinks=False) or fs.is_secret_name(e.name):
                continue
            sub = f"{rel}/{e.name}"
            if os.path.isfile(os.path.join(root, sub, "SKILL.md")):
                continue  # a skill: its folder is not a group
            if depth + 1 < _NESTED_DEPTH:
                try:
                    if any(c.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(c.path, "SKILL.md"))
                           for c in os.scandir(e.path)):
                        out.append(sub)
                except OSError:
                    continue
                stack.append((sub, depth + 1))
    return tuple(out)


def _host_sources(binding, profile, trust, table: dict) -> list[ResourceSource]:
    """The sources of a reproduced host: its home folders, and its project folders in each
    folder of the chain from the project root to the cwd (nearer folders rank higher)."""
    home = profile.require_home()
    nested = table.get("nested_skills", False)

    def components(folder_root) -> dict:
        if not nested:
            return {}
        groups = _skill_groups(str(folder_root))
        return {} if groups == ("skills",) else {"skill": groups}

    out = []
    for i, (folder, kinds) in enumerate(table["user"]):
        out.append(ResourceSource(scope=Scope.USER, root=str(home / folder), base=str(home), rank=USER_RANK + i,
                                  label=f"user:{folder}", follow_links=True, kinds=kinds,
                                  components=components(home / folder), host=profile.name))
    if not trust.trusted:
        return out
    root = binding.source_root
    try:
        rel = binding.to_source(binding.cwd).relative_to(root)
        parts = rel.parts
    except (ValueError, AttributeError):
        parts = ()
    chain = [root]
    for part in parts:
        chain.append(chain[-1] / part)
    if table["where"] == "cwd":
        chain = chain[-1:]
    elif table["where"] == "root":
        chain = chain[:1]
    n = len(table["project"])
    for depth, folder_root in enumerate(chain):
        for i, (folder, kinds) in enumerate(table["project"]):
            where = folder_root.relative_to(root).as_posix()
            label = f"project:{folder}" if where == "." else f"project:{where}/{folder}"
            out.append(ResourceSource(scope=Scope.PROJECT, root=str(folder_root / folder), base=str(root),
                                      rank=PROJECT_RANK + min(depth * n + i, 19), label=label, kinds=kinds,
                                      components=components(folder_root / folder), host=profile.name))
    return out


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    table = HOST_FOLDERS.get(getattr(profile, "family", None) or "")
    if table is not None:
        return _host_sources(binding, profile, trust, table)
    home = profile.require_home()
    sources = []
    for folder, kinds in _OTHER_HOSTS["user"]:
        sources.append(ResourceSource(scope=Scope.USER, root=str(home / folder), base=str(home), rank=USER_RANK,
                                      label=f"user:{folder}", follow_links=True, kinds=kinds))
    for folder, offset in _dirs(profile):
        sources.append(
            ResourceSource(
                scope=Scope.USER, root=str(home / folder), base=str(home),
                rank=USER_RANK + offset, label=f"user:{folder}", follow_links=True,
            )
        )
    if trust.trusted:
        root = binding.source_root
        for folder, kinds in _OTHER_HOSTS["project"]:
            sources.append(ResourceSource(scope=Scope.PROJECT, root=str(root / folder), base=str(root),
                                          rank=PROJECT_RANK, label=f"project:{folder}", kinds=kinds))
        for folder, offset in _dirs(profile):
            components = _nested(root / folder) if folder == ".agents" else {}
            sources.append(
                ResourceSource(
                    scope=Scope.PROJECT, root=str(root / folder), base=str(root),
                    rank=PROJECT_RANK + offset, label=f"project:{folder}", components=components,
                )
            )
        if profile.agents_conventions:
            sources.extend(_agents_chain(binding))
    return sources


def _nested(folder_root) -> dict:
    """The components of a ``.agents`` folder whose ``skills`` holds groups
    (``group/<slug>/SKILL.md``, as Codex and opencode read them); empty otherwise."""
    groups = _skill_groups(str(folder_root))
    return {} if groups == ("skills",) else {"skill": groups}


def _agents_chain(binding) -> list[ResourceSource]:
    """``.agents/skills`` of every folder below the project root down to the cwd (Codex
    and opencode read them), for wskit's default host: skills only, at the root
    ``.agents`` folder's rank, a nearer folder winning a bare name among them (the later
    source wins at equal rank); ``.claude`` and ``.<host>`` folders of the root still
    outrank them, as docs/skills.md ranks them."""
    root = binding.source_root
    try:
        parts = binding.to_source(binding.cwd).relative_to(root).parts
    except (ValueError, AttributeError):
        return []
    out = []
    cur = root
    for part in parts:
        cur = cur / part
        folder = cur / ".agents"
        if not folder.is_dir():
            continue
        where = cur.relative_to(root).as_posix()
        out.append(ResourceSource(scope=Scope.PROJECT, root=str(folder), base=str(root), rank=PROJECT_RANK,
                                  label=f"project:{where}/.agents", kinds=_SKILLS, components=_nested(folder)))
    return out
