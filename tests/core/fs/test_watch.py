"""WorkspaceCache with notifications (``watch=True``, :mod:`wskit.fs.watch`) answers what a
fresh load answers: after every kind of change, resolved at once (no settling, no sleep),
and after a real inotify queue overflow or a failed descriptor (the stat check takes over).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.aging_helpers import OLD
from tests.aging_helpers import age as _age
from tests.aging_helpers import skill_text as _skill
from wskit import changes
from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore

watch = pytest.importorskip("wskit.fs.watch")
pytest.importorskip("inotify_simple")
if not os.path.exists("/proc/sys/fs/inotify"):
    pytest.skip("no inotify on this system", allow_module_level=True)




def _rule(pattern: str, body: str) -> str:
    return f"---\npaths:\n  - \"{pattern}\"\n---\n{body}\n"



@pytest.fixture
def tree(tmp_path: Path, wskit_home: Path) -> Path:
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        "AGENTS.md": "root agents\n",
        "a/b/AGENTS.md": "agents of a/b\n",
        "a/b/src/main.py": "print()\n",
        ".claude/rules/r1.md": _rule("src/**", "rule one"),
        ".claude/skills/alpha/SKILL.md": _skill("alpha", "first version"),
        ".claude/skills/beta/SKILL.md": _skill("beta", "beta skill"),
        ".claude/commands/hello.md": "---\ndescription: say hello\n---\nHello $ARGUMENTS\n",
    })
    write_tree(tmp_path / "outside", {
        "one/SKILL.md": _skill("linked", "target one"),
        "two/SKILL.md": _skill("linked", "target two"),
    })
    write_tree(wskit_home, {".claude/skills/homeskill/SKILL.md": _skill("homeskill", "from home")})
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home, tmp_path / "outside")
    return root


@pytest.fixture
def watching(wskit_profile, wskit_pm):
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    assert cache.watch_status == "watching", cache.watch_status
    yield cache
    cache.close()


def _view(ws) -> tuple:
    """Everything a host could ask of a load: resources with their provenance, the whole
    rule catalog, the rules for one file, the diagnostics and the trust decision."""
    resources = sorted((r.kind, r.id, r.description, r.provenance.path, r.provenance.sha256)
                       for r in ws.resources())
    diags = sorted((d.code, d.path or "", d.level) for d in ws.diagnostics)
    cat = ws.catalog("rules")
    rules = None
    if cat is not None:
        root = ws.source_root
        target = root / ("a2" if (root / "a2").exists() else "a") / "b/src/main.py"
        rules = ([r.id for r in cat.contextual_rules(root, [target]).files],  # lazy: the chain only
                 [r.id for r in cat.static_rules(target.parent).files],
                 [(r.id, r.path, r.sha256) for r in cat.rules()],  # then the whole project
                 sorted((d.code, d.path or "") for d in cat.diagnostics))
    return resources, diags, rules, ws.trust.state


def _fresh(profile, pm, root: Path):
    cache = WorkspaceCache(profile, pm)
    try:
        return cache.resolve(root)
    finally:
        cache.close()


def _ops(root: Path, home: Path, outside: Path, store: TrustStore):
    """(name, change) pairs: every kind of change the brief names, in project and home."""
    link = home / ".claude/skills/linked"
    return [
        ("edit, same size", lambda: (root / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "first versioN"))),
        ("edit, other size", lambda: (root / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "v2"))),
        ("edit a rule", lambda: (root / ".claude/rules/r1.md").write_text(_rule("**/*.py", "rule one, edited"))),
        ("edit a nested AGENTS.md", lambda: (root / "a/b/AGENTS.md").write_text("agents of a/b, edited\n")),
        ("add a file", lambda: (root / ".claude/commands/bye.md").write_text("---\ndescription: bye\n---\nBye\n")),
        ("hard link made elsewhere", lambda: os.link(root / ".claude/commands/bye.md", outside / "bye-link.md")),
        ("hard link removed", lambda: os.unlink(outside / "bye-link.md")),
        ("delete a file", lambda: (root / ".claude/commands/hello.md").unlink()),
        ("rename a file", lambda: os.rename(root / ".claude/rules/r1.md", root / ".claude/rules/r9.md")),
        ("rename a folder", lambda: os.rename(root / ".claude/skills/beta", root / ".claude/skills/gamma")),
        ("rename a parent folder", lambda: os.rename(root / "a", root / "a2")),
        ("chmod", lambda: os.chmod(root / ".claude/skills/alpha/SKILL.md", stat.S_IRUSR)),
        ("new folder with content", lambda: write_tree(root / ".claude/skills/delta", {
            "SKILL.md": _skill("delta", "new folder")})),
        ("new config folder", lambda: write_tree(root / ".agents/skills/eps", {"SKILL.md": _skill("eps", "new")})),
        ("new nested AGENTS.md", lambda: write_tree(root / "a2/b/c", {"AGENTS.md": "deeper\n"})),
        ("link", lambda: os.symlink(outside / "one", link)),
        ("link retarget", lambda: (os.unlink(link), os.symlink(outside / "two", link))),
        ("edit through the link", lambda: (outside / "two/SKILL.md").write_text(_skill("linked", "two, edited"))),
        ("project link", lambda: os.symlink(outside / "one", root / ".claude/skills/plink")),
        ("home edit", lambda: (home / ".claude/skills/homeskill/SKILL.md").write_text(_skill("homeskill", "e"))),
        ("delete a folder", lambda: shutil.rmtree(root / ".claude/skills/gamma")),
        ("revoke trust", lambda: store.revoke(root)),
        ("grant trust", lambda: store.grant(root)),
    ]


_THROUGH_LINKS = {"link", "link retarget", "edit through the link", "project link"}


def test_every_change_answers_as_a_fresh_load(tree, tmp_path, wskit_home, wskit_profile, wskit_pm, watching):
    store = TrustStore.for_home(wskit_home)
    got = watching.resolve(tree)
    assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, tree))
    for name, op in _ops(tree, wskit_home, tmp_path / "outside", store):
        op()
        got = watching.resolve(tree)  # at once: no settling, no sleep
        assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, tree)), name
        if name in _THROUGH_LINKS:
            # read through a link: stat-checked (module doc of wskit.fs.watch), so a file
            # written within the racy window reloads until it settles, as without watching
            _age(tmp_path / "outside")
            got = watching.resolve(tree)
            assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, tree)), name
        again = watching.resolve(tree)
        if again is not got:
            # allowed once: a file read lazily (the view's rule queries) in a folder first
            # watched after it was written within the racy window cannot be proven by stat
            assert _view(again) == _view(_fresh(wskit_profile, wskit_pm, tree)), name
            assert watching.resolve(tree) is again, f"{name}: nothing changed since, yet it reloads"
    assert watching.watcher.overflows == 0


def test_nothing_changed_costs_no_stat(tree, watching, monkeypatch) -> None:
    first = watching.resolve(tree)
    first.catalog("rules").rules()  # the lazy catalog reads the whole project (late reads)
    watching.resolve(tree)  # covers the late reads

    def no_stat(*_a, **_k):
        raise AssertionError("a watched, unchanged load was stat-checked")

    monkeypatch.setattr(changes.Dependencies, "changed", no_stat)
    monkeypatch.setattr(watch, "stat_signature", no_stat)
    for _ in range(5):
        assert watching.resolve(tree) is first
    assert watching.stats()["reloads"] == 0


def test_reload_after_one_edit_takes_every_untouched_path_as_verified(tree, watching) -> None:
    first = watching.resolve(tree)
    entry = next(iter(watching._entries.values()))
    recorded = len(entry.deps)
    (tree / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "edited"))
    second = watching.resolve(tree)
    assert second.registry("skill").get("project:alpha").description == "edited"
    # the reload re-read alpha only: beta is the very object the first load built
    assert second.registry("skill").get("project:beta") is first.registry("skill").get("project:beta")
    assert entry.proof.hit == {str(tree / ".claude/skills/alpha/SKILL.md")}
    assert len(entry.proof.verified(entry.deps._paths)) == recorded - 1


def test_change_is_seen_by_the_very_next_resolve(tree, watching) -> None:
    """The barrier: the kernel queues the event inside the writing call, so a resolve
    that starts after the write returned always sees it."""
    skill = tree / ".claude/skills/alpha/SKILL.md"
    watching.resolve(tree)
    for i in range(100):
        skill.write_text(_skill("alpha", f"v{i:03d}"))
        assert watching.resolve(tree).registry("skill").get("project:alpha").description == f"v{i:03d}"


def test_overflow_falls_back_to_the_stat_check(tree, wskit_profile, wskit_pm, watching) -> None:
    """A real IN_Q_OVERFLOW: more events than the kernel queue holds, then the edit
    that matters (its event dropped). The stat check finds it."""
    # two files no load reads, in a watched folder: their events make no load stale
    a, b = tree / "storm-1.txt", tree / "storm-2.txt"
    a.write_text("1")
    b.write_text("2")
    _age(tree)
    first = watching.resolve(tree)
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"max_queued_events is {limit}: an overflow would take too long here")
    assert watching.resolve(tree) is first
    for i in range(limit):  # twice the queue, alternating names: the kernel cannot merge them
        os.utime(a, (OLD + i, OLD + i))
        os.utime(b, (OLD + i, OLD + i))
    (tree / ".claude/commands/hello.md").write_text("---\ndescription: after the overflow\n---\nHi\n")
    got = watching.resolve(tree)
    assert watching.watcher.overflows == 1
    assert got is not first
    assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, tree))
    assert watching.resolve(tree) is got  # proven again after the stat check
    (tree / ".claude/commands/hello.md").write_text("---\ndescription: watched again\n---\nHi\n")
    assert watching.resolve(tree).registry("command").get("project:hello").description == "watched again"


def test_failed_descriptor_falls_back_to_the_stat_check(tree, wskit_profile, wskit_pm, watching) -> None:
    first = watching.resolve(tree)
    # replace the inotify descriptor by a folder's: every read of it fails (EISDIR)
    dfd = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.dup2(dfd, watching.watcher.fileno())
    finally:
        os.close(dfd)
    (tree / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "seen by stat"))
    got = watching.resolve(tree)
    assert watching.watcher.failure is not None and "reading inotify failed" in watching.watcher.failure
    assert got is not first and _view(got) == _view(_fresh(wskit_profile, wskit_pm, tree))
    (tree / ".claude/skills/beta/SKILL.md").write_text(_skill("beta", "seen by stat too"))
    assert _view(watching.resolve(tree)) == _view(_fresh(wskit_profile, wskit_pm, tree))


def test_uncovered_file_systems_are_stat_checked(tree, wskit_profile, wskit_pm) -> None:
    """Where no watch may cover a path (here: no file system counts as local, as for NFS),
    every path is stat-checked on each resolve, as without the watcher."""
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    try:
        cache.watcher._local = frozenset()
        first = cache.resolve(tree)
        entry = next(iter(cache._entries.values()))
        assert entry.proof.keys == set() and len(entry.proof.uncovered) == len(entry.deps)
        assert cache.watcher.watched() == 0
        assert cache.resolve(tree) is first
        (tree / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "stat"))
        assert _view(cache.resolve(tree)) == _view(_fresh(wskit_profile, wskit_pm, tree))
    finally:
        cache.close()


def test_closed_watcher_keeps_answering_by_stat(tree, wskit_profile, wskit_pm) -> None:
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    first = cache.resolve(tree)
    cache.close()
    cache.close()  # idempotent
    assert cache.resolve(tree) is first
    (tree / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "after close"))
    assert _view(cache.resolve(tree)) == _view(_fresh(wskit_profile, wskit_pm, tree))


def test_watch_off_by_default_and_unavailable_says_why(wskit_profile, wskit_pm, monkeypatch) -> None:
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    assert cache.watcher is None and cache.watch_status == "off"
    monkeypatch.setitem(__import__("sys").modules, "inotify_simple", None)
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    assert cache.watcher is None and "wskit[watch]" in cache.watch_status


def test_write_during_a_load_is_not_missed(tree, wskit_profile, wskit_pm) -> None:
    """A change made while a load runs (here: by the loader itself, after reading) makes
    that load stale: the next resolve reloads."""
    skill = tree / ".claude/skills/alpha/SKILL.md"
    from wskit.cache import _load_with
    from wskit.plugin.facade import WskitHooks

    hooks = WskitHooks(wskit_pm)
    done = []

    def loader(binding):
        res = _load_with(hooks, wskit_profile, binding)
        if not done:
            done.append(1)
            skill.write_text(_skill("alpha", "written during the load"))
        return res

    cache = WorkspaceCache(wskit_profile, wskit_pm, loader=loader, watch=True)
    try:
        cache.resolve(tree)  # a first load arms the watches
        cache.invalidate(tree)
        done.clear()
        skill.write_text(_skill("alpha", "before"))
        first = cache.resolve(tree)
        assert first.registry("skill").get("project:alpha").description == "before"
        second = cache.resolve(tree)
        assert second.registry("skill").get("project:alpha").description == "written during the load"
    finally:
        cache.close()
