"""A repository's own ``.git/config`` steers no git process wskit starts.

A repository that carries its own configuration (an unpacked archive, a copied
folder) can name commands git runs: a partial clone's promisor remote with an
``ext::`` URL plus ``protocol.ext.allow=always`` (which outranks wskit's
``-c protocol.allow=never``) made ``worktree create`` fetch the promised objects
and run the repository's command. Two mechanisms hold now
(``wskit.builtin_plugins.workspaces.git``):

- no git process at all in a project nobody trusted (a ``PATH`` shim logs every
  git started: the log stays empty, the command is refused with the trust hint);
- in a trusted project, every call carries environment and ``-c`` settings that
  repository configuration cannot override (``GIT_ALLOW_PROTOCOL=``,
  ``GIT_NO_LAZY_FETCH=1``…), and runs only subcommands that neither diff, merge,
  page, edit nor sign.

Each case below is one setting whose payload touches a marker; a control run of
plain git proves the trap is armed where git can fire it without a terminal, then
the whole worktree life cycle runs and the marker must never appear. On the git
this machine has (``git --version``).
"""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.builtin_plugins.workspaces.wsgit import (
    GIT_ENV,
    git_identity,  # noqa: F401  (autouse)
)
from tests.builtin_plugins.workspaces.wsgit import git as tgit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _script(path: Path, marker: Path, tail: str = "exit 1") -> str:
    """An executable that touches ``marker``; returns its path."""
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\n{tail}\n")
    path.chmod(0o755)
    return str(path)


class _Unauthorized(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def http401() -> Iterator[str]:
    """A loopback HTTP server answering 401 (git then asks its credential helpers)."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unauthorized)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/repo.git"
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(5)


def _partial_clone(tmp_path: Path) -> Path:
    """``victim``: a blobless partial clone of ``src``; checking it out needs the
    promisor remote ``origin`` (a lazy fetch)."""
    src = tmp_path / "src"
    src.mkdir()
    tgit(src, "init", "-q")
    (src / "a.txt").write_text("text\n")
    (src / "b.dat").write_text("data\n")
    tgit(src, "add", ".")
    tgit(src, "commit", "-qm", "init")
    tgit(src, "config", "uploadpack.allowFilter", "true")
    tgit(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{src}", "victim")
    return tmp_path / "victim"


def _cfg(repo: Path, *pairs: tuple[str, str]) -> None:
    for key, value in pairs:
        tgit(repo, "config", key, value)


# each case: (name, arm(repo, marker, tmp_path, http_url) -> None, control argv for plain git or None)
Arm = Callable[[Path, Path, Path, str], None]


def _ext(repo, m, _t, _u):
    _cfg(repo, ("protocol.ext.allow", "always"), ("remote.origin.url", f"ext::sh -c touch% {m}"))


def _uploadpack(repo, m, _t, _u):
    _cfg(repo, ("protocol.file.allow", "always"), ("remote.origin.uploadpack", f"touch '{m}'; git-upload-pack"))


def _ssh(repo, m, t, _u):
    _cfg(repo, ("protocol.ssh.allow", "always"), ("remote.origin.url", "ssh://example.invalid/x.git"),
         ("core.sshCommand", _script(t / "ssh.sh", m)))


def _git_proxy(repo, m, t, _u):
    _cfg(repo, ("protocol.git.allow", "always"), ("remote.origin.url", "git://example.invalid/x.git"),
         ("core.gitProxy", _script(t / "proxy.sh", m)))


def _credential(repo, m, t, url):
    _cfg(repo, ("protocol.http.allow", "always"), ("remote.origin.url", url),
         ("credential.helper", f"!{_script(t / 'cred.sh', m)}"))


def _include(repo, m, t, _u):
    (t / "evil.cfg").write_text(f'[protocol "ext"]\n\tallow = always\n[remote "origin"]\n\turl = ext::sh -c touch% {m}\n')
    tgit(repo, "config", "--unset", "remote.origin.url")  # the included file names the only one
    _cfg(repo, ("include.path", str(t / "evil.cfg")))


def _include_if(repo, m, t, _u):
    (t / "evil.cfg").write_text(f'[protocol "ext"]\n\tallow = always\n[remote "origin"]\n\turl = ext::sh -c touch% {m}\n')
    tgit(repo, "config", "--unset", "remote.origin.url")
    _cfg(repo, (f"includeIf.gitdir:{repo}/.git.path", str(t / "evil.cfg")))


def _worktree_config(repo, m, _t, _u):
    tgit(repo, "config", "--unset", "remote.origin.url")
    _cfg(repo, ("extensions.worktreeConfig", "true"))
    tgit(repo, "config", "--worktree", "protocol.ext.allow", "always")
    tgit(repo, "config", "--worktree", "remote.origin.url", f"ext::sh -c touch% {m}")


def _allow_user(repo, m, _t, _u):
    # 'user' policy: allowed unless GIT_PROTOCOL_FROM_USER=0
    _cfg(repo, ("protocol.allow", "user"), ("remote.origin.url", f"ext::sh -c touch% {m}"))


def _fsmonitor(repo, m, t, _u):
    _cfg(repo, ("core.fsmonitor", _script(t / "fsmon.sh", m)))


def _hooks(repo, m, t, _u):
    hooks = t / "hooks"
    hooks.mkdir()
    for event in ("post-checkout", "reference-transaction", "post-index-change"):
        _script(hooks / event, m, "exit 0")
        _script(repo / ".git" / "hooks" / event, m, "exit 0")
    _cfg(repo, ("core.hooksPath", str(hooks)))


def _filters(repo, m, t, _u):
    s = _script(t / "filter.sh", m, "cat")
    _cfg(repo, ("filter.evil.smudge", s), ("filter.evil.clean", s), ("filter.evil.required", "true"),
         ("filter.proc.process", s), ("filter.proc.required", "true"))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("*.txt filter=evil\n*.dat filter=proc\n")


def _diff_merge(repo, m, t, _u):
    s = _script(t / "drv.sh", m, "cat \"$1\"")
    _cfg(repo, ("diff.evil.textconv", s), ("diff.external", s), ("merge.evil.driver", s),
         ("log.showSignature", "true"), ("gpg.program", s), ("core.alternateRefsCommand", s))
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* diff=evil merge=evil\n")


def _pager_editor(repo, m, t, _u):
    s = _script(t / "ed.sh", m, "exit 0")
    _cfg(repo, ("core.pager", s), ("core.editor", s), ("sequence.editor", s), ("pager.status", s),
         ("core.askPass", s))


def _packobjects(repo, m, t, _u):
    # honoured by git only from protected configuration; set in both repositories anyway
    s = _script(t / "pack.sh", m, 'shift; exec "$@"')
    _cfg(repo, ("protocol.file.allow", "always"), ("uploadpack.packObjectsHook", s))
    _cfg(t / "src", ("uploadpack.packObjectsHook", s))


def _fetch_in_checkout(*extra: str) -> list[str]:
    return ["checkout", "-q", "-b", "ctl", "origin/main", *extra]


CASES: list[tuple[str, Arm, list[str] | None]] = [
    ("ext-promisor", _ext, _fetch_in_checkout()),
    ("file-promisor-uploadpack", _uploadpack, _fetch_in_checkout()),
    ("ssh-promisor-sshCommand", _ssh, _fetch_in_checkout()),
    ("git-promisor-gitProxy", _git_proxy, _fetch_in_checkout()),
    ("http-promisor-credential-helper", _credential, _fetch_in_checkout()),
    ("include.path", _include, _fetch_in_checkout()),
    ("includeIf", _include_if, _fetch_in_checkout()),
    ("config.worktree", _worktree_config, _fetch_in_checkout()),
    ("protocol.allow=user", _allow_user, _fetch_in_checkout()),
    ("core.fsmonitor", _fsmonitor, ["status", "--porcelain"]),
    ("hooks", _hooks, _fetch_in_checkout()),
    ("filters", _filters, _fetch_in_checkout()),
    ("diff-merge-gpg", _diff_merge, ["log", "-1", "-p", "--ext-diff", "origin/main"]),
    ("pager-editor", _pager_editor, ["commit", "-q", "--allow-empty"]),
    ("uploadpack.packObjectsHook", _packobjects, None),  # git ignores it in repository config
]


@pytest.fixture
def armed(tmp_path: Path, request, http401) -> tuple[Path, Path, list[str] | None]:
    name, arm, control = request.param
    repo = _partial_clone(tmp_path)
    marker = tmp_path / "MARKER"
    arm(repo, marker, tmp_path, http401)
    return repo, marker, control


def _plain_git(repo: Path, argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV, "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", "-C", str(repo), *argv], env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


@pytest.mark.parametrize("armed", CASES, ids=[c[0] for c in CASES], indirect=True)
def test_plain_git_fires_the_trap(armed):
    """Control: the repository really is armed (so the next test can fail)."""
    repo, marker, control = armed
    if control is None:
        pytest.skip("git honours this setting only outside repository configuration")
    _plain_git(repo, control)
    assert marker.exists()


def _life_cycle(manager, repo: Path) -> list[str]:
    """attach, state, worktree create (needs the promised objects), state, remove;
    returns what happened (a failed lazy fetch is a refusal, not a success)."""
    from wskit.builtin_plugins.workspaces import WorkspaceError

    seen = []
    ws = manager.attach(repo)["workspace"]["workspace_id"]
    manager.state()
    try:
        c = manager.create_worktree(ws, "feat/x", "HEAD")
        seen.append(c["disposition"])
    except WorkspaceError as err:
        seen.append(err.kind)
        return seen
    manager.state()
    if c["disposition"] == "created":
        try:
            r = manager.remove_worktree(c["execution_root_id"], return_to="canonical")
            seen.append(r["disposition"])
        except WorkspaceError as err:
            seen.append(err.kind)
    return seen


@pytest.mark.parametrize("armed", CASES, ids=[c[0] for c in CASES], indirect=True)
def test_trusted_repository_config_runs_nothing(armed, wskit_home):
    from wskit.builtin_plugins.workspaces import WorkspaceManager
    from wskit.trust import TrustStore

    repo, marker, _control = armed
    TrustStore.for_home(wskit_home).grant(repo)
    seen = _life_cycle(WorkspaceManager(wskit_home), repo)
    assert not marker.exists(), seen
    assert seen[0] in ("created", "git_failed"), seen  # created, or refused for want of the promised objects


@pytest.fixture
def git_log(tmp_path: Path, monkeypatch) -> Path:
    """A ``git`` first on PATH that logs each run, then runs the real git."""
    real = shutil.which("git")
    shim = tmp_path / "shim"
    shim.mkdir()
    log = tmp_path / "git.log"
    (shim / "git").write_text(f"#!/bin/sh\necho \"$*\" >> '{log}'\nexec '{real}' \"$@\"\n")
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    return log


@pytest.mark.parametrize("armed", CASES[:1], ids=[CASES[0][0]], indirect=True)
def test_untrusted_repository_gets_no_git_process(armed, wskit_home, git_log, wsctl):
    """No git process at all: attach, state, detach work from the files;
    worktree create is refused, naming ``wsctl trust grant``."""
    import json

    repo, marker, _control = armed
    res = wsctl("workspace", "attach", str(repo), json=True)
    assert res.exit_code == 0, res.output
    ws = json.loads(res.stdout)["workspace"]["workspace_id"]
    assert wsctl("workspace", "state", json=True).exit_code == 0
    res = wsctl("worktree", "create", ws, "feat/x", "HEAD", json=True)
    assert res.exit_code == 1
    err = json.loads(res.stdout)["error"]
    assert err["kind"] == "untrusted_workspace" and "'wsctl trust grant " in res.stderr
    assert "untrusted_workspace" in res.stderr
    assert wsctl("workspace", "detach", ws, json=True).exit_code == 0
    assert not git_log.exists(), git_log.read_text()
    assert not marker.exists()


def test_untrusted_linked_worktree_gets_no_git_process(tmp_path, wskit_home, git_log):
    """A worktree root registered while trusted, then the decision revoked: state
    inspects nothing (``inspection_failed`` naming the trust decision), switch and
    remove are refused, no git process starts."""
    from wskit.builtin_plugins.workspaces import WorkspaceError, WorkspaceManager
    from wskit.trust import TrustStore

    repo = tmp_path / "r"
    repo.mkdir()
    tgit(repo, "init", "-q")
    tgit(repo, "commit", "-q", "--allow-empty", "-m", "x")
    store = TrustStore.for_home(wskit_home)
    store.grant(repo)
    m = WorkspaceManager(wskit_home)
    ws = m.attach(repo)["workspace"]["workspace_id"]
    c = m.create_worktree(ws, "feat", "HEAD", activate=False)
    store.revoke(repo)
    git_log.unlink()
    roots = [r for r in m.state()["execution_roots"] if r["root_kind"] == "git_worktree_root"]
    assert roots[0]["evidence"]["status"] == "inspection_failed"
    assert "untrusted by the decision" in roots[0]["evidence"]["error"]
    for call in (lambda: m.switch(execution_root_id=c["execution_root_id"]),
                 lambda: m.remove_worktree(c["execution_root_id"]),
                 lambda: m.create_worktree(ws, "other", "HEAD")):
        with pytest.raises(WorkspaceError) as exc:
            call()
        assert exc.value.kind == "untrusted_workspace" and "wsctl trust grant" in str(exc.value)
    assert m.detach(ws)["retained_execution_roots"][0]["execution_root_id"] == c["execution_root_id"]
    assert not git_log.exists(), git_log.read_text()


def test_no_gate_no_git(tmp_path, git_log):
    """Outside a trust gate (a caller that skipped the manager) git is refused, fail closed."""
    from wskit.builtin_plugins.workspaces import git as g

    repo = tmp_path / "r"
    repo.mkdir()
    tgit(repo, "init", "-q")
    git_log.unlink(missing_ok=True)
    with pytest.raises(g.UntrustedRepository):
        g.git(repo, "status", check=False)
    with g.trust_gate(lambda _p: False), pytest.raises(g.UntrustedRepository):
        g.git(repo, "status", check=False)
    with g.trust_gate(lambda _p: 1 / 0), pytest.raises(g.UntrustedRepository) as exc:
        g.git(repo, "status", check=False)
    assert "could not be decided" in str(exc.value)
    assert not git_log.exists()
    with g.trust_gate(lambda _p: True):
        assert g.git(repo, "status").returncode == 0
        with pytest.raises(ValueError):
            g.git(repo, "diff")  # a subcommand wskit does not run: refused, nothing started
        # a folder in no repository: git is not started (it would walk up into an ancestor's)
        plain = tmp_path / "plain"
        plain.mkdir()
        assert g.git(plain, "rev-parse", "--git-dir", check=False).returncode == 128
    assert git_log.read_text().count("\n") == 2  # the config read and the status


def test_every_invocation_is_built_in_one_place():
    """argv and environment of every git call: the neutral environment is there."""
    from wskit.builtin_plugins.workspaces import git as g

    argv, env = g.git_invocation("/x", ("status",))
    assert argv[:3] == ["git", "-C", "/x"] and "protocol.allow=never" in argv
    assert env["GIT_ALLOW_PROTOCOL"] == "" and env["GIT_NO_LAZY_FETCH"] == "1"
    assert env["GIT_PAGER"] == "cat" and env["GIT_EDITOR"] == ":" and "GIT_DIR" not in env
