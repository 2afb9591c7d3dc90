"""The per-turn dispatcher (:mod:`wskit.cli.fast`) against click (:func:`wskit.cli.main`):
every owned form, every fallback and every error gives byte-identical stdout, stderr and
exit status through both, and each argv is owned (or handed to click) as intended."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import wskit.cli.app as app
from wskit.cli import fast
from wskit.plugin.manager import make_plugin_manager


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A trusted project (rules, skills, hooks awaiting approval, permission rules), an
    untrusted one, a home, a payload file, a managed settings file."""
    for var in [v for v in os.environ if v.startswith("WSKIT_")]:
        monkeypatch.delenv(var)
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "AGENTS.md").write_text("# root rules\n")
    (ws / "src/deep").mkdir(parents=True)
    (ws / "src/AGENTS.md").write_text("src rules\n")
    (ws / "src/deep/a.py").write_text("x = 1\n")
    (ws / ".claude/rules").mkdir(parents=True)
    (ws / ".claude/rules/py.md").write_text("---\npaths: ['**/*.py']\n---\nPython rule\n")
    (ws / ".claude/rules/bad.md").write_text("---\npaths: [\n---\nbroken\n")
    (ws / ".claude/skills/demo").mkdir(parents=True)
    (ws / ".claude/skills/demo/SKILL.md").write_text("---\nname: demo\ndescription: A demo skill\n---\nbody\n")
    (ws / ".claude/skills/broken").mkdir(parents=True)
    (ws / ".claude/skills/broken/SKILL.md").write_text("no frontmatter\n")
    (ws / ".claude/settings.json").write_text(json.dumps({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]},
        "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Bash(rm:*)", "Read(./secret/**)"],
                        "ask": ["WebFetch"]}}))
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / "AGENTS.md").write_text("untrusted rules\n")
    (other / ".claude/skills/s").mkdir(parents=True)
    (other / ".claude/skills/s/SKILL.md").write_text("---\nname: s\ndescription: d\n---\nb\n")
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}))
    bad_payload = tmp_path / "bad.json"
    bad_payload.write_text("[1, 2")
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"permissions": {"deny": ["WebFetch"]}}))
    monkeypatch.chdir(ws)
    assert app.main(["--home", str(home), "trust", "grant", str(ws)]) == 0
    return {"home": str(home), "ws": str(ws), "other": str(other), "payload": str(payload),
            "bad_payload": str(bad_payload), "managed": str(managed), "tmp": str(tmp_path)}


def _both(argv: list[str], capsys, monkeypatch, home: str | None = None) -> bool:
    """Run ``argv`` through the dispatcher, then through click from the same state of the
    home (``home``: put back as it was, so a state file the first run rewrote — the rules
    index — is seen alike by the second); assert identical bytes and status; return whether
    the dispatcher answered it itself."""
    import shutil
    import tempfile

    saved = None
    if home is not None and os.path.isdir(home):
        saved = os.path.join(tempfile.mkdtemp(), "home")
        shutil.copytree(home, saved, symlinks=True)
    calls = []
    real = app.main

    def spy(argv=None, pm=None):
        calls.append(argv)
        return real(argv, pm=pm)

    capsys.readouterr()
    with monkeypatch.context() as mp:
        mp.setattr(app, "main", spy)
        rc_fast = fast.main(argv)
    got_fast = capsys.readouterr()
    if saved is not None:
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        shutil.rmtree(os.path.dirname(saved))
    rc_click = real(argv)
    got_click = capsys.readouterr()
    assert (rc_fast, got_fast.out, got_fast.err) == (rc_click, got_click.out, got_click.err), argv
    return not calls


def _owned_forms(t: dict) -> list[list[str]]:
    ws, other = t["ws"], t["other"]
    deep = os.path.join(ws, "src/deep/a.py")
    return [
        ["inspect", ws], ["--json", "inspect", ws], ["inspect", "--json", ws], ["inspect"], ["inspect", other],
        ["rules", ws], ["--json", "rules", "--for", deep, ws], ["rules", "--for", deep, "--for", "src/AGENTS.md"],
        ["rules", ws, "--shell"], ["rules", "--cwd", os.path.join(ws, "src"), ws, "--json"],
        ["rules", "--loaded", "x", "--budget", "10", ws, "--json"], ["rules", "--budget=0", "--for", deep],
        ["rules", "--for", "/elsewhere/f.py", ws], ["rules", other, "--for", os.path.join(other, "x")],
        ["skills", "list"], ["skills", "list", "--json", ws], ["--json", "skills", "list", other],
        ["hooks", "run", "PreToolUse", ws], ["--json", "hooks", "run", "PreToolUse", "--tool", "Bash"],
        ["hooks", "run", "PreToolUse", ws, "--payload", t["payload"], "--json"],
        ["hooks", "run", "Stop", other], ["hooks", "run", "PreToolUse", "--payload", t["bad_payload"]],
        ["hooks", "run", "PreToolUse", "--payload", os.path.join(t["tmp"], "missing.json")],
        ["permissions", "check", "Bash", "ls -la", ws], ["--json", "permissions", "check", "Bash", "rm -rf x"],
        ["permissions", "check", "WebFetch", "https://example.com"], ["permissions", "check", "Bash", "ls"],
        ["permissions", "check", "Read", "secret/key", ws, "--json"],
        ["permissions", "check", "Bash", '{"command": "ls"}', "--hook", "deny"],
        ["permissions", "check", "Bash", "ls", other],
        ["--host", "claude", "inspect", ws], ["--host=codex", "--json", "rules", "--for", deep],
        ["--managed-settings", t["managed"], "permissions", "check", "WebFetch", "https://example.com"],
        ["--plugin-dir", os.path.join(t["tmp"], "no-plugin"), "inspect", ws],
        ["--plugin-dir", os.path.join(t["tmp"], "no-plugin"), "--json", "rules", ws],
    ]


def _fallbacks(t: dict) -> list[list[str]]:
    ws = t["ws"]
    deep = os.path.join(ws, "src/deep/a.py")
    return [
        [], ["--help"], ["--version"], ["inspect", "--help"], ["inspect", "-h"], ["rules", "explain", deep, ws],
        ["rules", "--help"], ["inspect", "missing"], ["inspect", ws, ws], ["rules", "missing"],
        ["rules", "--budget", "-1", ws], ["rules", "--budget", "x", ws], ["rules", "--cwd", deep, ws],
        ["rules", ws, "extra"], ["rules", "--", ws], ["hooks", "run"], ["hooks", "run", "Nope", ws],
        ["hooks", "run", "PreToolUse", deep], ["hooks", "run", "PreToolUse", "--payload", ws],
        ["hooks", "list", ws], ["permissions", "check", "Foo", "{", ws],
        ["permissions", "check", "Bash", "{\"a\": 1", ws],
        ["permissions", "check", "Bash", "ls", ws, "extra"], ["permissions", "check", "--hook", "maybe", "Bash", "ls"],
        ["permissions", "check"], ["permissions", "list", ws], ["skills", "list", ws, ws], ["skills", "show", "demo"],
        ["--home"], ["--", "inspect"], ["inspect", "--", ws], ["nosuch"], ["--json=1", "inspect"],
        ["--host", "BAD HOST!", "inspect", ws], ["--home", deep, "inspect", ws], ["inspect", "--bogus"],
        ["--host", "claud", "inspect", ws], ["--host=blade", "hooks", "run", "PreToolUse", ws],
        ["--plugin-dir", "bad\udcff", "inspect", ws], ["inspect", "\udcff"],
    ]


def test_every_form_prints_the_same_bytes_and_status_through_both_paths(tree, capsys, monkeypatch):
    base = ["--home", tree["home"]]
    for argv in _owned_forms(tree):
        assert _both(base + argv, capsys, monkeypatch, tree["home"]), f"not answered by the dispatcher: {argv}"


def test_every_fallback_and_usage_error_is_clicks_own(tree, capsys, monkeypatch):
    base = ["--home", tree["home"]]
    for argv in _fallbacks(tree):
        assert not _both(base + argv, capsys, monkeypatch, tree["home"]), f"answered by the dispatcher: {argv}"


def test_usage_errors_found_by_a_body_are_printed_by_click(tree, capsys, monkeypatch):
    """A body's usage error (an unknown hook event, INPUT that is not a JSON object, a bad
    --host) is raised before anything is printed: click answers it, with its usage line."""
    base = ["--home", tree["home"]]
    for argv in (["hooks", "run", "Nope"], ["permissions", "check", "Bash", '{"a": ']):
        assert not _both(base + argv, capsys, monkeypatch)
        rc = app.main(base + argv)
        err = capsys.readouterr().err
        assert rc == 2 and err.startswith("Usage: wsctl ")


def test_a_payload_on_standard_input_is_read_alike_by_both(tree, capsys, monkeypatch):
    """``--payload -``: the dispatcher owns it; standard input is read once per process,
    so click (run second here, or after a fallback) reads the same payload."""
    import io

    base = ["--home", tree["home"]]
    for text in ('{"tool_name": "Bash", "tool_input": {"command": "ls"}}', "[1, 2]", "not json"):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        for argv in (["hooks", "run", "PreToolUse", tree["ws"], "--payload", "-"],
                     ["--json", "hooks", "run", "PreToolUse", "--payload=-", "--tool", "Bash"]):
            assert _both(base + argv, capsys, monkeypatch, tree["home"]), argv


def test_environment_options_are_read_as_click_reads_them(tree, capsys, monkeypatch):
    monkeypatch.setenv("WSKIT_HOME", tree["home"])
    monkeypatch.setenv("WSKIT_HOST", "claude")
    assert _both(["--json", "inspect", tree["ws"]], capsys, monkeypatch)
    monkeypatch.setenv("WSKIT_HOST", "")  # empty: the default, as click reads it
    assert _both(["rules", tree["ws"]], capsys, monkeypatch)
    monkeypatch.setenv("WSKIT_MANAGED_SETTINGS", tree["managed"])
    assert _both(["permissions", "check", "WebFetch", "https://x.example"], capsys, monkeypatch)
    monkeypatch.setenv("WSKIT_HOME", os.path.join(tree["ws"], "AGENTS.md"))  # a file: click refuses it
    assert not _both(["inspect", tree["ws"]], capsys, monkeypatch)


def _replaces(cli):
    """A plugin's registration taking the owned commands over (its own ``inspect``, a
    ``rules`` sub-command that changes how PATH is read, another ``hooks run`` and
    ``permissions check``)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "inspect", "wskit.cli.session:snapshot_cmd", "another inspect")
    add_lazy_command(cli, "extra", "wskit.cli.session:snapshot_cmd", "x", parent="rules")
    add_lazy_command(cli, "run", "wskit.cli.session:snapshot_cmd", "x", parent="hooks")
    add_lazy_command(cli, "check", "wskit.cli.session:snapshot_cmd", "x", parent="permissions")


def _adds(cli):
    """A plugin's registration adding commands beside the owned ones."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "mine", "wskit.cli.session:snapshot_cmd", "x")
    add_lazy_command(cli, "other", "wskit.cli.session:snapshot_cmd", "x", parent="hooks")
    add_lazy_command(cli, "new", "wskit.cli.session:snapshot_cmd", "x", parent="skills")


def _plugin(register, **opts):
    from types import SimpleNamespace

    from wskit.plugin import hookimpl

    return SimpleNamespace(wskit_register_commands=hookimpl(**opts)(register))


#: the command each form's click path reaches when the built-in's registration stands
_BUILTIN_CALLBACKS = {("inspect",): "wskit.cli.inspect.inspect_cmd", ("rules",): "wskit.builtin_plugins.rules.cli.rules_group",
                      ("skills", "list"): "wskit.builtin_plugins.skills.cli.list_cmd",
                      ("hooks", "run"): "wskit.builtin_plugins.hooks.cli.hooks_run_cmd",
                      ("permissions", "check"): "wskit.builtin_plugins.permissions.cli.permissions_check_cmd"}


def _clicks_builtin_paths(pm) -> set[tuple[str, ...]]:
    """The forms whose command click resolves to the built-in's own (and, for ``rules``,
    whose group has no sub-command but ``explain``, which reads PATH differently)."""
    import click

    from wskit.cli.app import make_cli

    cli = make_cli(pm)
    ctx = click.Context(cli)
    out = set()
    for form in fast.FORMS:
        cmd = cli.get_command(ctx, form.path[0])
        for word in form.path[1:]:
            cmd = cmd.get_command(ctx, word) if isinstance(cmd, click.Group) else None
        if cmd is None or f"{cmd.callback.__module__}.{cmd.callback.__name__}" != _BUILTIN_CALLBACKS[form.path]:
            continue
        if form.path == ("rules",) and set(cmd.commands) != {"explain"}:
            continue
        out.add(form.path)
    return out


def _owned_paths(pm) -> set[tuple[str, ...]]:
    table, diags = fast.recorded_commands(pm)
    assert diags == []
    return {f.path for f in fast.FORMS if fast._owned(f, table)}


@pytest.mark.parametrize("case", ["builtins", "adds", "replaces-first", "replaces-last", "blocked"])
def test_a_form_is_owned_exactly_when_click_would_run_the_builtin_command(case):
    plugins = {"adds": [_plugin(_adds)], "replaces-first": [_plugin(_replaces)],
               "replaces-last": [_plugin(_replaces, trylast=True)]}.get(case, [])
    env = {"WSKIT_DISABLE_PLUGINS": "hooks,rules"} if case == "blocked" else {}
    pm = make_plugin_manager(load_entrypoints=False, plugins=plugins, env=env)
    owned = _owned_paths(pm)
    assert owned == _clicks_builtin_paths(pm)
    every = {f.path for f in fast.FORMS}
    expected = {"builtins": every, "adds": every, "replaces-last": {("skills", "list")},
                "blocked": every - {("rules",)}}  # `hooks run` is the runtime built-in's, in a plain group
    if case in expected:
        assert owned == expected[case]


def test_the_console_script_answers_a_per_turn_form_without_click(tree):
    """Through the real console entry point in a fresh process: the owned forms import
    neither click nor any command module of click, and print what click prints."""
    probe = ("import sys, json\nfrom wskit._console import main\nrc = main()\n"
             "print(json.dumps({'rc': rc, 'click': 'click' in sys.modules}), file=sys.stderr)\n")
    forms = [["--json", "inspect", tree["ws"]], ["--json", "rules", "--for", "src/deep/a.py"],
             ["hooks", "run", "PreToolUse"], ["permissions", "check", "Bash", "ls"], ["skills", "list", "--json"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_")}
    for argv in forms:
        full = ["--home", tree["home"], *argv]
        fast_run = subprocess.run([sys.executable, "-c", probe, *full], capture_output=True, env=env, cwd=tree["ws"])
        *err_lines, status = fast_run.stderr.decode().splitlines()
        assert json.loads(status)["click"] is False, argv
        click_run = subprocess.run([sys.executable, "-c", "import sys; from wskit.cli import main; sys.exit(main())",
                                    *full], capture_output=True, env=env, cwd=tree["ws"])
        assert (json.loads(status)["rc"], fast_run.stdout, "\n".join(err_lines)) == (
            click_run.returncode, click_run.stdout, click_run.stderr.decode().rstrip("\n")), argv


def test_names_with_escape_sequences_are_escaped_alike_through_both_paths(tree, capsys, monkeypatch):
    """A folder whose name holds terminal escape sequences (set the title, clear the
    screen): both paths print it through the same output guard."""
    odd = os.path.join(tree["ws"], "odd\x1b]0;pwned\x07\x1b[2Jdir")
    os.makedirs(odd)
    Path(odd, "AGENTS.md").write_text("odd rules\n")
    base = ["--home", tree["home"]]
    for argv in (["rules", odd], ["inspect", odd], ["--json", "rules", odd], ["rules", "--for", os.path.join(odd, "x")],
                 ["skills", "list", odd], ["hooks", "run", "Stop", odd], ["permissions", "check", "Read", odd]):
        assert _both(base + argv, capsys, monkeypatch, tree["home"]), argv
    rc = fast.main(base + ["rules", odd])
    out = capsys.readouterr().out
    assert rc == 0 and "\x1b]0;" not in out and "\\x1b]0;pwned" in out
