"""Instruction files above the project root, as Claude Code reads them.

Claude Code loads the ``CLAUDE.md`` family of the cwd and of every folder above it, up to
the filesystem root, whatever the repository boundary (asked of the binary: from a nested
repository it still reads the outer project's files; without any repository it reads the
parents' files). wskit's catalog covers the source project; with
``RuleSettings.ancestor_files`` (on for host ``claude``, an option for others) the folders
above the catalog root contribute their plain instruction files (the profile's per-folder
names: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``AGENTS.md``, ``CLAUDE.local.md`` for
Claude Code). They are delivered after the user's own files and before the project's,
outermost first, in every static answer. Links are followed there (outside the project,
as in the home); the home's ``.claude/CLAUDE.md`` is the user file and is not read twice.
"""

from __future__ import annotations

import os

from wskit import fs
from wskit.builtin_plugins.rules.conventions import Conventions
from wskit.builtin_plugins.rules.model import RuleSettings

#: priorities of ancestor files start here: above every user slot, so they follow the
#: user's files; ``ANCESTOR_PRIORITY + depth * 8 + position`` keeps outer folders first
ANCESTOR_PRIORITY = 100


def _names(conv: Conventions) -> list[tuple[str, str]]:
    out = [(f.name, f.source) for f in (*conv.before, *conv.after)]
    for cfg in conv.config_dirs:
        out.extend((f"{cfg.name}/{f.name}", f.source) for f in cfg.files)
    if conv.agents:
        out.append(("AGENTS.md", "project"))
    order = {"CLAUDE.md": 0, ".claude/CLAUDE.md": 1, "AGENTS.md": 2, "CLAUDE.local.md": 3}
    return sorted(out, key=lambda n: order.get(n[0], 4))


def discover_ancestors(root: str, home: str, profile, settings: RuleSettings):
    """The instruction files of every folder above ``root`` (see the module docstring).

    :returns: ``(rules, diagnostics)``; the rules are user-source
        :class:`~wskit.resources.rule.RuleFile` objects based at ``/`` (their ``path`` is the
        absolute path without its leading ``/``).
    """
    from wskit.builtin_plugins.rules.discovery import load_rule_file

    conv = Conventions.of(profile, settings)
    names = _names(conv)
    folders = []
    cur = os.path.dirname(root.rstrip(os.sep)) if root != os.sep else None
    while cur:
        folders.append(cur)
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    folders.reverse()
    rules, diags = [], []
    for depth, folder in enumerate(folders):
        for i, (name, _source) in enumerate(names):
            path = os.path.join(folder, name)
            if folder == home and name.startswith(".claude/"):
                continue
            if not fs.is_file(path):  # noted: a file created later makes the load stale
                continue
            rel = path.lstrip(os.sep).replace(os.sep, "/")
            rule, d = load_rule_file(os.sep, rel, source="user", scope_dir="",
                                     priority=ANCESTOR_PRIORITY + depth * 8 + i, file_kind="instruction",
                                     follow_links=True, settings=settings, home=None)
            diags.extend(d)
            if rule is not None:
                rules.append(rule)
    return rules, diags
