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

__all__ = ["PROJECT_RANK", "USER_RANK", "wskit_resource_sources"]


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


@hookimpl
def wskit_resource_sources(binding, profile, trust):
    home = profile.require_home()
    sources = []
    for folder, offset in _dirs(profile):
        sources.append(
            ResourceSource(
                scope=Scope.USER, root=str(home / folder), base=str(home),
                rank=USER_RANK + offset, label=f"user:{folder}", follow_links=True,
            )
        )
    if trust.trusted:
        root = binding.source_root
        for folder, offset in _dirs(profile):
            sources.append(
                ResourceSource(
                    scope=Scope.PROJECT, root=str(root / folder), base=str(root),
                    rank=PROJECT_RANK + offset, label=f"project:{folder}",
                )
            )
    return sources
