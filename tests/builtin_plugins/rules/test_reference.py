"""``contextual_rules`` (the scope index) against a brute-force reference
on a generated repository of 10,000 folders and 300 rule files (hypothesis).

The repository is generated once per module from a fixed seed; hypothesis then
draws cwd folders, target paths and loaded sets.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wskit.binding import Binding
from wskit.builtin_plugins.rules.catalog import apply_budget
from wskit.builtin_plugins.rules.model import RuleFile
from wskit.builtin_plugins.rules.patterns import reference_match
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

N_DIRS = 10_000
N_RULES = 300
PATTERNS = ["**/*.py", "*.md", "src/**", "*.{ts,tsx}", "**/test_*.py", "[a-c]*/**/*.txt", "**/.hidden*",
            "n1*/**", "**/*.{json,yml}", "?/*.py", "docs/**/*.md", "**/x.ts"]
FILE_NAMES = ["a.py", "README.md", "x.ts", "y.tsx", "test_z.py", ".hidden.txt", "c.txt", "conf.json", "s.yml"]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    rng = random.Random(20261129)
    root = tmp_path_factory.mktemp("big") / "repo"
    home = tmp_path_factory.mktemp("bighome")
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    dirs = [""]
    dirs_set = {""}
    names = ["src", "docs", "a", "b", "c", "n1", "n12", "x", "lib", "pkg"]
    while len(dirs) < N_DIRS:
        parent = dirs[min(int(rng.expovariate(1 / 800)), len(dirs) - 1)]
        name = rng.choice(names) + (str(rng.randrange(40)) if rng.random() < 0.7 else "")
        rel = f"{parent}/{name}" if parent else name
        if rel not in dirs_set:
            dirs_set.add(rel)
            dirs.append(rel)
            os.makedirs(root / rel, exist_ok=True)
    expected = set()
    kinds = ["AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "rule", "rule", "rule"]
    while len(expected) < N_RULES:
        d = rng.choice(dirs)
        kind = rng.choice(kinds)
        if kind == "rule":
            rel = f"{d}/.claude/rules/r{rng.randrange(5)}.md" if d else f".claude/rules/r{rng.randrange(5)}.md"
            pats = rng.sample(PATTERNS, rng.randrange(0, 3))
            text = ("---\npaths: " + repr(pats).replace("'", '"') + "\n---\n" if pats else "") + f"rule {rel}\n"
        else:
            rel = f"{d}/{kind}" if d else kind
            text = f"instructions {rel} " + "x" * rng.randrange(200)
        if rel in expected:
            continue
        expected.add(rel)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (home / ".claude" / "rules").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("user, unconditional")
    (home / ".claude" / "rules" / "py.md").write_text('---\npaths: ["src*/**/*.py", "*.md"]\n---\nuser python\n')
    TrustStore.for_home(home).set(root, "trusted")
    pm = make_plugin_manager(load_entrypoints=False, env={})
    ws = load_workspace(WskitHooks(pm), Binding.discover(root), HostProfile(home=home))
    return ws.catalog("rules"), dirs, expected


def test_discovery_finds_exactly_the_generated_files(big):
    catalog, _dirs, expected = big
    assert {r.path for r in catalog.rules() if r.source != "user"} == expected
    assert [r.path for r in catalog.rules() if r.source == "user"] == [".claude/CLAUDE.md", ".claude/rules/py.md"]
    assert [d for d in catalog.diagnostics if d.level == "error"] == []
    assert list(catalog.rules()) == sorted(catalog.rules(), key=RuleFile.sort_key)


def reference(catalog, cwd_rel: str, targets: list[str], loaded: set[str]) -> list[str]:
    """Every rule × every target, no index."""
    chosen = []
    for r in sorted(catalog.rules(), key=RuleFile.sort_key):
        if r.id in loaded:
            continue
        for t in targets:
            scope = "" if r.source == "user" else r.scope_dir
            if not (scope == "" or t == scope or t.startswith(scope + "/")):
                continue
            if r.patterns:
                sub = t[len(scope) + 1:] if scope else t
                if any(reference_match(sub, p) for p in r.patterns):
                    chosen.append(r)
                    break
            elif not (r.source == "user" or scope == "" or cwd_rel == scope or cwd_rel.startswith(scope + "/")):
                chosen.append(r)
                break
    return [r.id for r in chosen]


@st.composite
def queries(draw, dirs):
    cwd = draw(st.sampled_from(dirs))
    targets = []
    for _ in range(draw(st.integers(1, 4))):
        d = draw(st.sampled_from(dirs))
        leaf = draw(st.sampled_from([*FILE_NAMES, None]))
        targets.append(d if leaf is None else (f"{d}/{leaf}" if d else leaf))
    return cwd, targets


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_contextual_rules_match_brute_force(big, data):
    catalog, dirs, _ = big
    cwd, targets = data.draw(queries(dirs))
    ids = [r.id for r in catalog.rules()]
    loaded = set(data.draw(st.lists(st.sampled_from(ids), max_size=20)))
    root = Path(catalog.root)
    got = catalog.contextual_rules(root / cwd, [root / t for t in targets], loaded)
    want = reference(catalog, cwd, [t for t in targets if t], loaded)
    assert list(got.ids) == want
    budget = data.draw(st.integers(0, 2000))
    got_b = catalog.contextual_rules(root / cwd, [root / t for t in targets], loaded, budget=budget)
    kept, skipped = apply_budget([catalog.get(i) for i in want], budget)
    assert list(got_b.ids) == [r.id for r in kept]
    assert [s.rule.id for s in got_b.skipped] == [s.rule.id for s in skipped]
    assert sum(r.bytes for r in got_b.files) <= budget
