"""The per-tool-call forms (``wsctl hooks run EVENT``, ``wsctl permissions check TOOL
INPUT``) import what a hook needs only when a hook needs it: no pydantic (the session
state models), no ``http.client``/``ssl`` without an HTTP hook, no ``subprocess`` without
a command hook, no thread pool, no approval store without hooks, no MCP/LSP service
module (docs/performance.md, "Start-up of the per-tool-call forms")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import atexit, json, sys
sys.argv = ["wsctl"] + sys.argv[1:]
atexit.register(lambda: print("\\n" + json.dumps(sorted(sys.modules))))
from wskit._console import main
sys.exit(main())
"""

#: modules none of which an idle run imports
HEAVY = ("pydantic", "http.client", "ssl", "email", "socket", "subprocess", "concurrent.futures", "asyncio",
         "anyio", "uuid", "wskit.approval", "wskit.session.state", "wskit_mcp.service", "wskit_lsp.service",
         "wskit.builtin_plugins.hooks.conditions")


def _modules(home, cwd, *argv: str) -> tuple[str, set[str]]:
    args = [sys.executable, "-c", _PROBE, "--home", str(home), "--json", *argv]
    # the first run reads the entry points into the home's cache (importlib.metadata, email…)
    subprocess.run(args, cwd=cwd, input="{}", capture_output=True, text=True, timeout=120)
    out = subprocess.run(args, cwd=cwd, input="{}", capture_output=True, text=True, timeout=120)
    text, _, last = out.stdout.rstrip().rpartition("\n")
    return text, set(json.loads(last))


@pytest.fixture()
def empty(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return home, ws


@pytest.mark.parametrize("argv", [("hooks", "run", "PreToolUse"), ("hooks", "run", "PreToolUse", "--tool", "Bash"),
                                  ("permissions", "check", "Bash", "ls")])
def test_an_empty_project_imports_nothing_a_hook_would_need(empty, argv):
    home, ws = empty
    text, mods = _modules(home, ws, *argv)
    assert json.loads(text)  # it answered
    assert not [m for m in HEAVY if m in mods]


#: standard modules none of the three P4 forms needs in an empty project: locks come from
#: ``_thread``, weak references from ``_weakref``, ``copy`` only when a value is copied, and the
#: entry points from the cache (a second run), not ``importlib.metadata``
STDLIB_IDLE = ("threading", "weakref", "_weakrefset", "copy", "importlib.metadata", "zipfile")


@pytest.mark.parametrize("argv", [("inspect",), ("hooks", "run", "PreToolUse"), ("permissions", "check", "Bash", "ls")])
def test_the_p4_forms_import_no_threading_weakref_or_copy(empty, argv):
    home, ws = empty
    text, mods = _modules(home, ws, *argv, str(ws))
    assert json.loads(text)  # it answered
    assert [m for m in STDLIB_IDLE if m in mods] == []


#: modules the P4 forms of an empty project do without, by form (docs/performance.md, "Eighth pass")
P4_IDLE = {
    # no permission rule: the mode decides without the rule engine; no ``>``: no shell parser
    ("permissions", "check", "Bash", "ls"): ("wskit.builtin_plugins.permissions.rules", "wskit.formats.shell"),
    # no hook: no loader of hook definitions, no matcher engine, no command runner, no private
    # bytecode folder (each imported when the first hook needs it)
    ("hooks", "run", "PreToolUse"): ("wskit.builtin_plugins.hooks.definitions", "wskit.formats.definitions",
                                     "wskit.formats.placeholders", "wskit.builtin_plugins.hooks.patterns",
                                     "wskit.builtin_plugins.hooks.command", "wskit.util.bytecode"),
}


@pytest.mark.parametrize("argv", list(P4_IDLE))
def test_the_p4_forms_of_an_empty_project_import_none_of_their_idle_modules(empty, argv):
    home, ws = empty
    text, mods = _modules(home, ws, *argv, str(ws))
    assert json.loads(text)  # it answered
    assert [m for m in P4_IDLE[argv] if m in mods] == []


def test_a_command_hook_still_reads_its_output_through_threads(empty):
    """The output readers are run by threads made when the command runs (``threading`` is
    imported then, not at start-up); output beyond the cap is read and dropped."""
    from wskit.builtin_plugins.hooks.command import run_command

    res = run_command("head -c 300000 /dev/zero; echo err >&2", b"x" * 10, cwd=str(empty[1]), env={"PATH": "/usr/bin:/bin"},
                      timeout=30, output_cap=1000)
    assert (res.exit_code, len(res.stdout), res.stdout_truncated, res.stderr, res.stderr_truncated) == (
        0, 1000, True, "err\n", False)


def _user_hooks(home, *hooks: dict) -> None:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": list(hooks)}]}}))


def test_a_command_hook_imports_subprocess_and_no_http(empty):
    home, ws = empty
    _user_hooks(home, {"type": "command", "command": "true"})
    text, mods = _modules(home, ws, "hooks", "run", "PreToolUse", "--tool", "Bash")
    assert [r["status"] for r in json.loads(text)["results"]] == ["success"]
    assert "subprocess" in mods
    assert not {"http.client", "ssl", "pydantic"} & mods


def test_an_http_hook_imports_the_http_client(empty):
    home, ws = empty
    _user_hooks(home, {"type": "http", "url": "https://127.0.0.1:9/hook"})  # loopback: refused, nothing sent
    text, mods = _modules(home, ws, "hooks", "run", "PreToolUse", "--tool", "Bash")
    [result] = json.loads(text)["results"]
    assert result["status"] == "refused" and "loopback" in result["message"]
    assert {"http.client", "ssl"} <= mods
    assert "subprocess" not in mods


def test_the_state_models_are_the_same_classes_through_the_package():
    import wskit.session as session
    from wskit.session import state

    assert session.SessionState is state.SessionState
    assert session.ResourceRef is state.ResourceRef and session.WorkspaceRef is state.WorkspaceRef
    with pytest.raises(AttributeError):
        session.NoSuchName  # noqa: B018


def test_session_ids_are_uuid4_hex(tmp_path):
    import uuid

    from wskit.session import _new_session_id

    ids = {_new_session_id() for _ in range(200)}
    assert len(ids) == 200
    for h in ids:
        u = uuid.UUID(hex=h)
        assert (u.version, u.variant, u.hex) == (4, uuid.RFC_4122, h)
