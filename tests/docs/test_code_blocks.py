"""Every Python block of ``README.md`` and ``docs/**/*.md`` compiles, and what it imports
from wskit is public API that exists: a public module (``wskit.plugin.public``) and, for
``from M import N``, a name in M's ``__all__`` or a submodule of M.

A block is a fenced ```` ```python ```` (or ``py``) block, indented or not. The hook
reference's signature lines (``def wskit_x(...) -> T``, no body) are compiled as stubs.
Blocks meant to be read next to their surroundings (``session``, ``payload`` … defined
by the prose) are compiled, not run; the runnable examples under ``docs/examples/`` run in
their own tests.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from tests.layers import extra_missing
from wskit.plugin.public import is_public

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```|~~~)\s*(?:python3?|py)\s*$")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first line number, source)`` of each Python block of a markdown text."""
    lines = text.splitlines()
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = len(m.group("indent")), m.group("fence")
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            j += 1
        if j == len(lines):
            raise AssertionError(f"line {i + 1}: a Python block that is never closed")
        out.append((i + 2, "\n".join(line[indent:] for line in lines[i + 1:j]) + "\n"))
        i = j + 1
    return out


def _compilable(source: str) -> str:
    # a signature line of the hook reference: "def wskit_x(a: T) -> R" with no body
    stripped = source.strip()
    if stripped.startswith("def ") and "\n" not in stripped and not stripped.endswith(":"):
        return stripped + ": ...\n"
    return source


CASES = [pytest.param(page, line, source, id=f"{page.relative_to(REPO)}:{line}")
         for page in PAGES for line, source in python_blocks(page.read_text(encoding="utf-8"))]


def test_the_pages_have_python_blocks() -> None:
    # the finder reads what the pages hold: README's first example and the hook reference
    pages = {c.values[0].name for c in CASES}
    assert {"README.md", "hooks-reference.md", "integrating.md", "hooks.md"} <= pages
    assert len(CASES) > 50


def test_the_block_finder_reads_indented_and_unclosed_blocks() -> None:
    text = "intro\n\n  ```python\n  x = 1\n  ```\n\n```py\ndef f() -> int\n```\n"
    assert python_blocks(text) == [(4, "x = 1\n"), (8, "def f() -> int\n")]
    with pytest.raises(AssertionError, match="never closed"):
        python_blocks("```python\nx = 1\n")


@pytest.mark.parametrize(("page", "line", "source"), CASES)
def test_block_compiles(page: Path, line: int, source: str) -> None:
    compile(_compilable(source), f"{page}:{line}", "exec", dont_inherit=True)


def _wskit_imports(source: str) -> list[tuple[int, str, tuple[str, ...]]]:
    tree = ast.parse(_compilable(source))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, ()) for a in node.names if a.name.split(".")[0] == "wskit"]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "wskit":
            found.append((node.lineno, node.module, tuple(a.name for a in node.names)))
    return found


@pytest.mark.parametrize(("page", "line", "source"),
                         [c for c in CASES if _wskit_imports(c.values[2])])
def test_block_imports_only_public_names_that_exist(page: Path, line: int, source: str) -> None:
    bad = []
    for at, module, names in _wskit_imports(source):
        where = f"{page.name}:{line + at - 1}"
        if not is_public(module):
            bad.append(f"{where} imports internal module {module}")
            continue
        if extra_missing(module):
            continue  # an adapter whose framework is not installed here
        mod = importlib.import_module(module)
        for name in names:
            if hasattr(mod, "__path__") and importlib.util.find_spec(f"{module}.{name}"):
                continue  # a submodule
            if name not in getattr(mod, "__all__", ()):
                bad.append(f"{where} takes {name} from {module}, not in its __all__")
            elif not hasattr(mod, name):
                bad.append(f"{where} takes {name} from {module}, which has no such name")
    assert bad == []


def test_an_internal_import_is_caught() -> None:
    # what the test above reports, on a block written against internals
    block = "from wskit.builtin_plugins.rules.discovery import load_rule_file\nfrom wskit import nope\n"
    imports = _wskit_imports(block)
    assert [m for _, m, _ in imports if not is_public(m)] == ["wskit.builtin_plugins.rules.discovery"]
    assert "nope" not in importlib.import_module("wskit").__all__
