"""The lazy rule catalog answers every query exactly as the whole-project catalog does
(differential, on random trees and on the benchmark's monorepo), reads only the folder
chains a query needs, and its later reads are dependencies of the workspace load."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.builtin_plugins.rules.test_incremental import _age
from wskit.binding import Binding
from wskit.builtin_plugins.rules.build import rule_sources
from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.lazy import LazyRuleCatalog, collect
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.builtin_plugins.rules.walk import ProjectWalker
from wskit.cache import WorkspaceCache
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

_NAMES = ("src", "lib", "app", "docs", "test", "node_modules", ".venvlike", "build", "pkg", "a b", ".claude",
          ".wskit", "deep")
_PATTERNS = ("**/*.py", "*.md", "src/**", "**/test*/**", "lib*/**/*.ts", "*.{ts,tsx}", "**", "deep/**/x.py")


def _eager(ws) -> RuleCatalog:
    """The whole-project catalog built the way an eager load builds it: every
    ``wskit_discover_rules`` implementation asked for the whole of every source."""
    hooks, profile = ws.hooks, ws.profile
    root = Path(ws.binding.source_root)
    settings, _ = RuleSettings.from_profile(profile)
    rules: list = []
    diags: list = []
    for src in rule_sources(root, profile, ws.trust.trusted):
        collect(hooks.discover_rules(src, root, profile), rules, diags)
    return RuleCatalog(root, rules, diagnostics=diags, settings=settings, trusted=True, home=profile.require_home())


def _random_tree(rng: random.Random) -> tuple[dict, list[str], list[str]]:
    files: dict[str, str] = {".git/HEAD": "ref: refs/heads/main\n"}
    folders = [""]
    for _ in range(rng.randint(4, 22)):
        parent = rng.choice(folders)
        if parent.count("/") >= 5:
            continue
        name = rng.choice(_NAMES)
        rel = f"{parent}/{name}" if parent else name
        if rel not in folders:
            folders.append(rel)
    targets: list[str] = []
    for d in folders:
        pre = f"{d}/" if d else ""
        for fname in ("AGENTS.md", "CLAUDE.md", "AGENTS.override.md", "WSKIT.md", "CLAUDE.local.md", "GEMINI.md"):
            if rng.random() < 0.3:
                files[pre + fname] = f"{fname} of {d or 'root'}\n" if rng.random() < 0.9 else "   \n"
        if rng.random() < 0.35:
            for k in range(rng.randint(1, 3)):
                pats = rng.sample(_PATTERNS, rng.randint(0, 2))
                fm = ("---\npaths: [" + ", ".join(f'"{p}"' for p in pats) + "]\n---\n") if pats else ""
                cfg = rng.choice((".claude", ".wskit"))
                files[f"{pre}{cfg}/rules/r{k}.md"] = fm + f"rule {k} of {d or 'root'}\n"
        if rng.random() < 0.1:
            files[f"{pre}.claude/rules/bad.md"] = "---\npaths: \"unclosed\n---\nx\n"
        if rng.random() < 0.15:
            files[pre + ".gitignore"] = "\n".join(rng.sample(["build/", "lib", "*.md", "!AGENTS.md", "docs/"], 2))
        if d and rng.random() < 0.08:
            files[pre + "pyvenv.cfg"] = "home = /usr\n"
        if d and rng.random() < 0.05:
            files[pre + ".git"] = "gitdir: /nowhere\n"
        for k in range(rng.randint(0, 3)):
            name = f"f{k}" + rng.choice((".py", ".ts", ".md", ".txt"))
            files[pre + name] = "x\n"
            targets.append(pre + name)
    targets += folders[1:] + ["nothing/here.py", "src/missing/x.py"]
    return files, folders, targets


def _ids(sel) -> tuple:
    return (tuple(r.id for r in sel.files), tuple((s.rule.id, s.reason) for s in sel.skipped), sel.trigger_paths)


def _compare(lazy, whole, root: str, folders: list[str], targets: list[str], rng: random.Random) -> None:
    ids = [r.id for r in whole.rules()]
    for _ in range(40):
        cwd = rng.choice(folders)
        cwd_abs = os.path.join(root, cwd) if cwd else root
        budget = rng.choice((None, None, 10, 40, 200))
        loaded = frozenset(rng.sample(ids, min(len(ids), rng.randint(0, 2))))
        assert _ids(lazy.static_rules(cwd_abs, budget)) == _ids(whole.static_rules(cwd_abs, budget)), cwd
        picked = rng.sample(targets, rng.randint(1, min(3, len(targets))))
        abs_t = [os.path.join(root, t) for t in picked]
        got = lazy.contextual_rules(cwd_abs, abs_t[:1], loaded, budget)
        assert _ids(got) == _ids(whole.contextual_rules(cwd_abs, abs_t[:1], loaded, budget)), (cwd, picked[:1])
        got = lazy.contextual_rules(cwd_abs, abs_t, loaded, budget)
        assert _ids(got) == _ids(whole.contextual_rules(cwd_abs, abs_t, loaded, budget)), (cwd, picked)
        rel = picked[0]
        assert [r.id for r in lazy.candidates(rel)] == [r.id for r in whole.candidates(rel)], rel
    assert not lazy.is_complete
    assert [r.id for r in lazy.rules()] == ids
    assert lazy.is_complete
    assert sorted((d.code, d.path or "") for d in lazy.diagnostics) == \
        sorted((d.code, d.path or "") for d in whole.diagnostics)
    cwd = rng.choice(folders)
    cwd_abs = os.path.join(root, cwd) if cwd else root
    assert _ids(lazy.shell_rules(cwd_abs, (), None)) == _ids(whole.shell_rules(cwd_abs, (), None))
    assert lazy.catalog_sha256 == whole.catalog_sha256


@pytest.fixture
def pm_with_entry_points():
    """The built-ins and the installed first-party plugins (wskit-gemini's ``GEMINI.md``
    implementation takes ``folders`` too)."""
    return make_plugin_manager(env={})


@pytest.mark.parametrize("seed", range(16))
def test_lazy_equals_whole_on_random_trees(tmp_path, wskit_home, pm_with_entry_points, seed):
    rng = random.Random(seed)
    files, folders, targets = _random_tree(rng)
    root = write_tree(tmp_path / "ws", files)
    write_tree(wskit_home, {".claude/CLAUDE.md": "user claude\n",
                            ".claude/rules/u.md": "---\npaths: [\"**/*.py\"]\n---\nuser py\n"})
    TrustStore.for_home(wskit_home).grant(root)
    profile = HostProfile(name="wskit", home=wskit_home)
    ws = load_workspace(WskitHooks(pm_with_entry_points), Binding.discover(root), profile)
    lazy = ws.catalog("rules")
    assert isinstance(lazy, LazyRuleCatalog)
    whole = _eager(ws)
    existing = [f for f in folders if (root / f).is_dir()]
    _compare(lazy, whole, str(root.resolve()), existing, targets, rng)


@pytest.mark.parametrize("seed", range(4))
def test_a_load_for_the_whole_project_is_eager_and_answers_alike(tmp_path, wskit_home, pm_with_entry_points, seed):
    """Inside ``changes.whole_project()`` (``wsctl inspect``) the load reads every rule at once:
    an eager catalog, whose answers are the lazy catalog's (rules, order, diagnostics, digest)."""
    from wskit import changes

    rng = random.Random(seed)
    files, folders, targets = _random_tree(rng)
    root = write_tree(tmp_path / "ws", files)
    TrustStore.for_home(wskit_home).grant(root)
    profile = HostProfile(name="wskit", home=wskit_home)
    with changes.whole_project():
        assert changes.whole_project_wanted()
        ws = load_workspace(WskitHooks(pm_with_entry_points), Binding.discover(root), profile)
    assert not changes.whole_project_wanted()
    eager = ws.catalog("rules")
    assert type(eager) is RuleCatalog
    lazy = load_workspace(WskitHooks(pm_with_entry_points), Binding.discover(root), profile).catalog("rules")
    assert isinstance(lazy, LazyRuleCatalog)
    existing = [f for f in folders if (root / f).is_dir()]
    _compare(lazy, eager, str(root.resolve()), existing, targets, rng)
    assert [(d.level, d.code, d.path, d.message) for d in lazy.diagnostics] == \
        [(d.level, d.code, d.path, d.message) for d in eager.diagnostics]


def test_lazy_equals_whole_on_the_benchmark_monorepo(tmp_path, wskit_home, pm_with_entry_points):
    from tests.benchmarks.trees import generate

    root = generate("monorepo", tmp_path / "trees", scale=0.03, seed=1).resolve()
    TrustStore.for_home(wskit_home).grant(root)
    profile = HostProfile(name="wskit", home=wskit_home)
    ws = load_workspace(WskitHooks(pm_with_entry_points), Binding.discover(root), profile)
    whole = _eager(ws)
    assert len(whole) >= 10
    folders = sorted({str(Path(os.path.relpath(dp, root))).replace(".", "", 1) if dp == str(root) else
                      os.path.relpath(dp, root) for dp, _d, _f in os.walk(root) if "/.git" not in dp + "/"})
    folders = [f for f in folders if not f.startswith(".git")]
    targets = [os.path.relpath(os.path.join(dp, f), root) for dp, _d, fs in os.walk(root) for f in fs
               if "/.git/" not in dp + "/"]
    rng = random.Random(7)
    _compare(ws.catalog("rules"), whole, str(root), folders, rng.sample(targets, 300) + folders[:50], rng)


def test_a_query_lists_only_its_chain(tmp_path, wskit_home, wskit_pm, monkeypatch):
    tree = {".git/HEAD": "ref: x\n", "AGENTS.md": "root\n"}
    for i in range(30):
        tree[f"side{i}/AGENTS.md"] = f"side {i}\n"
        tree[f"side{i}/x/y/f.py"] = "x\n"
    tree["a/b/c/AGENTS.md"] = "abc\n"
    tree["a/b/c/.claude/rules/py.md"] = "---\npaths: [\"**/*.py\"]\n---\npy\n"
    root = write_tree(tmp_path / "ws", tree).resolve()
    TrustStore.for_home(wskit_home).grant(root)
    seen: list[str] = []
    real = ProjectWalker._list
    monkeypatch.setattr(ProjectWalker, "_list", lambda self, fd, shown: seen.append(shown) or real(self, fd, shown))
    ws = WorkspaceCache(HostProfile(name="wskit", home=wskit_home), wskit_pm).resolve(root)
    cat = ws.catalog("rules")
    sel = cat.contextual_rules(str(root), [str(root / "a/b/c/d/e.py")])
    assert [r.path for r in sel.files] == ["a/b/c/AGENTS.md", "a/b/c/.claude/rules/py.md"]
    assert sorted(os.path.relpath(p, root) for p in seen) == [".", "a", "a/b", "a/b/c"]
    seen.clear()
    cat.contextual_rules(str(root), [str(root / "a/b/c/g.py")])
    cat.static_rules(str(root / "a/b"))
    assert seen == []  # every folder of these chains was read once
    assert len(cat.rules()) == 33 and len(seen) > 30  # the whole project, only when asked


def test_later_reads_are_dependencies_of_the_load(tmp_path, wskit_home, wskit_pm):
    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: x\n", "AGENTS.md": "root\n", "a/b/f.py": "x\n",
                                        "other/AGENTS.md": "other\n"}).resolve()
    TrustStore.for_home(wskit_home).grant(root)
    _age(root, wskit_home)
    cache = WorkspaceCache(HostProfile(name="wskit", home=wskit_home), wskit_pm)
    first = cache.resolve(root)
    assert first.catalog("rules").contextual_rules(str(root), [str(root / "a/b/f.py")]).files == ()
    # a folder no query read is no dependency: the workspace stays
    (root / "other/AGENTS.md").write_text("changed\n")
    _age(root)
    assert cache.resolve(root) is first
    # a folder a query read after the load is one: a new file there reloads
    (root / "a/b/AGENTS.md").write_text("new in a/b\n")
    _age(root)
    again = cache.resolve(root)
    assert again is not first
    sel = again.catalog("rules").contextual_rules(str(root), [str(root / "a/b/f.py")])
    assert [r.path for r in sel.files] == ["a/b/AGENTS.md"]


def test_non_lazy_implementations_are_asked_once_for_the_whole_project(tmp_path, wskit_home, wskit_pm):
    from wskit.builtin_plugins.rules.model import rule_digest, rule_id
    from wskit.models import Provenance, Scope
    from wskit.plugin import hookimpl
    from wskit.resources.rule import RuleFile
    from wskit.testing import register_plugin

    calls: list = []

    class Deep:
        @hookimpl
        def wskit_discover_rules(self, source, catalog_root, profile):
            calls.append(source.scope)
            if source.scope != Scope.PROJECT:
                return None
            body = "deep rule"
            return [RuleFile(id=rule_id("project", "x/y/DEEP.md"), name="x/y/DEEP.md", source="project",
                             scope_dir="x/y", priority=65, patterns=(), body=body, bytes=len(body),
                             file_kind="instruction", follow_links=False,
                             provenance=Provenance(scope=Scope.PROJECT, source_root=str(source.root),
                                                   path="x/y/DEEP.md", sha256=rule_digest("x/y/DEEP.md", (), body)))]

    root = write_tree(tmp_path / "ws", {".git/HEAD": "ref: x\n", "x/y/AGENTS.md": "agents\n"}).resolve()
    TrustStore.for_home(wskit_home).grant(root)
    with register_plugin(wskit_pm, Deep(), "deep"):
        ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(root), HostProfile(name="wskit", home=wskit_home))
        cat = ws.catalog("rules")
        assert [r.path for r in cat.static_rules(str(root / "x/y")).files] == ["x/y/AGENTS.md", "x/y/DEEP.md"]
        cat.rules()
        assert calls == [Scope.USER, Scope.PROJECT]
        assert not [d for d in cat.diagnostics if d.code == "duplicate-rule"]
