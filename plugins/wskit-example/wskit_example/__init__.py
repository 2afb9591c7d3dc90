"""wskit-example: the smallest useful wskit plugin.

It adds one resource source: the folder ``.example/`` of a trusted project,
laid out like ``.claude/`` (skills under ``.example/skills/<slug>/SKILL.md``,
commands under ``.example/commands/``, …). It ranks just above the project's
``.<host>/`` folder, so a skill there wins a bare name over the same skill in
``.claude/skills``. :mod:`wskit_example.prompts` adds one resource kind, ``prompt``.
"""

from __future__ import annotations

import wskit

# the prompt kind's hook implementations, as this plugin's (pluggy reads this module)
from wskit_example.prompts import wskit_register_commands, wskit_resource_kinds  # noqa: F401

#: Rank of the source: above the project's .agents (20), .claude (21) and .<host> (22).
RANK = 23


@wskit.hookimpl
def wskit_resource_sources(binding, profile, trust):
    """The project's ``.example/`` folder, for trusted projects only."""
    if not trust.trusted:
        return []
    root = binding.source_root
    return [
        wskit.ResourceSource(
            scope="project", root=str(root / ".example"), base=str(root), rank=RANK,
            label="project:.example",
        )
    ]
