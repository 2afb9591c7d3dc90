"""wskit.util.lazyre: module-level patterns compiled on first use, not at start-up."""

from __future__ import annotations

import re
import subprocess
import sys

from wskit.util.lazyre import LazyPattern, lazy_pattern


def test_compiles_once_and_rebinds_the_module_name() -> None:
    ns: dict = {}
    ns["_P"] = p = lazy_pattern(ns, "_P", r"a(b+)", re.I)
    assert isinstance(p, LazyPattern) and p._compiled is None
    assert p.match("ABB").group(1) == "BB"
    assert isinstance(ns["_P"], re.Pattern) and ns["_P"] is p.compiled() is re.compile(r"a(b+)", re.I)
    assert p.pattern == "a(b+)" and p.flags == re.I and p.sub("x", "abz") == "xz"


def test_a_copied_name_is_left_alone() -> None:
    ns: dict = {}
    p = lazy_pattern(ns, "_P", "x")
    ns["_P"] = "other"
    assert p.fullmatch("x") and ns["_P"] == "other"


def test_importing_wskit_modules_compiles_none_of_their_lazy_patterns() -> None:
    code = ("import re, sys\n"
            "import wskit.host, wskit.builtin_plugins.commands.loader, wskit.fs.jsonsafe, wskit.formats.placeholders, wskit.builtin_plugins.hooks.definitions\n"
            "import wskit.builtin_plugins.rules.imports, wskit.builtin_plugins.rules.gitignore, wskit.builtin_plugins.rules.plans, wskit.builtin_plugins.rules.catalog\n"
            "import wskit_gemini.extensions, wskit_gemini.commands\n"
            "from wskit.util.lazyre import LazyPattern\n"
            "mods = [m for n, m in sys.modules.items() if n.startswith(('wskit', 'wskit_gemini'))]\n"
            "print(sum(isinstance(v, LazyPattern) for m in mods for v in vars(m).values()))\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert int(out.stdout) >= 14



def test_a_source_given_as_a_function_is_built_once_when_needed() -> None:
    calls = []
    ns: dict = {}
    ns["_P"] = p = lazy_pattern(ns, "_P", lambda: calls.append(1) or "x+", re.I)
    assert calls == []  # nothing built at definition
    assert p.fullmatch("XX") and p.pattern == "x+" and calls == [1]
    assert isinstance(ns["_P"], re.Pattern) and ns["_P"].pattern == "x+"
