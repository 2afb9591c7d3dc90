"""wskit-gemini uses only public wskit APIs and keeps its import cheap."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import wskit_gemini

PKG = Path(wskit_gemini.__file__).resolve().parent


def test_no_private_wskit_names_are_used():
    offenders = []
    for path in sorted(PKG.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wskit"):
                parts = node.module.split(".")
                names = [a.name for a in node.names]
                if any(p.startswith("_") for p in parts) or any(n.startswith("_") for n in names):
                    offenders.append(f"{path.name}:{node.lineno} from {node.module} import {names}")
            elif isinstance(node, ast.Import):
                offenders += [f"{path.name}:{node.lineno} import {a.name}" for a in node.names
                              if a.name.startswith("wskit.") and any(p.startswith("_") for p in a.name.split("."))]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                offenders.append(f"{path.name}:{node.lineno} ._{node.attr[1:]}")
    assert not offenders, offenders


def test_hook_implementations_are_exactly_public_hookspecs():
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, builtins=False, env={})
    pm.register_checked(wskit_gemini, "gemini")  # raises for an unknown hook or argument
    hooks = sorted(c.name for c in pm.get_hookcallers(wskit_gemini))
    assert hooks == ["wskit_discover_rules", "wskit_expand_command", "wskit_load_commands", "wskit_plugin_bundles",
                     "wskit_register_commands", "wskit_resource_kinds", "wskit_resource_sources",
                     "wskit_trust_decision"]


def test_importing_the_plugin_loads_none_of_its_submodules():
    code = ("import sys, json, wskit_gemini; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('wskit_gemini', 'wskit.builtin_plugins.rules', 'json5')))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["wskit_gemini"]
