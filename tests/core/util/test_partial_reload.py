"""Partial reload (:mod:`wskit.util.partial_reload`): a :class:`~wskit.cache.WorkspaceCache`
reload runs only the pipeline stages whose inputs or recorded reads changed, and answers
exactly what a fresh load answers.

The differential test makes every kind of change — edits, adds, deletes, renames, chmod,
a file moved from one capability to another, settings that switch hooks and a plugin off
and on, trust revoked and granted, a plugin folder edited, a plugin manifest changed — and
compares everything a host can ask of the reloaded workspace (every resource, in full;
every source; every diagnostic, in order; the rule and permission catalogs; the trust
decision) with a fresh load's: with file notifications (resolved at once), with the stat
check, and after a notification queue overflow.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from tests.aging_helpers import OLD
from tests.aging_helpers import age as _age
from tests.aging_helpers import skill_text as _skill
from wskit.cache import WorkspaceCache
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.util import partial_reload


def _settle(*roots: Path) -> None:
    """Age what was written since :func:`_age` (and only that: aging touches a file's
    ctime, which the stat check sees as a change)."""
    for root in roots:
        for dirpath, _dirs, files in os.walk(root, topdown=False):
            for p in [*(os.path.join(dirpath, f) for f in files), dirpath]:
                if os.lstat(p).st_mtime > OLD:
                    os.utime(p, (OLD, OLD), follow_symlinks=False)


def _settings(hooks_off: bool = False, deny: str = "Bash(rm:*)") -> str:
    return json.dumps({
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]},
        "permissions": {"allow": ["Read"], "deny": [deny]},
        **({"disableAllHooks": True} if hooks_off else {}),
    })


def _home_settings(market: Path, enabled: bool = True) -> str:
    return json.dumps({"extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": str(market)}}},
                       "enabledPlugins": {"p1@mk": enabled}})


@pytest.fixture
def world(tmp_path: Path, wskit_home: Path):
    """A project using most capabilities, a home enabling a plugin from a directory
    marketplace, and a folder outside both."""
    market = write_tree(tmp_path / "market", {
        ".claude-plugin/marketplace.json": json.dumps({"name": "mk", "owner": {"name": "t"},
                                                       "plugins": [{"name": "p1", "source": "./plugins/p1"}]}),
        "plugins/p1/.claude-plugin/plugin.json": json.dumps({"name": "p1", "description": "first"}),
        "plugins/p1/skills/s1/SKILL.md": _skill("s1", "plugin skill"),
        "plugins/p1/commands/c1.md": "---\ndescription: plugin command\n---\nC1\n",
    })
    root = write_tree(tmp_path / "ws", {
        ".git/HEAD": "ref: refs/heads/main\n",
        "AGENTS.md": "root agents\n",
        "CLAUDE.md": "root claude\n",
        "a/b/AGENTS.md": "agents of a/b\n",
        "a/b/src/main.py": "print()\n",
        ".claude/rules/r1.md": "---\npaths:\n  - \"a/**\"\n---\nrule one\n",
        ".claude/skills/alpha/SKILL.md": _skill("alpha", "first version"),
        ".claude/skills/beta/SKILL.md": _skill("beta", "beta skill"),
        ".claude/commands/hello.md": "---\ndescription: say hello\n---\nHello $ARGUMENTS\n",
        ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: reviews\n---\nReview.\n",
        ".claude/output-styles/terse.md": "---\nname: terse\ndescription: short answers\n---\nBe terse.\n",
        ".claude/settings.json": _settings(),
        ".mcp.json": json.dumps({"mcpServers": {"files": {"command": "fileserver", "args": ["--ro"]}}}),
    })
    write_tree(tmp_path / "outside", {"note.md": "outside\n"})
    write_tree(wskit_home, {
        ".claude/skills/homeskill/SKILL.md": _skill("homeskill", "from home"),
        ".claude/settings.json": _home_settings(market),
    })
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home, market, tmp_path / "outside")
    return root, wskit_home, market, tmp_path / "outside"


def _view(ws) -> tuple:
    """Everything a host can ask of a load, compared whole: resources, sources, diagnostics
    in order, the rule catalog (lazy queries first, then the whole project), the
    permission policy and the trust decision."""
    resources = [(r.kind, r.id, r) for r in ws.resources()]
    diags = [(d.level, d.code, str(d.path), d.line, d.message, d.plugin, d.hook) for d in ws.diagnostics]
    cat = ws.catalog("rules")
    rules = None
    if cat is not None:
        root = ws.source_root
        target = root / "a/b/src/main.py"
        rules = ([r.id for r in cat.contextual_rules(root, [target]).files],
                 [(r.id, r.sha256) for r in cat.static_rules(target.parent).files],
                 [(r.id, r.path, r.sha256) for r in cat.rules()],
                 [(d.code, str(d.path), d.message) for d in cat.diagnostics])
    return resources, ws.sources, diags, rules, ws.catalog("permissions"), ws.trust


def _fresh(profile, pm, root: Path):
    cache = WorkspaceCache(profile, pm)
    try:
        return cache.resolve(root)
    finally:
        cache.close()


def _ops(root: Path, home: Path, market: Path, outside: Path, store: TrustStore):
    """(name, change): every kind of change, and the ones that move work between stages."""
    p1 = market / "plugins/p1"
    return [
        ("edit, same size", lambda: (root / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "first versioN"))),
        ("edit, other size", lambda: (root / ".claude/skills/alpha/SKILL.md").write_text(_skill("alpha", "v2"))),
        ("edit a rule", lambda: (root / ".claude/rules/r1.md").write_text("---\npaths:\n  - \"**/*.py\"\n---\nr1b\n")),
        ("edit a nested AGENTS.md", lambda: (root / "a/b/AGENTS.md").write_text("agents of a/b, edited\n")),
        ("edit an agent", lambda: (root / ".claude/agents/reviewer.md").write_text(
            "---\nname: reviewer\ndescription: reviews harder\n---\nReview.\n")),
        ("add a command", lambda: (root / ".claude/commands/bye.md").write_text("---\ndescription: bye\n---\nBye\n")),
        ("move a command to the agents", lambda: os.rename(root / ".claude/commands/bye.md",
                                                           root / ".claude/agents/bye.md")),
        ("move an agent to the output styles", lambda: os.rename(root / ".claude/agents/reviewer.md",
                                                                 root / ".claude/output-styles/reviewer.md")),
        ("move a command into a skill", lambda: (
            (root / ".claude/skills/hello").mkdir(),
            os.rename(root / ".claude/commands/hello.md", root / ".claude/skills/hello/SKILL.md"))),
        ("a command named like a skill", lambda: (root / ".claude/commands/alpha.md").write_text(
            "---\ndescription: shadowed by the skill\n---\nA\n")),
        ("delete the skill that shadowed it", lambda: shutil.rmtree(root / ".claude/skills/alpha")),
        ("rename a skill folder", lambda: os.rename(root / ".claude/skills/beta", root / ".claude/skills/gamma")),
        ("chmod", lambda: os.chmod(root / ".claude/skills/gamma/SKILL.md", stat.S_IRUSR)),
        ("hooks switched off by settings", lambda: (root / ".claude/settings.json").write_text(_settings(True))),
        ("hooks switched on again", lambda: (root / ".claude/settings.json").write_text(_settings(False))),
        ("a permission rule changed", lambda: (root / ".claude/settings.json").write_text(
            _settings(False, "Bash(curl:*)"))),
        ("an MCP server added", lambda: (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
            "files": {"command": "fileserver", "args": ["--ro"]}, "web": {"url": "http://127.0.0.1:9/mcp"}}}))),
        ("a plugin skill edited", lambda: (p1 / "skills/s1/SKILL.md").write_text(_skill("s1", "plugin, edited"))),
        ("a plugin command added", lambda: (p1 / "commands/c2.md").write_text("---\ndescription: c2\n---\nC2\n")),
        ("a plugin manifest changed", lambda: (p1 / ".claude-plugin/plugin.json").write_text(
            json.dumps({"name": "p1", "description": "second", "version": "2.0.0"}))),
        ("a plugin switched off by settings", lambda: (home / ".claude/settings.json").write_text(
            _home_settings(market, False))),
        ("a plugin switched on again", lambda: (home / ".claude/settings.json").write_text(
            _home_settings(market, True))),
        ("a plugin folder renamed away", lambda: os.rename(p1 / "skills", p1 / "skills-gone")),
        ("and back", lambda: os.rename(p1 / "skills-gone", p1 / "skills")),
        ("a user rule file created", lambda: (home / ".claude/CLAUDE.md").write_text("user rule\n")),
        ("the user rule file edited", lambda: (home / ".claude/CLAUDE.md").write_text("user rule, edited\n")),
        ("the user rule file removed", lambda: (home / ".claude/CLAUDE.md").unlink()),
        ("home edit", lambda: (home / ".claude/skills/homeskill/SKILL.md").write_text(_skill("homeskill", "e"))),
        ("new config folder", lambda: write_tree(root / ".agents/skills/eps", {"SKILL.md": _skill("eps", "new")})),
        ("revoke trust", lambda: store.revoke(root)),
        ("edit while untrusted", lambda: (root / ".claude/skills/gamma/SKILL.md").chmod(0o644)),
        ("grant trust", lambda: store.grant(root)),
        ("delete a folder", lambda: shutil.rmtree(root / ".claude/output-styles")),
    ]


@pytest.mark.parametrize("mode", ["watch", "stat"])
def test_every_change_answers_as_a_fresh_load(world, wskit_profile, wskit_pm, mode) -> None:
    root, home, market, outside = world
    if mode == "watch":
        pytest.importorskip("inotify_simple")
        if not os.path.exists("/proc/sys/fs/inotify"):
            pytest.skip("no inotify on this system")
    store = TrustStore.for_home(home)
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=mode == "watch")
    try:
        got = cache.resolve(root)
        assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, root))
        assert "plugin:p1:s1" in {r.id for r in got.resources()}
        entry = next(iter(cache._entries.values()))
        per_load = sum(1 for k in entry.memo.stages if k[0] == "load")
        ran = 0
        for name, op in _ops(root, home, market, outside, store):
            op()
            if mode == "stat":
                # settled (not racy), so the stat check's reload takes the unchanged stages whole
                _settle(root, home, market)
            before = _runs()
            got = cache.resolve(root)
            ran += _delta(before).get("load", 0)
            assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, root)), name
            before = _runs()
            again = cache.resolve(root)
            ran += _delta(before).get("load", 0)
            if again is not got:  # a file read within its racy window: reloaded once more
                assert _view(again) == _view(_fresh(wskit_profile, wskit_pm, root)), name
        reloads = cache.stats()["reloads"]
        assert reloads >= len(_ops(root, home, market, outside, store)) - 1  # the edit while untrusted is unread
        # each reload ran a few of the load's loads, not all of them (the trust changes run most)
        assert ran < reloads * per_load / 3
    finally:
        cache.close()


def _runs() -> dict[str, int]:
    return dict(partial_reload.runs)


def _delta(before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in partial_reload.runs.items() if v != before.get(k, 0)}


@pytest.mark.parametrize("mode", ["watch", "stat"])
def test_a_reload_after_one_edit_runs_only_what_the_edit_touched(world, wskit_profile, wskit_pm, mode) -> None:
    root, home, market, _outside = world
    if mode == "watch":
        pytest.importorskip("inotify_simple")
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=mode == "watch")
    try:
        first = cache.resolve(root)
        before = _runs()
        agent = root / ".claude/agents/reviewer.md"
        agent.write_text("---\nname: reviewer\ndescription: edited\n---\nR\n")
        os.utime(agent, (OLD, OLD))  # settled: the reload keeps what it ran (an event on that file only)
        second = cache.resolve(root)
        assert second is not first
        assert second.registry("agent").get("project:reviewer").description == "edited"
        # the agent load of the project's .claude and the agent registry, nothing else
        assert _delta(before) == {"kind": 1, "load": 1, "registry": 1}
        for kind in ("skill", "command", "hook", "mcp_server", "style", "lsp_server"):
            assert second.registries[kind] is first.registries[kind], kind
        assert _view(second) == _view(_fresh(wskit_profile, wskit_pm, root))
        # nothing changed: no stage runs (and no reload at all)
        before = _runs()
        assert cache.resolve(root) is second and _delta(before) == {}
    finally:
        cache.close()


def test_a_skill_edit_rebuilds_the_kinds_it_shadows(world, wskit_profile, wskit_pm) -> None:
    """Commands are shadowed by skills of the same name: a changed skill registry is an
    input of the command registry's stage, so it is rebuilt (its loads are not)."""
    root, *_ = world
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    try:
        first = cache.resolve(root)
        (root / ".claude/commands/alpha.md").write_text("---\ndescription: c\n---\nA\n")
        _settle(root)
        second = cache.resolve(root)
        assert "project:alpha" not in {c.id for c in second.registry("command").active()}
        before = _runs()
        shutil.rmtree(root / ".claude/skills/alpha")
        _settle(root)
        third = cache.resolve(root)
        assert "project:alpha" in {c.id for c in third.registry("command").active()}
        assert _delta(before) == {"kind": 1, "load": 1, "registry": 1, "shadowed": 1}
        assert third.registry("agent") is second.registry("agent") is first.registry("agent")
        assert _view(third) == _view(_fresh(wskit_profile, wskit_pm, root))
    finally:
        cache.close()


def test_trust_revoked_reruns_what_depends_on_it(world, wskit_profile, wskit_pm) -> None:
    root, home, *_ = world
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    try:
        first = cache.resolve(root)
        TrustStore.for_home(home).revoke(root)
        _settle(home)
        second = cache.resolve(root)
        assert not second.trust.trusted
        assert "project:alpha" not in {r.id for r in second.resources()}
        assert "user:homeskill" in {r.id for r in second.resources()}
        assert _view(second) == _view(_fresh(wskit_profile, wskit_pm, root))
        # the home's skill load did not depend on the project's trust: taken whole
        home_skill = second.registry("skill").get("user:homeskill")
        assert home_skill is first.registry("skill").get("user:homeskill")
    finally:
        cache.close()


def test_an_environment_change_takes_nothing(world, wskit_profile, wskit_pm, monkeypatch) -> None:
    """Hooks read the environment: a reload under another environment runs every stage."""
    root, *_ = world
    cache = WorkspaceCache(wskit_profile, wskit_pm)
    try:
        cache.resolve(root)
        monkeypatch.setenv("WSKIT_PARTIAL_RELOAD_TEST", "1")
        (root / ".claude/agents/reviewer.md").write_text("---\nname: reviewer\ndescription: env\n---\nR\n")
        _settle(root)
        before = _runs()
        got = cache.resolve(root)
        assert _delta(before)["load"] > 1
        assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, root))
    finally:
        cache.close()


def test_a_stage_that_used_the_scratch_space_is_not_kept(wskit_profile) -> None:
    """What another stage read may stand behind the scratch space: such a stage always runs."""
    from wskit import changes

    calls = []

    def compute():
        calls.append(1)
        changes.scratch()
        return "v"

    with changes.recording(), changes.reusing(None) as memo:
        partial_reload.begin(None, "k")
        assert partial_reload.stage(("t",), (), compute) == "v"
    assert ("t",) not in memo.stages
    with changes.recording(), changes.reusing(memo) as memo2:
        partial_reload.begin(None, "k")
        partial_reload.stage(("t",), (), compute)
    assert len(calls) == 2 and ("t",) not in memo2.stages

    def clean():
        calls.append(2)
        return "w"

    with changes.recording(), changes.reusing(None) as memo3:
        partial_reload.begin(None, "k")
        partial_reload.stage(("u",), (1,), clean)
    with changes.recording(), changes.reusing(memo3):
        partial_reload.begin(None, "k")
        assert partial_reload.stage(("u",), (1,), clean) == "w"  # taken: nothing read, same inputs
        assert partial_reload.stage(("u",), (2,), clean) == "w"  # other inputs: runs
    assert calls.count(2) == 2
    with changes.recording(), changes.reusing(memo3):
        partial_reload.begin(None, "another key")  # another load key: nothing is taken
        partial_reload.stage(("u",), (1,), clean)
    assert calls.count(2) == 3


def test_overflow_falls_back_to_the_stat_check_and_still_reloads_partially(world, wskit_profile, wskit_pm) -> None:
    """A real IN_Q_OVERFLOW drops the watcher's proof: the stat check finds the edit, and
    the reload still takes every stage the edit did not touch."""
    pytest.importorskip("inotify_simple")
    if not os.path.exists("/proc/sys/fs/inotify"):
        pytest.skip("no inotify on this system")
    root, *_ = world
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 200_000:
        pytest.skip(f"max_queued_events is {limit}: an overflow would take too long here")
    a, b = root / "storm-1.txt", root / "storm-2.txt"
    a.write_text("1")
    b.write_text("2")
    _age(root)
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=True)
    try:
        first = cache.resolve(root)
        assert cache.resolve(root) is first
        for i in range(limit):  # twice the queue, alternating names: the kernel cannot merge them
            os.utime(a, (OLD + i, OLD + i))
            os.utime(b, (OLD + i, OLD + i))
        (root / ".claude/agents/reviewer.md").write_text("---\nname: reviewer\ndescription: overflow\n---\nR\n")
        _settle(root / ".claude/agents")
        before = _runs()
        got = cache.resolve(root)
        assert cache.watcher.overflows == 1
        assert got.registry("agent").get("project:reviewer").description == "overflow"
        assert _delta(before) == {"kind": 1, "load": 1, "registry": 1}
        assert got.registry("skill") is first.registry("skill")
        assert _view(got) == _view(_fresh(wskit_profile, wskit_pm, root))
    finally:
        cache.close()


def test_a_stage_that_read_a_racy_file_is_not_kept(tmp_path) -> None:
    """A file modified within the racy window of its read may change again in the same
    clock tick without changing its signature: the stage that read it is not kept."""
    from wskit import changes

    fresh = tmp_path / "fresh.txt"
    fresh.write_text("now")
    old = tmp_path / "old.txt"
    old.write_text("then")
    os.utime(old, (OLD, OLD))
    with changes.recording(), changes.reusing(None) as memo:
        partial_reload.begin(None, "k")
        partial_reload.stage(("racy",), (), lambda: changes.note(str(fresh)))
        partial_reload.stage(("settled",), (), lambda: changes.note(str(old)))
    assert ("racy",) not in memo.stages
    assert memo.stages[("settled",)].sigs == {(str(old), False): changes.stat_signature(str(old), False)}


def _appear_and_vanish(root: Path, home: Path):
    """(name, path, text): a file of each kind whose folder or file did not exist at the
    first load (a stage that looked and found nothing must go stale when it appears)."""
    return [
        ("command", root / ".claude/commands/cm.md", "---\ndescription: c\n---\nC\n"),
        ("agent", root / ".claude/agents/ag.md", "---\nname: ag\ndescription: a\n---\nA\n"),
        ("style", root / ".claude/output-styles/st.md", "---\nname: st\ndescription: s\n---\nS\n"),
        ("mcp", root / ".mcp.json", json.dumps({"mcpServers": {"m": {"command": "srv"}}})),
        ("lsp", root / ".lsp.json", json.dumps({"l": {"command": "ls", "extensionToLanguage": {".py": "python"}}})),
        ("project settings", root / ".claude/settings.json", _settings()),
        ("user settings", home / ".claude/settings.json", _settings(deny="Bash(curl:*)")),
        ("user rules", home / ".claude/CLAUDE.md", "user rules\n"),
        ("skill", root / ".claude/skills/new/SKILL.md", _skill("new", "appeared")),
    ]


@pytest.mark.parametrize("mode", ["watch", "stat"])
def test_what_was_absent_at_the_first_load_is_seen_when_it_appears_and_again_after_a_delete(
        tmp_path, wskit_home, wskit_profile, wskit_pm, mode) -> None:
    """A loader that looked for its folder or file and found nothing (its idle declaration)
    recorded the absence: the file appearing, vanishing and coming back each answer as a
    fresh load (a reload once kept the empty stage for good)."""
    if mode == "watch":
        pytest.importorskip("inotify_simple")
        if not os.path.exists("/proc/sys/fs/inotify"):
            pytest.skip("no inotify on this system")
    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: refs/heads/main\n", "README.md": "x\n"})
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(wskit_profile, wskit_pm, watch=mode == "watch")
    try:
        cache.resolve(root)
        for name, path, text in _appear_and_vanish(root, wskit_home):
            for step in ("appears", "vanishes", "comes back"):
                if step == "vanishes":
                    path.unlink()
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text)
                if mode == "stat":
                    _settle(root, wskit_home)
                assert _view(cache.resolve(root)) == _view(_fresh(wskit_profile, wskit_pm, root)), (name, step)
    finally:
        cache.close()
