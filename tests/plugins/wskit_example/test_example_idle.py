"""wskit-example's prompt kind declares its idle form (``wskit.util.deferred``, as the built-in
markdown kinds do): a source without a ``prompts`` entry is not read. The declaration is
exact — wherever it says "nothing there" the kind's markdown loader answers nothing."""

from __future__ import annotations

import itertools

from wskit.models import LoadResult, ResourceSource
from wskit.util.deferred import folders_present
from wskit_example.prompts import PROMPT_FOLDERS, PROMPTS

_LAYOUTS = ("absent", "root-file", "empty-root", "other-entries", "sub-file", "sub-empty", "sub-item", "sub-link",
            "root-link", "dangling-root-link")


def _make(base, layout):
    """``base/.example`` laid out as ``layout``."""
    base.mkdir(parents=True, exist_ok=True)
    root = base / ".example"
    if layout == "absent":
        return root
    if layout == "root-file":
        root.write_text("x")
    elif layout in ("root-link", "dangling-root-link"):
        target = base / "elsewhere"
        if layout == "root-link":
            (target / "prompts").mkdir(parents=True)
            (target / "prompts" / "p.md").write_text("Say hi.\n")
        root.symlink_to(target)
    else:
        root.mkdir()
        if layout == "other-entries":
            (root / "skills").mkdir()
        elif layout == "sub-file":
            (root / "prompts").write_text("x")
        elif layout == "sub-empty":
            (root / "prompts").mkdir()
        elif layout == "sub-item":
            (root / "prompts").mkdir()
            (root / "prompts" / "p.md").write_text("Say hi.\n")
        elif layout == "sub-link":
            (base / "far").mkdir()
            (root / "prompts").symlink_to(base / "far")
    return root


def test_the_prompt_kind_declaration_is_exact(tmp_path):
    needs = folders_present(PROMPT_FOLDERS)
    seen_idle = seen_loaded = 0
    for n, (layout, scope) in enumerate(itertools.product(_LAYOUTS, ("user", "project"))):
        base = tmp_path / str(n)
        root = _make(base, layout)
        source = ResourceSource(scope=scope, root=str(root), base=str(base), follow_links=scope == "user")
        engine = PROMPTS.load_markdown(source)
        if not needs(source):
            seen_idle += 1
            assert engine == LoadResult(), (layout, scope)
            assert PROMPTS.load(source) == LoadResult()
        else:
            assert PROMPTS.load(source) == engine, (layout, scope)
            seen_loaded += bool(engine.resources)
    assert seen_idle and seen_loaded
