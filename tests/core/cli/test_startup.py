"""What ``wsctl`` imports at start-up, where every import costs time: checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_PROBE = """
import io, sys
from wskit.cli import main
out, sys.stdout = sys.stdout, io.StringIO()
try:
    rc = main(sys.argv[1:])
finally:
    sys.stdout = out
mods = sorted(sys.modules)
import json
print(json.dumps({"rc": rc, "modules": mods}))
"""


def _modules_after(*argv: str) -> tuple[int, set[str]]:
    out = subprocess.run([sys.executable, "-c", _PROBE, *argv], check=True, capture_output=True, text=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["rc"], set(data["modules"])


def _baseline() -> set[str]:
    code = "import sys, click; mods = sorted(sys.modules); import json; print(json.dumps(mods))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return set(json.loads(out.stdout))


def test_version_imports_nothing_but_click() -> None:
    rc, mods = _modules_after("--version")
    assert rc == 0
    extra = {m for m in mods - _baseline() if not m.startswith("encodings.")}
    # wskit's click application with its click-free runtime and error modules:
    # the command's context (and pathlib with it) is imported when a sub-command runs, not to
    # print the version
    assert {m for m in extra if m.startswith("wskit")} == {
        "wskit", "wskit.cli", "wskit.cli.app", "wskit.cli.plain", "wskit.cli.failures"}
    assert "pathlib" not in extra  # (an editable install's path finder may import it at start)
    heavy = {"pydantic", "pluggy", "yaml", "json", "asyncio", "filelock", "tomli_w", "wskit.models"}
    assert not heavy & mods


def test_read_only_inspect_skips_async_and_session_machinery(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    rc, mods = _modules_after("--home", str(tmp_path / "home"), "--json", "inspect", str(ws))
    assert rc == 0
    assert "wskit.cache" in mods  # it did resolve the workspace
    assert not {"asyncio", "wskit.session", "concurrent.futures", "logging"} & mods


def test_cache_and_trust_import_no_write_or_async_machinery() -> None:
    """The trust store needs filelock/tomli_w only to write, the cache asyncio only
    for its async API: importing them (every resolve does) must not pay for those."""
    code = ("import sys, wskit.cache, wskit.trust, wskit.workspace; "
            "print(sorted({'asyncio', 'filelock', 'tomli_w'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_plugin_manager_is_built_once_per_run(tmp_path: Path, monkeypatch) -> None:
    import wskit.plugin.manager as manager
    from wskit.cli import main

    calls = []
    real = manager.make_plugin_manager

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(manager, "make_plugin_manager", counting)
    ws = tmp_path / "ws"
    ws.mkdir()
    assert main(["--home", str(tmp_path / "home"), "--json", "inspect", str(ws)]) == 0
    assert len(calls) == 1


#: imported only where a file needs them, so start-up does not pay: PyYAML and the markdown
#: reader for frontmatter, pathspec for a .gitignore, json5 for Gemini settings,
#: subprocess for a shell injection, the resource model classes for a resource
_LAZY_ON_EMPTY = {
    "yaml", "pathspec", "json5", "subprocess", "wskit.formats.frontmatter", "wskit.formats.flatyaml", "wskit.builtin_plugins.skills.tools",
    "wskit.resources.skill", "wskit.resources.agent", "wskit.resources.command", "wskit.resources.style",
    "wskit.resources.markdown",
    "wskit.resources.servers", "wskit.resources.hooks", "wskit.builtin_plugins.hooks.trust",
    # and the skill runtime, shell expansion, marketplaces, the Gemini
    # extension model, thread futures and logging (plugin metadata is read by importlib.metadata,
    # which parses it with the email package)
    "wskit.builtin_plugins.skills.runtime", "wskit.builtin_plugins.commands.expand", "shlex", "wskit.builtin_plugins.bundles.marketplace", "wskit_gemini.resource",
    "wskit_gemini.expansion", "concurrent.futures", "logging",
    "wskit.resources.rule", "wskit.builtin_plugins.rules.patterns", "wskit.builtin_plugins.rules.imports",
    # permission rules: the policy of a workspace without any is built without them
    "wskit.builtin_plugins.permissions.rules",
}


def _workspace(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return ws


def test_empty_workspace_inspect_skips_parsers_and_resource_models(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "ws")
    home = tmp_path / "home"
    from wskit.cli import main

    assert main(["--home", str(home), "trust", "grant", str(ws)]) == 0  # project sources are read too
    rc, mods = _modules_after("--home", str(home), "--json", "inspect", str(ws))
    assert rc == 0 and "wskit.builtin_plugins.rules.walk" in mods  # the project was walked for rule files
    assert not _LAZY_ON_EMPTY & mods


def test_workspace_with_files_imports_what_it_parses(tmp_path: Path) -> None:
    """The other side of the lazy imports: once files exist, the same run loads them."""
    ws = _workspace(tmp_path, "ws")
    (ws / ".gitignore").write_text("build/\n**/tmp/\n")  # ** is pathspec's (a plain file is not)
    skill = ws / ".claude" / "skills" / "demo"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: A demo skill.\n---\nBody.\n")
    (ws / ".claude" / "agents").mkdir()
    (ws / ".claude" / "agents" / "helper.md").write_text("---\nname: helper\ndescription: Helps.\n---\nPrompt.\n")
    (ws / ".mcp.json").write_text('{"mcpServers": {"srv": {"command": "run-srv"}}}')
    home = tmp_path / "home"
    from wskit.cli import main

    assert main(["--home", str(home), "trust", "grant", str(ws)]) == 0
    rc, mods = _modules_after("--home", str(home), "--json", "inspect", str(ws))
    assert rc == 0
    assert {"yaml", "pathspec", "wskit.formats.frontmatter", "wskit.resources.skill", "wskit.resources.agent",
            "wskit.resources.servers"} <= mods
    (ws / "AGENTS.md").write_text("Be brief.\n")
    rc, mods = _modules_after("--home", str(home), "--json", "inspect", str(ws))
    assert rc == 0 and "wskit.resources.rule" in mods


#: the command modules; an empty ``inspect`` imports only its own (wskit.cli.lazy)
_COMMAND_MODULES = {
    "wskit.cli.plugins", "wskit.cli.session", "wskit.builtin_plugins.bundles.cli", "wskit.builtin_plugins.workspaces.cli", "wskit.builtin_plugins.skills.cli",
    "wskit.builtin_plugins.hooks.cli", "wskit.builtin_plugins.rules.cli", "wskit.builtin_plugins.trust.cli", "wskit.builtin_plugins.styles.cli", "wskit.kit.markdown_cli",
    "wskit.builtin_plugins.commands.cli", "wskit.builtin_plugins.hooks.cli", "wskit.cli.session", "wskit_gemini.cli", "wskit_mcp.cli", "wskit_lsp.cli",
}


def test_inspect_imports_no_other_command_module(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "ws")
    rc, mods = _modules_after("--home", str(tmp_path / "home"), "--json", "inspect", str(ws))
    assert rc == 0 and "wskit.cli.inspect" in mods
    assert not _COMMAND_MODULES & mods


def test_help_lists_every_command_and_imports_none() -> None:
    code = "import sys; from wskit.cli import main; sys.exit(main(['--help']))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    listed = {line.split()[0] for line in out.stdout.split("Commands:")[1].splitlines() if line.strip()}
    assert {"inspect", "plugins", "snapshot", "trust", "skills", "mcp", "lsp", "hooks", "session", "rules",
            "styles", "agents", "commands", "marketplace", "workspace", "worktree", "ref", "gemini"} <= listed
    rc, mods = _modules_after("--help")
    assert rc == 0
    assert not (_COMMAND_MODULES | {"wskit.cli.inspect"}) & mods



_GC_PROBE = """
import gc, io, json, os, sys
import wskit.cli as cli
calls = []
real_freeze = gc.freeze
gc.freeze = lambda: (calls.append(gc.isenabled()), real_freeze())[1]
out, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # UTF-8: the dispatcher answers
try:
    mode = os.environ["PROBE_MODE"]
    if mode == "console":  # the console script: wskit._console -> wskit.cli.fast.main()
        from wskit._console import main
        sys.argv = ["wsctl", *sys.argv[1:]]
        rc = main()
    else:  # the click application, on this process's command line ("click") or given argv
        rc = cli.main(None if mode == "click" else sys.argv[1:])
finally:
    sys.stdout = out
print(json.dumps({"rc": rc, "freeze_calls": calls, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _gc_run(mode: str, *argv: str) -> dict:
    import os

    out = subprocess.run([sys.executable, "-c", _GC_PROBE, *argv], check=True, capture_output=True, text=True,
                         env={**os.environ, "PROBE_MODE": mode})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_console_run_freezes_start_up_objects_once_and_resumes_the_collector(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "ws")
    got = _gc_run("console", "--home", str(tmp_path / "home"), "--json", "inspect", str(ws))
    # frozen while the collector was paused, then resumed for the command; what the load
    # made frozen when the load's pause ends, before the collector resumes (gc_paused), and
    # once more when the command has its workspace (gcpause.loaded)
    assert got["rc"] == 0 and got["freeze_calls"] == [False, False, True] and got["enabled"] is True \
        and got["frozen"] > 0


def test_in_process_callers_keep_the_collector_as_it_was(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "ws")
    got = _gc_run("args", "--home", str(tmp_path / "home"), "--json", "inspect", str(ws))
    assert got == {"rc": 0, "freeze_calls": [], "enabled": True, "frozen": 0}


def test_the_click_path_runs_with_the_collector_as_it_found_it(tmp_path: Path) -> None:
    """Only the per-turn dispatcher pauses and freezes: click's path (help, errors, the rare
    commands) is not tuned for start-up time, also on this process's own command line."""
    ws = _workspace(tmp_path, "ws")
    got = _gc_run("click", "--home", str(tmp_path / "home"), "--json", "inspect", str(ws))
    assert got == {"rc": 0, "freeze_calls": [], "enabled": True, "frozen": 0}


def test_console_version_and_usage_errors_resume_the_collector_without_freezing() -> None:
    assert _gc_run("console", "--version") == {"rc": 0, "freeze_calls": [], "enabled": True, "frozen": 0}
    got = _gc_run("console", "no-such-command")
    assert got["rc"] == 2 and got["enabled"] is True


#: standard-library modules a read-only start-up does not need (issue 19 item 3):
#: ``secrets``/``hmac`` (temp-file names come from ``os.urandom``), ``tomllib`` (a TOML
#: file is parsed only when one exists), ``tempfile``/``shutil`` (installs only),
#: ``hashlib`` (loads OpenSSL; only when something is hashed), ``importlib.metadata``
#: (the entry points come from the per-environment cache once it is written)
_DEFERRED_STDLIB = {"secrets", "hmac", "tomllib", "tempfile", "shutil", "hashlib", "_hashlib",
                    "importlib.metadata", "email", "pydantic"}


def test_empty_inspect_imports_no_deferred_stdlib_module(tmp_path: Path) -> None:
    ws = tmp_path / "empty"
    ws.mkdir()
    home = tmp_path / "home"
    _modules_after("--home", str(home), "--json", "inspect", str(ws))  # writes the entry-point cache
    rc, mods = _modules_after("--home", str(home), "--json", "inspect", str(ws))
    assert rc == 0
    assert not _DEFERRED_STDLIB & mods, sorted(_DEFERRED_STDLIB & mods)
    # the value types of the path are plain classes (wskit.values): a dataclass would
    # import dataclasses and compile its methods at every start
    assert "dataclasses" not in mods


def test_rules_for_a_file_imports_no_deferred_stdlib_module_but_hashlib(tmp_path: Path) -> None:
    """``rules --for`` hashes rule ids once a rule file exists; nothing else deferred loads."""
    ws = _workspace(tmp_path, "ws")
    (ws / "a" / "b").mkdir(parents=True)
    target = ws / "a" / "b" / "f.py"
    target.write_text("x\n")
    (ws / "AGENTS.md").write_text("root rule\n")
    # a path-scoped rule with flat frontmatter: read without PyYAML (wskit.formats.flatyaml)
    (ws / ".claude" / "rules").mkdir(parents=True)
    (ws / ".claude" / "rules" / "py.md").write_text('---\npaths:\n  - "**/*.py"\n---\nPython rule\n')
    home = tmp_path / "home"
    from wskit.cli import main

    assert main(["--home", str(home), "trust", "grant", str(ws)]) == 0
    _modules_after("--home", str(home), "--json", "rules", "--for", str(target), str(ws))
    rc, mods = _modules_after("--home", str(home), "--json", "rules", "--for", str(target), str(ws))
    assert rc == 0
    assert not (_DEFERRED_STDLIB - {"hashlib", "_hashlib", "tomllib"}) & mods, sorted(_DEFERRED_STDLIB & mods)
    assert not {"yaml", "wskit.formats.yaml"} & mods
    assert "wskit.formats.frontmatter" in mods  # the rule's frontmatter was read


_CONSOLE_PROBE = """
import gc, json, sys
seen = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            seen.append(gc.isenabled())
        return None
sys.meta_path.insert(0, Spy())
sys.argv = ["wsctl", "--version"]
from wskit._console import main
rc = main()
print(json.dumps({"rc": rc, "click_imported_with_gc": seen, "enabled": gc.isenabled()}))
"""


def test_console_script_hands_version_to_click_with_the_collector_on() -> None:
    """``wsctl --version`` is not a per-turn form: the console script hands it to click,
    imported with the collector on (nothing paused for it), and the run ends with it on."""
    out = subprocess.run([sys.executable, "-c", _CONSOLE_PROBE], check=True, capture_output=True, text=True)
    assert out.stdout.splitlines()[0].startswith("wsctl ")
    assert json.loads(out.stdout.splitlines()[-1]) == {"rc": 0, "click_imported_with_gc": [True], "enabled": True}


def test_console_script_entry_point_is_the_dispatcher_shim() -> None:
    import tomllib

    data = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    assert data["project"]["scripts"]["wsctl"] == "wskit._console:main"


def test_registering_the_builtins_imports_no_engine() -> None:
    """Issue 19 item 3: registering the built-in plugins imports their hook modules only —
    no loader, definitions, policy or discovery module (those come when a hook runs)."""
    code = (
        "import sys\n"
        "from wskit.plugin.manager import make_plugin_manager\n"
        "make_plugin_manager(load_entrypoints=False)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('wskit.builtin_plugins.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    from wskit.plugin.manager import DEFAULT_PLUGINS

    assert set(out) == {module for _, module in DEFAULT_PLUGINS}, sorted(set(out) - {m for _, m in DEFAULT_PLUGINS})
