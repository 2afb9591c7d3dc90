"""pyproject.toml's package list is the set of folders that hold an ``__init__.py``:
a new package that is not listed would be left out of the wheel (and work only from a
checkout), a listed one that is gone would break the build."""

from __future__ import annotations

import tomllib

from tests.layers import REPO, ROOTS


def test_package_list_matches_the_folders() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    dirs = config["tool"]["setuptools"]["package-dir"]
    assert {name: REPO / path for name, path in dirs.items()} == ROOTS
    found = set()
    for name, root in ROOTS.items():
        for init in root.rglob("__init__.py"):
            found.add(".".join((name, *init.parent.relative_to(root).parts)))
    assert listed == found
