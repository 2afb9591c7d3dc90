"""Deterministic benchmark trees (standard library only, seeded).

Shapes (docs/performance.md), at ``scale=1.0``:

``monorepo``
    50,000 files in 5,000 directories (both counts *include* the ignored
    ``node_modules/`` folder and the ``.claude/rules`` folders; ``.git`` is not
    counted), depth ≤ 8 below the root, 200 ``AGENTS.md`` at random depths
    (one at the root), 50 ``CLAUDE.md``, 100 rule files with ``paths``
    frontmatter under 20 ``.claude/rules/`` folders, a root ``.gitignore`` that
    ignores ``node_modules/`` (10,000 files in 500 folders), all committed to a
    git repository with fixed author/committer dates.
``skills``
    1,000 skill folders under ``.claude/skills/``: a 3,072-byte ``SKILL.md``
    whose body is 10× its frontmatter (279 + 2,793 bytes), a
    ``references/REFERENCE.md`` and a ``scripts/run.py``; ``git init``-ed.
``plugins``
    100 bundles under ``.claude/plugins/<name>/``, each with
    ``.claude-plugin/plugin.json``, 5 commands, 3 skills, 2 agents,
    ``hooks/hooks.json`` and ``.mcp.json``; ``git init``-ed.

``scale`` multiplies every count (``--scale 0.1`` for quick runs). The same
``(shape, scale, seed)`` always yields byte-identical files. Trees are cached:
:func:`generate` returns at once when ``<dest>/<name>.done`` exists.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

SHAPES = ("monorepo", "skills", "plugins")
#: Fixed time for every generated file and folder (2026-01-01T00:00:00Z), so
#: trees are reproducible and never look freshly modified to change detection.
FIXED_MTIME = 1767225600
MAX_DEPTH = 8
SKILL_BYTES = 3072
SKILL_FM_BYTES = SKILL_BYTES // 11  # body = 10x frontmatter

_WORDS = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma "
    "tau upsilon phi chi psi omega build test lint deploy render parse index cache query stream"
).split()


def _text(rng: random.Random, n: int) -> str:
    """``n`` characters of ASCII prose (lines of ≤ 72 characters), exactly."""
    out: list[str] = []
    size = 0
    line = 0
    while size < n:
        w = rng.choice(_WORDS)
        sep = "\n" if line + len(w) > 72 else " "
        line = 0 if sep == "\n" else line + len(w) + 1
        out.append(w + sep)
        size += len(w) + 1
    return "".join(out)[:n]


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode() if isinstance(text, str) else text
    with open(path, "wb") as f:
        f.write(data)


def _n(count: int, scale: float, minimum: int = 1) -> int:
    return max(minimum, round(count * scale))


def tree_name(shape: str, scale: float, seed: int) -> str:
    """Folder name of a generated tree: ``<shape>-s<scale>-r<seed>``."""
    return f"{shape}-s{scale:g}-r{seed}"


def generate(shape: str, dest: str | os.PathLike[str], *, scale: float = 1.0, seed: int = 0) -> Path:
    """Generate (or reuse) one tree and return its root.

    :param shape: one of :data:`SHAPES`.
    :param dest: parent folder (created); the tree is ``dest/<tree_name>``.
    :param scale: multiplier of every count (> 0).
    :param seed: seed of the ``random.Random`` driving every choice.
    :raises ValueError: unknown shape or non-positive scale.
    :raises subprocess.CalledProcessError: ``git`` failed.
    """
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; choose from {', '.join(SHAPES)}")
    if scale <= 0:
        raise ValueError("scale must be > 0")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest / tree_name(shape, scale, seed)
    done = dest / (root.name + ".done")
    if done.exists() and root.is_dir():
        return root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    rng = random.Random(f"{shape}:{seed}")
    manifest = {"monorepo": _monorepo, "skills": _skills, "plugins": _plugins}[shape](root, rng, scale)
    _fix_times(root)
    if shape == "monorepo":
        _git(root, commit=True)
    else:
        _git(root, commit=False)
    done.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return root


def manifest(root: Path) -> dict:
    """The counts recorded when ``root`` was generated."""
    return json.loads((root.parent / (root.name + ".done")).read_text())


# -- monorepo -------------------------------------------------------------


def _monorepo(root: Path, rng: random.Random, scale: float) -> dict:
    n_files, n_dirs = _n(50_000, scale, 50), _n(5_000, scale, 30)
    nm_files, nm_dirs = _n(10_000, scale, 10), _n(500, scale, 2)
    n_agents, n_claude, n_rules = _n(200, scale), _n(50, scale), _n(100, scale, 5)
    rule_folders = max(1, min(_n(20, scale), n_rules))
    # source folders (everything but node_modules and the .claude/rules pairs)
    src_dirs = n_dirs - nm_dirs - 2 * rule_folders
    dirs: list[tuple[str, int]] = [("", 0)]  # (relative path, depth); root not counted
    for i in range(src_dirs):
        while True:
            parent, depth = rng.choice(dirs)
            if depth < MAX_DEPTH:
                break
        name = rng.choice(("src", "lib", "pkg", "app", "core", "util", "test", "docs")) + f"{i}"
        dirs.append((f"{parent}/{name}" if parent else name, depth + 1))
    for rel, _ in dirs[1:]:
        (root / rel).mkdir()
    # node_modules: nm_dirs folders (depth ≤ 3) below one ignored folder
    nm: list[str] = ["node_modules"]
    for i in range(nm_dirs - 1):
        parent = rng.choice(nm[: max(1, len(nm))])
        if parent.count("/") >= 2:
            parent = "node_modules"
        nm.append(f"{parent}/pkg{i}")
    for rel in nm:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for i in range(nm_files):
        _write(root / rng.choice(nm) / f"index{i}.js", f"module.exports = {i};\n" + _text(rng, rng.randint(50, 400)))
    # rule folders: root + random source folders, each with 5-ish rules
    rule_homes = [""] + rng.sample([d for d, depth in dirs[1:] if depth < MAX_DEPTH - 1], rule_folders - 1)
    rules = 0
    for k in range(n_rules):
        home = rule_homes[k % rule_folders]
        pattern = rng.choice(("**/*.py", "src*/**", "**/*.md", "lib*/**/*.ts", "**/test*/**", "*.toml"))
        body = f"# Rule {k}\n\n" + _text(rng, rng.randint(200, 1200)) + "\n"
        _write(root / home / ".claude" / "rules" / f"rule-{k:03d}.md",
               f"---\npaths:\n  - \"{pattern}\"\ndescription: rule {k}\n---\n{body}")
        rules += 1
    # instruction files
    agents = ["", *rng.sample([d for d, _ in dirs[1:]], n_agents - 1)]
    for d in agents:
        _write(root / d / "AGENTS.md", f"# Agents {d or 'root'}\n\n" + _text(rng, rng.randint(200, 2000)) + "\n")
    for d in rng.sample([d for d, _ in dirs], n_claude):
        _write(root / d / "CLAUDE.md", f"# Claude {d or 'root'}\n\n" + _text(rng, rng.randint(200, 2000)) + "\n")
    _write(root / ".gitignore", "node_modules/\n*.pyc\n")
    fixed = 1 + nm_files + rules + n_agents + n_claude
    for i in range(n_files - fixed):
        d, _ = rng.choice(dirs)
        ext = rng.choice((".py", ".py", ".ts", ".md", ".json", ".txt"))
        _write(root / d / f"file{i}{ext}", _text(rng, rng.randint(100, 1500)) + "\n")
    return _count(root)


# -- skills ---------------------------------------------------------------


def skill_md(rng: random.Random, name: str, total: int = SKILL_BYTES) -> str:
    """A SKILL.md of exactly ``total`` bytes: frontmatter ``total // 11`` bytes
    (delimiters included), body the rest (10× the frontmatter)."""
    fm_bytes = total // 11
    head = f"---\nname: {name}\nlicense: Apache-2.0\nallowed-tools: Read Grep\ndescription: "
    tail = "\n---\n"
    desc = _text(rng, fm_bytes - len(head) - len(tail)).replace("\n", " ").replace(":", " ")
    fm = head + desc + tail
    body = f"# {name}\n\n" + _text(rng, total - len(fm) - len(name) - 4)
    text = fm + body
    assert len(text.encode()) == total, (len(text), total)
    return text


def _skills(root: Path, rng: random.Random, scale: float) -> dict:
    n = _n(1000, scale)
    base = root / ".claude" / "skills"
    for i in range(n):
        name = f"skill-{i:04d}"
        _write(base / name / "SKILL.md", skill_md(rng, name))
        _write(base / name / "references" / "REFERENCE.md", "# Reference\n\n" + _text(rng, 2000) + "\n")
        _write(base / name / "scripts" / "run.py", f"print({name!r})\n")
    return _count(root)


# -- plugins --------------------------------------------------------------


def _md(rng: random.Random, fm: dict[str, str], body: int) -> str:
    lines = "".join(f"{k}: {v}\n" for k, v in fm.items())
    return f"---\n{lines}---\n" + _text(rng, body) + "\n"


def _plugins(root: Path, rng: random.Random, scale: float) -> dict:
    n = _n(100, scale)
    base = root / ".claude" / "plugins"
    for i in range(n):
        name = f"bundle-{i:03d}"
        p = base / name
        _write(p / ".claude-plugin" / "plugin.json", json.dumps(
            {"name": name, "version": f"1.{i}.0", "description": f"benchmark bundle {i}",
             "author": {"name": "bench"}, "license": "MIT"}, indent=2) + "\n")
        for c in range(5):
            _write(p / "commands" / f"cmd-{c}.md",
                   _md(rng, {"description": f"command {c} of {name}", "argument-hint": "[file]"}, 600)
                   + "Run on $ARGUMENTS.\n")
        for s in range(3):
            sname = f"{name}-skill-{s}"
            _write(p / "skills" / sname / "SKILL.md", skill_md(rng, sname, 1536))
        for a in range(2):
            _write(p / "agents" / f"agent-{a}.md",
                   _md(rng, {"name": f"agent-{a}", "description": f"agent {a} of {name}", "tools": "Read, Grep"}, 800))
        _write(p / "hooks" / "hooks.json", json.dumps({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"}]}]}},
            indent=2) + "\n")
        _write(p / ".mcp.json", json.dumps({"mcpServers": {f"srv{i}": {
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/server", "args": ["--stdio"]}}}, indent=2) + "\n")
    return _count(root)


# -- helpers ----------------------------------------------------------------


def _count(root: Path) -> dict:
    files = dirs = depth = 0
    stack = [(str(root), 0)]
    while stack:
        path, d = stack.pop()
        with os.scandir(path) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    dirs += 1
                    depth = max(depth, d + 1)
                    stack.append((e.path, d + 1))
                else:
                    files += 1
    return {"files": files, "dirs": dirs, "max_depth": depth}


def _fix_times(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for f in filenames:
            os.utime(os.path.join(dirpath, f), (FIXED_MTIME, FIXED_MTIME))
        os.utime(dirpath, (FIXED_MTIME, FIXED_MTIME))


def _git(root: Path, *, commit: bool) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    run = lambda *a: subprocess.run(["git", *a], cwd=root, env=env, check=True,  # noqa: E731
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run("init", "-q", "-b", "main")
    if commit:
        run("add", "-A")
        run("commit", "-q", "--no-gpg-sign", "-m", "benchmark tree")
