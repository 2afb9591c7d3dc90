"""The layering rule of docs/architecture.md, checked on the source:

- no runtime import cycle anywhere in ``wskit`` (``TYPE_CHECKING`` edges allowed);
- core (``wskit`` outside ``wskit.builtin_plugins``) never imports a built-in: the plugin
  manager names them as strings in ``DEFAULT_PLUGINS``;
- a built-in imports another capability only through that capability's package and the
  names in its ``__all__``;
- first-party plugins (``plugins/``) import only public names: modules whose path has no
  ``_`` component, names in the module's ``__all__``;
- public modules (``wskit.plugin.public``) have ``__all__`` and internal ones have none;
  the package ships ``py.typed``;
- core keeps at most twelve modules at its top level (``__main__`` aside).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util

from tests.layers import BUILTIN, REPO, capability_of, edges, extra_missing, modules, parsed, strongly_connected


def test_no_runtime_import_cycle() -> None:
    assert strongly_connected(edges()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    from tests.layers import Edge

    loop = [Edge("a", "b", 1), Edge("b", "c", 1), Edge("c", "a", 1), Edge("c", "d", 1)]
    assert strongly_connected(loop) == [["a", "b", "c"]]


def test_core_imports_no_builtin() -> None:
    bad = [f"{e.importer}:{e.line} imports {e.imported}" for e in edges()
           if capability_of(e.importer) is None and not e.importer.startswith(BUILTIN)
           and e.imported.startswith(BUILTIN)]
    assert bad == []


def test_builtin_plugins_holds_registered_plugins_only() -> None:
    # every package and top-level module of builtin_plugins/ is a registered built-in:
    # code no plugin registers (prompt assembly, model providers) lives in core
    from wskit.plugin.manager import DEFAULT_PLUGINS

    here = {p.stem if p.suffix else p.name for p in (REPO / "builtin_plugins").iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert here == {module.rsplit(".", 1)[1] for _, module in DEFAULT_PLUGINS}


def test_the_plugin_author_kit_sits_above_the_rest_of_core() -> None:
    # wskit.kit builds on kinds, formats and the CLI framework; core below it never imports it
    bad = [f"{e.importer}:{e.line} imports {e.imported}" for e in edges()
           if e.imported.startswith("wskit.kit") and not e.importer.startswith(("wskit.kit", BUILTIN))]
    assert bad == []


def test_builtins_meet_only_through_each_others_public_names() -> None:
    bad = []
    for e in edges():
        mine, theirs = capability_of(e.importer), capability_of(e.imported)
        if mine is None or theirs is None or mine == theirs:
            continue
        package = f"{BUILTIN}.{theirs}"
        if e.imported != package:
            bad.append(f"{e.importer}:{e.line} imports {e.imported} (not the {theirs} package)")
            continue
        public = set(importlib.import_module(package).__all__)
        bad += [f"{e.importer}:{e.line} takes {n} from {package}, not in its __all__"
                for n in e.names if n not in public]
    assert bad == []


def _plugin_sources():
    for path in sorted((REPO / "plugins").rglob("*.py")):
        rel = path.relative_to(REPO / "plugins").parts
        if "build" in rel or any(p.endswith(".egg-info") for p in rel):
            continue
        yield path


def test_first_party_plugins_import_only_public_names() -> None:
    bad = []
    for path in _plugin_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "wskit" and any(p.startswith("_") for p in alias.name.split(".")):
                        bad.append(f"{path.name}:{node.lineno} imports private module {alias.name}")
            elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "wskit":
                if any(p.startswith("_") for p in node.module.split(".")):
                    bad.append(f"{path.name}:{node.lineno} imports from private module {node.module}")
                    continue
                module = importlib.import_module(node.module)
                for alias in node.names:
                    if hasattr(module, "__path__") and importlib.util.find_spec(f"{node.module}.{alias.name}"):
                        continue  # a submodule
                    if alias.name not in getattr(module, "__all__", ()):
                        bad.append(f"{path.name}:{node.lineno} takes {alias.name} from {node.module}, not in its __all__")
    assert bad == []


def _declares_all(name: str) -> bool:
    tree = parsed(modules()[name])
    return any((isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets))
               or (isinstance(n, (ast.AnnAssign, ast.AugAssign)) and getattr(n.target, "id", None) == "__all__")
               for n in tree.body)


def test_all_marks_public_modules_only() -> None:
    # docs/architecture.md, "Public modules": a public module lists its API in __all__;
    # an internal module has none, so that nothing internal looks like API
    from wskit.plugin.public import is_public

    names = sorted(modules())
    assert [n for n in names if is_public(n) and not _declares_all(n)] == []  # public without __all__
    assert [n for n in names if not is_public(n) and _declares_all(n)] == []  # internal with __all__


def test_every_name_in_all_exists() -> None:
    missing = []
    for name in sorted(modules()):
        if name.endswith("__main__") or extra_missing(name) or not _declares_all(name):
            continue
        module = importlib.import_module(name)
        missing += [f"{name}.{n}" for n in module.__all__ if not hasattr(module, n)]
    assert missing == []


def test_package_ships_py_typed() -> None:
    assert (REPO / "core" / "py.typed").is_file()
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "py.typed" in text


def test_core_top_level_stays_small() -> None:
    top = sorted(p.stem for p in (REPO / "core").glob("*.py") if p.stem != "__main__")
    assert len(top) <= 12, top


def _plugin_wskit_imports():
    for path in _plugin_sources():
        rel = "/".join(path.relative_to(REPO / "plugins").parts[1:])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "wskit":
                yield rel, node.module
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "wskit":
                        yield rel, alias.name


def test_first_party_plugins_import_only_public_modules() -> None:
    from wskit.plugin.public import is_public

    found = sorted(f"{rel} imports {module}" for rel, module in _plugin_wskit_imports() if not is_public(module))
    assert found == []


def test_the_public_modules_exist_and_are_documented() -> None:
    from wskit.plugin.public import PUBLIC_MODULES, PUBLIC_PACKAGES

    for name in PUBLIC_MODULES | set(PUBLIC_PACKAGES):
        importlib.import_module(name)
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Public modules", 1)[1]
    assert [n for n in sorted(PUBLIC_MODULES | set(PUBLIC_PACKAGES)) if f"`{n}`" not in doc] == []
