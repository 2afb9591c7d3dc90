"""The import graph of ``wskit`` and ``wskit.builtin_plugins``, read from the source
with :mod:`ast` (nothing is imported), for the layer tests.

An edge ``a -> b`` means that running ``a`` can import ``b``: every ``import`` and
``from … import`` anywhere in ``a`` (module level or inside a function), except those
under ``if TYPE_CHECKING:``. Importing ``p.q.r`` also runs the packages ``p`` and
``p.q``, so those are edges too (unless ``a`` lies inside them).
"""

from __future__ import annotations

import ast
import functools
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"wskit": REPO / "core", "wskit.builtin_plugins": REPO / "builtin_plugins"}
BUILTIN = "wskit.builtin_plugins"

__all__ = ["ADAPTER_FRAMEWORKS", "BUILTIN", "Edge", "ROOTS", "capability_of", "edges", "extra_missing", "modules", "parsed", "strongly_connected"]


@dataclass(frozen=True)
class Edge:
    """One import: ``importer`` imports ``imported`` at ``line`` (``names``: what it takes)."""

    importer: str
    imported: str
    line: int
    names: tuple[str, ...] = ()


def modules() -> dict[str, Path]:
    """Every module of both packages by dotted name (a fresh dict; the walk is done once)."""
    return dict(_modules())


@functools.cache
def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for name, root in ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((name, *parts))] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The syntax tree of ``path``, parsed once per test run (the layer tests read each module
    several times)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(path: Path, module: str, known: dict[str, Path]) -> list[Edge]:
    tree = parsed(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: list[Edge] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit_one(stmt)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Edge(module, alias.name, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            plain = []
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    found.append(Edge(module, full, node.lineno))
                else:
                    plain.append(alias.name)
            if plain:
                found.append(Edge(module, base, node.lineno, tuple(plain)))
        visit(node)

    visit(tree)
    return found


def edges() -> list[Edge]:
    """Every runtime import between modules of the two packages, packages run included (a fresh
    list; the graph is read once)."""
    return list(_edges())


@functools.cache
def _edges() -> tuple[Edge, ...]:
    known = _modules()
    out: list[Edge] = []
    for module, path in known.items():
        for edge in _imports(path, module, known):
            parts = edge.imported.split(".")
            for i in range(1, len(parts) + 1):
                target = ".".join(parts[:i])
                if target in known and target != module and not module.startswith(target + "."):
                    out.append(Edge(module, target, edge.line, edge.names if i == len(parts) else ()))
    return tuple(out)


def strongly_connected(edge_list: list[Edge]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for e in edge_list:
        graph.setdefault(e.importer, set()).add(e.imported)
        graph.setdefault(e.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return comps


#: built-in modules that belong to a capability package without living in it (their
#: dotted path is registered in DEFAULT_PLUGINS and never changes)
_COMPANIONS = {f"{BUILTIN}.admin_skills": "skills"}


def capability_of(module: str) -> str | None:
    """The built-in capability a module belongs to (``skills``, ``rules``…), None for core."""
    if module in _COMPANIONS:
        return _COMPANIONS[module]
    if not module.startswith(BUILTIN + "."):
        return None
    return module[len(BUILTIN) + 1:].split(".")[0]


#: the framework each adapter of :mod:`wskit.integrations` imports (an optional extra)
ADAPTER_FRAMEWORKS = {"wskit.integrations.pydantic_ai": "pydantic_ai", "wskit.integrations.openai_agents": "agents",
                      "wskit.integrations.langchain": "langchain"}


def extra_missing(module: str) -> bool:
    """``module`` is an adapter whose framework (its extra) is not installed here: a contributor
    who installed only ``.[test]`` cannot import it, and that is not a fault of the module."""
    import importlib.util

    framework = ADAPTER_FRAMEWORKS.get(module)
    return framework is not None and importlib.util.find_spec(framework) is None
