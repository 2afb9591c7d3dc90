"""The agent home: the agent's own folder, always usable as a workspace
(seed 003 "Agent home"; reference/holon-sakura.md A6)."""

from __future__ import annotations

import os
from pathlib import Path

from wskit.fs.atomic import atomic_write

#: Agent-owned folders created by :func:`ensure_agent_home` (seed 003 table).
AGENT_HOME_DIRS: tuple[str, ...] = ("memory", "notes", "work-items", "skills", "tmp")

#: Runtime-owned sub-folders of ``.<host>/`` (Holon's ``.holon/{state,ledger,indexes,cache}``).
RUNTIME_DIRS: tuple[str, ...] = ("state", "ledger", "indexes", "cache")

AGENTS_MD_TEMPLATE = """\
# Agent contract

This is the long-lived contract of agent `{agent_id}`. Keep durable behaviour
here, not temporary plans or copies of project documents.

## Agent home layout

- `memory/` — curated memory (`self.md`, `operator.md`)
- `notes/` — working notes
- `work-items/` — work item plans (`<id>/plan.md`)
- `skills/` — agent-local skills
- `tmp/` — short-lived files; may be cleaned at any time
- `{runtime_dir}/` — owned by the runtime (state, ledger, indexes, cache); do not edit
{seed}"""


def ensure_agent_home(path: str | os.PathLike[str], agent_id: str = "default", host: str = "wskit",
                      seed: str | None = None) -> list[str]:
    """Create the agent-home layout under ``path`` (idempotent).

    Creates ``AGENTS.md`` from :data:`AGENTS_MD_TEMPLATE` only when absent (an
    existing file is never overwritten), the folders of :data:`AGENT_HOME_DIRS`
    and the runtime-owned ``.<host>/{state,ledger,indexes,cache}``.

    :param seed: optional operator text appended to a new ``AGENTS.md``.
    :returns: the paths created, relative to ``path`` (``/`` separators), sorted.
    :raises OSError: when a folder cannot be created.
    """
    root = Path(path)
    created: list[str] = []
    if not root.is_dir():
        root.mkdir(parents=True, mode=0o700)
        created.append(".")
    runtime_dir = f".{host}"
    for rel in (*AGENT_HOME_DIRS, runtime_dir, *(f"{runtime_dir}/{d}" for d in RUNTIME_DIRS)):
        d = root / rel
        if not d.is_dir():
            d.mkdir(parents=True, exist_ok=True)
            created.append(rel)
    agents_md = root / "AGENTS.md"
    if not agents_md.exists() and not agents_md.is_symlink():
        text = AGENTS_MD_TEMPLATE.format(agent_id=agent_id, runtime_dir=runtime_dir,
                                         seed=f"\n## Operator seed\n\n{seed.strip()}\n" if seed else "")
        atomic_write(agents_md, text.encode("utf-8"), mode=0o644, anchor=root)
        created.append("AGENTS.md")
    return sorted(created)
