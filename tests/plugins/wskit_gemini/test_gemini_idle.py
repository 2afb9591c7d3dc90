"""wskit-gemini's idle declarations (``wskit.util.deferred``, as the built-ins declare theirs):
TOML commands are read only where a ``.gemini`` folder has a ``commands`` entry, extensions
only where the home or the project has ``.gemini/extensions`` (or ``.gemini`` is a link).
Each declaration is exact — wherever it says "nothing there" the reader itself answers
nothing — and a workspace without either imports neither reader."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

from wskit.models import LoadResult, ResourceSource
from wskit_gemini import _toml_commands_present, extensions_present
from wskit_gemini.commands import load_toml_commands
from wskit_gemini.extensions import find_extensions

#: what stands at ``.gemini`` and below it, one layout per entry
_LAYOUTS = ("absent", "file", "empty-dir", "other-entries", "sub-file", "sub-empty", "sub-item", "sub-link",
            "link-to-dir", "dangling-link", "link-to-file")


def _make(base: Path, layout: str, sub: str, item: dict[str, str]) -> None:
    """``base/.gemini`` laid out as ``layout``, ``sub`` (``commands``/``extensions``) the folder
    the reader looks in, ``item`` what a real entry of it holds (relative path -> text)."""
    base.mkdir(parents=True, exist_ok=True)
    g = base / ".gemini"
    if layout == "absent":
        return
    if layout == "file":
        g.write_text("x")
        return
    if layout in ("link-to-dir", "dangling-link", "link-to-file"):
        target = base / "elsewhere"
        if layout == "link-to-dir":
            for rel, text in item.items():
                (target / sub / rel).parent.mkdir(parents=True, exist_ok=True)
                (target / sub / rel).write_text(text)
        elif layout == "link-to-file":
            target.write_text("x")
        g.symlink_to(target)
        return
    g.mkdir()
    if layout == "other-entries":
        (g / "settings.json").write_text("{}")
        (g / "skills").mkdir()
    elif layout == "sub-file":
        (g / sub).write_text("x")
    elif layout == "sub-empty":
        (g / sub).mkdir()
    elif layout == "sub-item":
        for rel, text in item.items():
            (g / sub / rel).parent.mkdir(parents=True, exist_ok=True)
            (g / sub / rel).write_text(text)
    elif layout == "sub-link":
        (base / "far").mkdir(exist_ok=True)
        (g / sub).symlink_to(base / "far")


_EXTENSION = {"demo/gemini-extension.json": json.dumps({"name": "demo", "version": "1.0.0"})}
_COMMAND = {"hi.toml": 'prompt = "hello"\n'}


def test_the_extensions_declaration_is_exact(tmp_path):
    for n, (home_layout, project_layout) in enumerate(itertools.product(_LAYOUTS, (*_LAYOUTS, None))):
        home, project = tmp_path / f"{n}" / "home", tmp_path / f"{n}" / "project"
        _make(home, home_layout, "extensions", _EXTENSION)
        if project_layout is not None:
            _make(project, project_layout, "extensions", _EXTENSION)
        root = project if project_layout is not None else None
        found = find_extensions(home, root)
        if not extensions_present(home, root):
            assert found == ([], []), (home_layout, project_layout)
    # and it is not idle where an extension is found
    assert extensions_present(tmp_path / "0" / "home", None) is False
    home = tmp_path / "x" / "home"
    _make(home, "sub-item", "extensions", _EXTENSION)
    assert extensions_present(home, None) and [e.name for e in find_extensions(home, None)[0]] == ["demo"]


def test_the_toml_commands_declaration_is_exact(tmp_path):
    for n, (layout, scope) in enumerate(itertools.product(_LAYOUTS, ("user", "project"))):
        base = tmp_path / f"{n}"
        _make(base, layout, "commands", _COMMAND)
        source = ResourceSource(scope=scope, root=str(base / ".gemini"), base=str(base), follow_links=scope == "user",
                                kinds=frozenset({"skill", "command", "agent"}))
        got = load_toml_commands(source)
        if not _toml_commands_present(source):
            assert got == LoadResult(), (layout, scope)
        elif layout == "sub-item":
            assert [c.name for c in got.resources] == ["hi"]


def test_a_workspace_without_gemini_folders_imports_no_gemini_reader(tmp_path):
    """An empty trusted project with a fresh home: neither the TOML command reader nor the
    extension reader (nor the TOML parser they use) is imported; with a ``.gemini/commands``
    folder and an extension, both are and both answer."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".git").mkdir(parents=True)
    home.mkdir()
    from wskit.trust import TrustStore

    TrustStore.for_home(home).grant(ws)
    probe = ("import atexit, json, sys; sys.argv = ['wsctl'] + sys.argv[1:];"
             "atexit.register(lambda: print(json.dumps(sorted(sys.modules))));"
             "from wskit._console import main; sys.exit(main())")

    def run() -> tuple[set[str], list[str], list[str]]:
        out = subprocess.run([sys.executable, "-c", probe, "--home", str(home), "--json", "inspect", str(ws)],
                             capture_output=True, text=True, timeout=120, cwd=ws, stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr
        text, _, last = out.stdout.rstrip().rpartition("\n")
        ids = [r["id"] for r in json.loads(text)["resources"]]
        return (set(json.loads(last)), [i for i in ids if i.endswith(":hi")],
                [i for i in ids if i.startswith("plugin:demo")])

    mods, commands, exts = run()
    assert commands == [] and exts == []
    assert not {"wskit_gemini.commands", "wskit_gemini.extensions", "wskit.fs.tomlsafe"} & mods
    _make(ws, "sub-item", "commands", _COMMAND)
    _make(home, "sub-item", "extensions", _EXTENSION)
    mods, commands, exts = run()
    assert {"wskit_gemini.commands", "wskit_gemini.extensions"} <= mods
    assert commands and exts, (commands, exts)
