"""Reference for the GEMINI.md walk tests: a separate walk of wskit-gemini's own
(every folder listed with ``wskit.fs.scan_dir``), which the shared-walk
selection (``wskit_gemini.memory._walk``) must agree with on trees without
``.gitignore`` or ``.claude``/``.<host>`` folders. Not used by wskit-gemini itself."""

from __future__ import annotations

import os
from pathlib import Path

from wskit import fs
from wskit.builtin_plugins.rules.discovery import SKIP_DIRS
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.models import Diagnostic
from wskit_gemini.config import GEMINI_DIR

#: folder descriptors a descriptor-keeping walk holds at most (one per level); deep test trees go past it
MAX_HELD = 64


def walk_scan(root: str, names: tuple[str, ...], settings: RuleSettings, diags: list[Diagnostic],
               start: str = "", start_depth: int = 0):
    """``(folder, file, name)`` triples of every memory file under ``start``, pre-order,
    sorted by name; each folder listed with :func:`wskit.fs.scan_dir`."""
    skip = SKIP_DIRS | set(settings.extra_skip_dirs)
    stack: list[tuple[str, int]] = [(start, start_depth)]
    while stack:
        rel_dir, depth = stack.pop()
        try:
            entries = fs.scan_dir(root, rel_dir or None)
        except fs.SafeFsError as err:
            if err.code != "not-found":
                diags.append(err.diagnostic(level="warning"))
            continue
        by = {e.name: e for e in entries}
        if rel_dir and ("pyvenv.cfg" in by or os.path.lexists(os.path.join(root, rel_dir, ".git"))):
            continue  # a nested repository (Gemini's walk stops at its .git) or a virtual environment
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            head = name.split("/", 1)[0]
            e = by.get(head)
            if e is None:
                continue
            if "/" in name:
                if e.type != "dir" or not Path(root, rel).is_file() or Path(root, rel).is_symlink():
                    continue
            elif e.type == "link":
                # the link decision is the module's own (followed inside the project, not yielded
                # without a targets mapping); the reference checks the walk around it
                from wskit_gemini.memory import _inside_target

                _inside_target(root, os.path.join(root, rel), diags)
                continue
            elif e.type != "file":
                continue  # Gemini skips a folder named like the context file silently
            yield rel_dir, rel, name
        if settings.max_depth is not None and depth >= settings.max_depth:
            continue
        for e in reversed(entries):
            if e.type == "dir" and e.name not in skip and e.name != GEMINI_DIR:
                stack.append((f"{rel_dir}/{e.name}" if rel_dir else e.name, depth + 1))
