"""wsctl prints text strangers wrote: it must not pass terminal escapes through.

A description can carry ESC through a YAML escape (``"\\e[2J"``) and a file
name can hold any byte but '/' and NUL; printed raw, they rewrite the
terminal (clear screen, set the title, fake lines). Human output shows them
escaped; ``--json`` output is JSON (escaped by the encoder).
"""

from __future__ import annotations

import json

from tests.conftest import skill_md
from wskit.trust import TrustStore

HOSTILE_DESC = '"Looks fine\\e]0;pwned\\a\\e[2J\\u202eevil\\nfake line"'


def _workspace(make_tree, home):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".claude/skills/shady/SKILL.md": f"---\ndescription: {HOSTILE_DESC}\n---\n",
        ".claude/skills/good/SKILL.md": skill_md("good"),
    })
    bad_dir = ws / ".claude" / "skills" / "x\x1b[31mred\nfake"
    bad_dir.mkdir()
    (bad_dir / "SKILL.md").write_text(skill_md("x"))
    TrustStore.for_home(home).grant(ws)
    return ws


def test_human_output_has_no_raw_control_characters(wsctl, make_tree, wskit_home):
    ws = _workspace(make_tree, wskit_home)
    for args in (("skills", "list", str(ws)), ("inspect", str(ws))):
        result = wsctl(*args)
        assert result.exit_code == 0, result.output
        out = result.output
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, repr(out)
        assert not any(line.startswith("fake") for line in out.splitlines()), repr(out)
        assert "good" in out


def test_json_output_is_one_document_with_escapes_intact(wsctl, make_tree, wskit_home):
    ws = _workspace(make_tree, wskit_home)
    result = wsctl("skills", "list", str(ws), json=True)
    assert result.exit_code == 0
    data = json.loads(result.output)
    by_name = {s["name"]: s for s in data["skills"]}
    assert "\x1b" in by_name["shady"]["description"]  # the value itself is not altered
    assert "good" in by_name
    codes = {d["code"] for d in data["diagnostics"]}
    assert {"hidden-characters", "skill-name-invalid"} <= codes
    assert "\x1b" not in result.output  # JSON escapes it as \u001b


# -- no traceback, whatever the arguments ----------------------------------------------------
#
# Every command of wsctl, every argument and option that takes a value, given in turn a
# 100,000-character name, a name that is not UTF-8 (as the OS hands such argv bytes to
# Python: surrogate escapes) and an empty string, the others a valid value: the run ends
# with exit status 0, 1 or 2, a failure is one "error:"/"Error:" line, and nothing prints a
# traceback or falls back on the "internal error" last resort (a failure nobody handled).

import contextlib  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import click  # noqa: E402
import pytest  # noqa: E402

HOSTILE_ARGS = {"long": "n" * 100_000, "not-utf8": "bad\udcff\udcfename", "empty": ""}


def _commands():
    from wskit.cli import make_cli

    cli = make_cli()
    out = []

    def walk(group, prefix, ctx):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            if isinstance(cmd, click.Group):
                walk(cmd, [*prefix, name], click.Context(cmd, parent=ctx))
            else:
                out.append(([*prefix, name], cmd))

    walk(cli, [], click.Context(cli))
    return out


def _valid(param, ws):
    kind = getattr(param.type, "name", "")
    if kind in ("path", "directory"):
        return str(ws)
    if kind == "file":
        return str(ws / ".git" / "HEAD")
    if kind == "choice":
        return param.type.choices[0]
    if kind == "float" or kind.startswith("integer"):
        return "1"
    return "x"


def _cases():
    cases = []
    for path, cmd in _commands():
        params = [p for p in cmd.params if not (isinstance(p, click.Option) and p.is_flag)]
        for target in params:
            for hname in HOSTILE_ARGS:
                cases.append(pytest.param(path, target.name, hname, id=f"{' '.join(path)}-{target.name}-{hname}"))
    return cases


def _argv(path, target_name, value, ws):
    cmd = dict((tuple(p), c) for p, c in _commands())[tuple(path)]
    argv = list(path)
    for p in cmd.params:
        if isinstance(p, click.Option) and p.is_flag:
            continue
        if p.name != target_name and not p.required:
            continue
        v = value if p.name == target_name else _valid(p, ws)
        argv += [p.opts[0], v] if isinstance(p, click.Option) else [v]
    return argv


@pytest.fixture(scope="module")
def shared_pm():
    from wskit.plugin.manager import make_plugin_manager

    return make_plugin_manager()  # entry points too: the commands of wskit-mcp, wskit-lsp, wskit-gemini


@pytest.fixture(scope="module")
def hostile_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("wsctl-hostile")
    home = root / "home"
    home.mkdir()
    ws = root / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root, home, ws


def _assert_one_error(rc, err, what, report=None):
    assert rc in (0, 1, 2), (what, rc, err[-1000:])
    assert "Traceback" not in err and "internal error" not in err, (what, err[-2000:])
    if rc and report is not None and not err:
        # a validation command's output is its report: the failure is its error diagnostic
        assert any(ln.lstrip().startswith("error") for ln in report.splitlines()), (what, report[-1000:])
        return
    if rc:
        lines = [ln for ln in err.splitlines() if ln.startswith(("error:", "Error:"))]
        assert len(lines) == 1, (what, err[-2000:])
        assert len(lines[0]) < 2_000, (what, lines[0][:300])  # a 100,000-character name is shortened


@pytest.mark.parametrize("path, target, hostile", _cases())
def test_every_command_and_option_ends_in_one_error_line(hostile_tree, shared_pm, monkeypatch, path, target,
                                                         hostile):
    from wskit.cli import app as cli_mod

    root, home, ws = hostile_tree
    real = cli_mod.make_cli
    monkeypatch.setattr(cli_mod, "make_cli", lambda pm=None: real(pm or shared_pm))  # one manager for all cases
    monkeypatch.chdir(root)  # a relative hostile path names something in the test's own folder
    monkeypatch.delenv("WSKIT_TRACEBACK", raising=False)
    argv = ["--home", str(home), *_argv(path, target, HOSTILE_ARGS[hostile], ws)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli_mod.main(argv)
    _assert_one_error(rc, err.getvalue(), " ".join(path), out.getvalue() if path[-1] == "validate" else None)


@pytest.mark.parametrize("argv", [
    ["skills", "enable", "n" * 100_000],
    ["workspace", "switch", "--root", b"bad\xff\xfe".decode("utf-8", "surrogateescape")],
    ["worktree", "remove", b"root\xff".decode("utf-8", "surrogateescape")],
    ["snapshot", ".", "-o", ""],
    ["workspace", "attach", "n" * 100_000],
], ids=["long-slug", "not-utf8-root", "not-utf8-root-id", "empty-output", "long-path"])
def test_a_real_wsctl_process_prints_one_error_line(hostile_tree, argv):
    """The console script itself (argv bytes that are not UTF-8 as the OS gives them)."""
    root, home, ws = hostile_tree
    env = {k: v for k, v in os.environ.items() if k != "WSKIT_TRACEBACK"}
    args = [os.fsencode(a) for a in argv]
    res = subprocess.run([sys.executable, "-c", "import sys; from wskit.cli import main; sys.exit(main())",
                          b"--home", os.fsencode(home), *args], cwd=ws, capture_output=True, timeout=60, env=env)
    err = res.stderr.decode("utf-8", "replace")
    _assert_one_error(res.returncode, err, argv[:2])
    assert res.returncode in (1, 2)


def test_the_last_resort_is_one_line_and_a_traceback_on_request(monkeypatch, capsys):
    """A failure no command handles is still one line (exit 1); WSKIT_TRACEBACK=1 shows the traceback."""
    from wskit.cli import app as cli_mod

    class Boom(click.Command):
        def invoke(self, ctx):
            raise KeyError("unexpected")

    real = cli_mod.make_cli

    def make_cli(pm=None):
        group = real(pm)
        group.add_command(Boom("boom"))
        return group

    monkeypatch.setattr(cli_mod, "make_cli", make_cli)
    monkeypatch.delenv("WSKIT_TRACEBACK", raising=False)
    assert cli_mod.main(["boom"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: internal error: KeyError") and err.count("\n") == 1
    monkeypatch.setenv("WSKIT_TRACEBACK", "1")
    with pytest.raises(KeyError):
        cli_mod.main(["boom"])
