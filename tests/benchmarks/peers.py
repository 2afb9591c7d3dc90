"""``python -m tests.benchmarks --peers``: wskit beside Claude Code, Codex CLI and Gemini CLI.

Targets P1–P6 (docs/performance.md, "Per-turn speed"), the peer table and the scaling
table (monorepo at scales 0.1, 0.3, 1, 3). Every process runs with a fresh home in a
temporary folder (set-up such as trust is untimed), all cases of a round are shuffled and
run once each, after one untimed warm-up round; a ratio is the median of the per-round
ratios (host-oracles.md, "Timing side by side"); the CPU time of each whole process (user +
system, from the kernel's accounting of reaped children) is kept beside its wall time and
reported as a second ratio. With ``--base WSCTL`` (or ``$WSKIT_BENCH_BASE``: another
installation's ``wsctl``, e.g. main's) every wsctl case also runs through it in the same
rounds, and a before/after table says each one's wall and CPU ratio. A host that keeps running (Claude Code,
Gemini CLI) is timed to its first stdout line and its process group killed then; Codex's
``debug prompt-input`` and wsctl run to their exit. The load average is printed at the
start and the end. Hosts are looked for under ``--hosts`` (default ``$WSKIT_HOSTS`` or
``/work/hosts``, the layout of host-oracles.md); a missing host's rows say ``n/a``.
"""

from __future__ import annotations

import glob
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import trees
from .harness import Row, fmt

PY = sys.executable
SCALES = (0.1, 0.3, 1.0, 3.0)
#: a run that takes longer is killed and counted as missing
TIMEOUT = 120.0
_DEAD_URL = "http://127.0.0.1:9"  # the discard port: a model request fails at once

_BARE_WALK = textwrap.dedent("""
    import os, sys
    n = 0
    stack = [sys.argv[1]]
    while stack:
        p = stack.pop()
        with os.scandir(p) as it:
            for e in it:
                n += 1
                if e.name != ".git" and e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
    print(n)
""")


def find_hosts(base: str) -> dict[str, str | None]:
    """The host binaries under ``base``: ``claude``, ``codex`` (the node wrapper),
    ``codex-bin`` (its native binary), ``gemini``; None when absent."""
    def first(pattern: str) -> str | None:
        hits = sorted(glob.glob(os.path.join(base, pattern)))
        return hits[0] if hits and os.access(hits[0], os.X_OK) else None

    return {
        "claude": first("claude-venv/lib/python3*/site-packages/claude_agent_sdk/_bundled/claude"),
        "codex": first("npm/node_modules/.bin/codex"),
        "codex-bin": first("npm/node_modules/@openai/codex-linux-*/vendor/*/bin/codex"),
        "gemini": first("npm/node_modules/.bin/gemini"),
    }


def host_version(exe: str, homes: Path) -> str:
    """The first line ``exe --version`` prints (a fresh home), or ``?``."""
    home = tempfile.mkdtemp(prefix="home-version-", dir=homes)
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", ""), "HOME": home, "LANG": "C.UTF-8"})
        lines = (out.stdout or out.stderr).strip().splitlines()
        return lines[0].strip() if lines else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"
    finally:
        shutil.rmtree(home, ignore_errors=True)


def deep_file(root: Path, depth: int = 8) -> Path:
    """The first file (sorted walk) of the first folder ``depth`` levels deep (or the
    deepest level the tree has), outside ``.git``, ``node_modules`` and ``.claude``."""
    best: tuple[int, str] | None = None
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules", ".claude"))
        rel = os.path.relpath(dirpath, root)
        d = 0 if rel == "." else rel.count("/") + 1
        if files and d <= depth and (best is None or d > best[0]):
            best = (d, os.path.join(dirpath, sorted(files)[0]))
            if d == depth:
                break
    assert best is not None, root
    return Path(best[1])


@dataclass
class Case:
    """One process to time: ``argv`` run in ``cwd`` with ``env(home)``; ``setup(home)``
    runs untimed first; ``first_line``: time to the first stdout line, then kill."""

    name: str
    argv: list[str]
    cwd: str
    env: dict = field(default_factory=dict)
    setup: object = None
    first_line: bool = False
    #: exit statuses of a successful run (``permissions check`` ends with 3 for "ask")
    ok_status: tuple = (0,)


#: CPU seconds (user + system) of every timed run, per case name, in round order (None: failed)
CPU: dict[str, list[float | None]] = {}
_last_cpu: list[float | None] = [None]


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _wskit_env(home: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSKIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["HOME"] = home
    return env


def stop_group(proc: subprocess.Popen) -> None:
    """Kill ``proc``'s process group (it was started with ``start_new_session``: a host's
    children go too), close its piped stdout or stdin if any, and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for stream in (proc.stdout, proc.stdin):
        if stream is not None:
            stream.close()
    proc.wait()


def run_once(case: Case, homes: Path) -> float | None:
    """Seconds of one run with a fresh home, or None when it failed or timed out."""
    home = tempfile.mkdtemp(prefix="home-", dir=homes)
    try:
        if case.setup is not None:
            case.setup(home)
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "HOME": home, **case.env}
        if case.argv[0] in (PY, _wsctl()) or case.name.startswith("base:"):
            env = {**_wskit_env(home), **case.env}
        c0 = _children_cpu()
        t0 = time.perf_counter()
        proc = subprocess.Popen(case.argv, cwd=case.cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            if case.first_line:
                line = proc.stdout.readline()
                took = time.perf_counter() - t0
                ok = bool(line)
            else:
                proc.stdout.read()
                proc.wait(timeout=TIMEOUT)
                took = time.perf_counter() - t0
                ok = proc.returncode in case.ok_status
        finally:
            stop_group(proc)
        _last_cpu[0] = _children_cpu() - c0 if ok else None
        return took if ok else None
    finally:
        shutil.rmtree(home, ignore_errors=True)


def run_rounds(cases: list[Case], repeat: int, homes: Path, seed: int = 0) -> dict[str, list[float | None]]:
    """Every case once per round, in a shuffled order, after one untimed warm-up round."""
    times: dict[str, list[float | None]] = {c.name: [] for c in cases}
    CPU.clear()
    CPU.update({c.name: [] for c in cases})
    for rnd in range(repeat + 1):
        order = list(cases)
        random.Random(seed * 1000 + rnd).shuffle(order)
        for c in order:
            t = run_once(c, homes)
            if rnd:
                times[c.name].append(t)
                CPU[c.name].append(_last_cpu[0])
        print(f"    round {rnd}/{repeat} done", file=sys.stderr, flush=True)
    return times


def med(ts: list[float | None]) -> float | None:
    ok = [t for t in ts if t is not None]
    return statistics.median(ok) if ok else None


def ratio(a: list[float | None], b: list[float | None]) -> float | None:
    """Median of the per-round ratios ``a/b`` (rounds where both ran)."""
    rs = [x / y for x, y in zip(a, b) if x is not None and y]
    return statistics.median(rs) if rs else None


def _wsctl() -> str:
    from .procs import _wsctl as find

    return find()


def _trust(root: Path):
    def setup(home: str) -> None:
        from wskit.trust import TrustStore

        TrustStore.for_home(Path(home)).grant(root)
    return setup


def _gemini_setup(home: str) -> None:
    os.makedirs(os.path.join(home, ".gemini"), exist_ok=True)
    Path(home, ".gemini", "settings.json").write_text('{"security":{"auth":{"selectedType":"gemini-api-key"}}}')


def _host_cases(tag: str, hosts: dict, cwd: str) -> list[Case]:
    out = []
    if hosts["claude"]:
        out.append(Case(f"claude@{tag}", [hosts["claude"], "-p", "hi", "--output-format", "stream-json", "--verbose"],
                        cwd, {"ANTHROPIC_BASE_URL": _DEAD_URL, "ANTHROPIC_API_KEY": "x"}, first_line=True))
    if hosts["codex"]:
        out.append(Case(f"codex@{tag}", [hosts["codex"], "debug", "prompt-input"], cwd))
    if hosts["codex-bin"]:
        out.append(Case(f"codex-bin@{tag}", [hosts["codex-bin"], "debug", "prompt-input"], cwd))
    if hosts["gemini"]:
        out.append(Case(f"gemini@{tag}", [hosts["gemini"], "-p", "/memory show"], cwd,
                        {"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_API_KEY": "x",
                         "GOOGLE_GEMINI_BASE_URL": _DEAD_URL}, setup=_gemini_setup, first_line=True))
    return out


def p3(ctx, root: Path, target: Path) -> list[Row]:
    """P3 in a fresh process: imports and plugin manager first (untimed), then a fresh
    ``WorkspaceCache``'s resolve + first contextual query for ``target``, then later queries."""
    script = textwrap.dedent("""
        import json, os, random, statistics, sys, time
        from pathlib import Path
        from wskit.cache import WorkspaceCache
        from wskit.host import HostProfile
        from wskit.plugin.manager import make_plugin_manager
        home, root, target, warm = sys.argv[1:5]
        pm = make_plugin_manager()
        prof = HostProfile(name="wskit", home=Path(home))
        w = WorkspaceCache(prof, pm).resolve(warm)   # imports of the query path, on another tree
        wc = w.catalog("rules"); wc.contextual_rules(warm, [os.path.join(warm, "x.py")], wc.static_rules(warm).ids)
        t0 = time.perf_counter()
        ws = WorkspaceCache(prof, pm).resolve(root)
        cat = ws.catalog("rules")
        sel = cat.contextual_rules(root, [target], cat.static_rules(root).ids)
        first = time.perf_counter() - t0
        files = []
        for dp, dn, fn in os.walk(root):
            dn[:] = [d for d in dn if d not in (".git", "node_modules")]
            files += [os.path.join(dp, f) for f in fn]
        files.sort()
        rng = random.Random(0)
        paths = [rng.choice(files) for _ in range(2000)]
        t0 = time.perf_counter()
        for p in paths:
            cat.contextual_rules(root, [p])
        new = (time.perf_counter() - t0) / len(paths)
        passes = []
        for _ in range(3):
            t0 = time.perf_counter()
            for p in paths:
                cat.contextual_rules(root, [p])
            passes.append((time.perf_counter() - t0) / len(paths))
        print(json.dumps({"first": first, "new": new, "later": statistics.median(passes), "n": len(sel.files)}))
    """)
    warm = trees.generate("monorepo", ctx.dest, scale=0.1, seed=ctx.seed)
    import json

    home = tempfile.mkdtemp(prefix="home-", dir=ctx.dest)
    try:
        _trust(root)(home)
        _trust(warm)(home)
        ctx.settle(Path(home) / ".wskit")
        runs = []
        for _ in range(max(3, ctx.repeat // 2)):
            out = subprocess.run([PY, "-c", script, home, str(root), str(target), str(warm)], check=True,
                                 capture_output=True, text=True, env=_wskit_env(home))
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    first = statistics.median(r["first"] for r in runs)
    later = statistics.median(r["later"] for r in runs)
    new = statistics.median(r["new"] for r in runs)
    return [
        Row("P3 first", "fresh WorkspaceCache: resolve + first contextual_rules for F (in process)", first,
            "10 ms", 0.010, "≤ 10 ms", first <= 0.010, f"{len(runs)} processes"),
        Row("P3 later", "later contextual_rules, 2,000 random paths, second pass", later, "50 µs", 50e-6,
            "≤ 50 µs", later <= 50e-6, f"first pass over the same paths (new folders read): {fmt(new)}/query"),
    ]


#: within this distance of its line a ratio is "at the line": met only when the CPU ratio meets it too
AT_THE_LINE = 0.05


def meets(wall: float | None, cpu: float | None, limit: float) -> bool | None:
    """Whether a ratio meets ``≤ limit``: clearly under the line by wall time, or at the line
    (within :data:`AT_THE_LINE`) with the CPU ratio under it too."""
    if wall is None:
        return None
    if wall < limit - AT_THE_LINE:
        return True
    if wall <= limit + AT_THE_LINE:
        return cpu is not None and cpu <= limit
    return False


#: the wsctl cases a ``--base`` installation runs too (before/after table)
_AB_CASES = ("rules --for F", "inspect empty", "hooks run empty", "permissions check empty", "skills list none",
             "skills list 1000", "inspect monorepo", "inspect monorepo again")


def run(ctx, hosts_dir: str, scales: tuple[float, ...] = SCALES, base: str | None = None) -> tuple[list[Row], str]:
    """Every P row, the peer table and the scaling table (Markdown); with ``base`` (another
    installation's ``wsctl``) the before/after table of the wsctl cases too."""
    hosts = find_hosts(hosts_dir)
    wsctl = _wsctl()
    homes = ctx.dest / "peer-homes"
    homes.mkdir(parents=True, exist_ok=True)
    shown = ", ".join(f"{k}={v or 'absent'}" for k, v in hosts.items())
    print(f"  hosts: {shown}", file=sys.stderr, flush=True)
    print("host versions: " + ", ".join(f"{k} {host_version(v, homes)}" for k, v in hosts.items() if v), flush=True)
    mono = {s: trees.generate("monorepo", ctx.dest, scale=s, seed=ctx.seed) for s in scales}
    skills = trees.generate("skills", ctx.dest, scale=10.0, seed=ctx.seed)
    skills1k = trees.generate("skills", ctx.dest, scale=1.0, seed=ctx.seed)
    empty = ctx.dest / "empty-workspace"
    (empty / ".git").mkdir(parents=True, exist_ok=True)
    (empty / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    cases: list[Case] = []
    targets = {}
    for s, root in mono.items():
        f = deep_file(root)
        targets[s] = f
        tag = f"{s:g}"
        cases.append(Case(f"wsctl@{tag}", [wsctl, "--home", "{HOME}", "--json", "rules", "--for", str(f), str(root)],
                          str(f.parent), setup=_trust(root)))
        cases += _host_cases(tag, hosts, str(f.parent))
    one = 1.0 if 1.0 in mono else scales[len(scales) // 2]
    cases += [
        Case("import click, pluggy", [PY, "-c", "import click, pluggy"], str(empty)),
        Case("inspect empty", [wsctl, "--home", "{HOME}", "--json", "inspect", str(empty)], str(empty),
             setup=_trust(empty)),
        Case("bare walk", [PY, "-c", _BARE_WALK, str(mono[one])], str(mono[one])),
        Case("inspect monorepo", [wsctl, "--home", "{HOME}", "--json", "inspect", str(mono[one])], str(mono[one]),
             setup=_trust(mono[one])),
        Case("skills list", [wsctl, "--home", "{HOME}", "--json", "skills", "list", str(skills)], str(skills),
             setup=_trust(skills)),
        Case("python -c pass", [PY, "-c", "pass"], str(empty)),
        Case("hooks run empty", [wsctl, "--home", "{HOME}", "--json", "hooks", "run", "PreToolUse", str(empty)],
             str(empty), setup=_trust(empty)),
        Case("permissions check empty", [wsctl, "--home", "{HOME}", "--json", "permissions", "check", "Bash", "ls",
                                         str(empty)], str(empty), setup=_trust(empty), ok_status=(0, 3)),
        Case("skills list 1000", [wsctl, "--home", "{HOME}", "--json", "skills", "list", str(skills1k)],
             str(skills1k), setup=_trust(skills1k)),
        Case("skills list none", [wsctl, "--home", "{HOME}", "--json", "skills", "list", str(empty)], str(empty),
             setup=_trust(empty)),
    ]
    f1 = targets[one]
    cases.append(Case("rules --for F", [wsctl, "--home", "{HOME}", "--json", "rules", "--for", str(f1), str(mono[one])],
                      str(f1.parent), setup=_trust(mono[one])))
    persistent = tempfile.mkdtemp(prefix="home-kept-", dir=homes)
    _trust(mono[one])(persistent)
    cases.append(Case("inspect monorepo again", [wsctl, "--home", persistent, "--json", "inspect", str(mono[one])],
                      str(mono[one])))
    kept = {wsctl: persistent}
    if base:
        kept[base] = tempfile.mkdtemp(prefix="home-kept-base-", dir=homes)
        _trust(mono[one])(kept[base])
        for c in [c for c in cases if c.name in _AB_CASES]:
            argv = [base if a == wsctl else kept[base] if a == persistent else a for a in c.argv]
            cases.append(Case("base:" + c.name, argv, c.cwd, dict(c.env), c.setup, c.first_line, c.ok_status))
    if hosts["claude"]:
        claude = [hosts["claude"], "-p", "hi", "--output-format", "stream-json", "--verbose"]
        env = {"ANTHROPIC_BASE_URL": _DEAD_URL, "ANTHROPIC_API_KEY": "x"}
        cases += [Case("claude@empty", claude, str(empty), env, first_line=True),
                  Case("claude@skills", claude, str(skills), env, first_line=True)]
    for c in cases:  # the fresh home is known only at run time
        if "{HOME}" in c.argv:
            c.argv = list(c.argv)
            idx = c.argv.index("{HOME}")
            c.setup = _with_home(c, idx, c.setup)
    for exe, home in kept.items():  # the index, when there is one
        subprocess.run([exe, "--home", home, "--json", "inspect", str(mono[one])], check=True,
                       stdout=subprocess.DEVNULL, env=_wskit_env(home))
    rep = max(ctx.repeat, 1)
    times = run_rounds(cases, rep, homes, ctx.seed)
    for home in kept.values():
        shutil.rmtree(home, ignore_errors=True)
    t = times.get
    na = [None] * rep
    rows: list[Row] = []
    tag1 = f"{one:g}"

    def row(bench, what, a, base_name, b, target, limit, note=""):
        r = ratio(t(a, na), t(b, na)) if b else None
        rc = ratio(CPU.get(a, na), CPU.get(b, na)) if b else None
        said = (f"median of per-round ratios {r:.3f}× wall, {rc:.3f}× CPU" if r is not None and rc is not None
                else f"median of per-round ratios {r:.3f}× wall" if r is not None else "n/a")
        rows.append(Row(bench, what, med(t(a, na)), base_name, med(t(b, na)) if b else None, target,
                        meets(r, rc, limit), f"{note}; {said}" if note else said))

    row("P1", f"`wsctl --json rules --for F` (F {deep_depth(mono[one], targets[one])} deep, scale {tag1})",
        f"wsctl@{tag1}", "`codex debug prompt-input` at F's folder", f"codex@{tag1}", "≤ 0.5×", 0.5)
    row("P1 bin", "the same", f"wsctl@{tag1}", "the Codex binary alone", f"codex-bin@{tag1}", "≤ 0.8×", 0.8)
    lo, hi = f"{min(scales):g}", f"{max(scales):g}"
    row("P2", f"the same at scale {hi}", f"wsctl@{hi}", f"at scale {lo}", f"wsctl@{lo}", "≤ 1.2", 1.2)
    rows += p3(ctx, mono[one], targets[one])
    click_pluggy = "`python -c \"import click, pluggy\"`"
    for bench, what, case in (("P4", "`wsctl --json inspect` empty workspace", "inspect empty"),
                              ("P4 hooks", "`wsctl --json hooks run PreToolUse`, no hooks", "hooks run empty"),
                              ("P4 perms", "`wsctl --json permissions check Bash ls`, empty project",
                               "permissions check empty")):
        row(bench, what, case, click_pluggy, "import click, pluggy", "≤ 1.3×", 1.3)
        row(bench + " pass", "the same", case, "`python -c pass`", "python -c pass", "≤ 5.0×", 5.0)
    row("P4 claude", "the same", "inspect empty", "Claude Code to its init line, empty folder", "claude@empty",
        "≤ 0.25×", 0.25)
    row("P5 second", f"second `wsctl --json inspect` of monorepo (scale {tag1}, same home)", "inspect monorepo again",
        "bare os.scandir walk (process)", "bare walk", "≤ 1.5×", 1.5)
    row("P5 first", "first `wsctl --json inspect` of monorepo (fresh home)", "inspect monorepo",
        "bare os.scandir walk (process)", "bare walk", "≤ 3.0×", 3.0)
    from .watch_bench import p5_host

    rows += p5_host(ctx, mono[one], targets[one])  # the long-lived host (file notifications)
    row("P6", "`wsctl --json skills list` of 10,000 skills", "skills list", "Claude Code to its init line, same tree",
        "claude@skills", "≤ 0.2×", 0.2)
    cpu_1k, cpu_none = med(CPU.get("skills list 1000", na)), med(CPU.get("skills list none", na))
    wall_1k, wall_none = med(t("skills list 1000", na)), med(t("skills list none", na))
    extra_cpu = None if cpu_1k is None or cpu_none is None else cpu_1k - cpu_none
    rows.append(Row("P6 1k", "`wsctl --json skills list` of 1,000 skills: CPU over an empty workspace", extra_cpu,
                    "the same, empty workspace (CPU)", cpu_none, "≤ +80 ms CPU",
                    None if extra_cpu is None else extra_cpu <= 0.080,
                    "n/a" if wall_1k is None or wall_none is None else
                    f"wall {wall_1k * 1000:.1f} ms against {wall_none * 1000:.1f} ms (+{(wall_1k - wall_none) * 1000:.1f} ms)"))
    # the peer table: every host at F's folder of each scale
    names = ["wsctl", "claude", "codex", "codex-bin", "gemini"]
    lines = ["| scale | files | " + " | ".join(names) + " | " + " | ".join(f"wsctl ÷ {n}" for n in names[1:]) + " |",
             "|---:|---:|" + "---:|" * (2 * len(names) - 1)]
    for s in scales:
        tag = f"{s:g}"
        files = _files(mono[s])
        cells = [fmt(med(t(f"{n}@{tag}", na))) for n in names]
        rats = []
        for n in names[1:]:
            r = ratio(t(f"wsctl@{tag}", na), t(f"{n}@{tag}", na))
            rats.append("n/a" if r is None else f"{r:.2f}×")
        lines.append(f"| {tag} | {files:,} | " + " | ".join(cells) + " | " + " | ".join(rats) + " |")
    growth = ["", "Growth from the smallest to the largest scale (median time at scale "
              f"{hi} ÷ at scale {lo}): " + ", ".join(
                  n + " " + _g(med(t(n + "@" + hi, na)), med(t(n + "@" + lo, na))) for n in names)]
    if base:
        lines += ["", f"Before/after, the same rounds (before: `{base}`; after: `{wsctl}`):", "",
                  "| case | before | after | after ÷ before (wall) | after ÷ before (CPU) | CPU before | CPU after |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        for name in _AB_CASES:
            r = ratio(t(name, na), t("base:" + name, na))
            rc = ratio(CPU.get(name, na), CPU.get("base:" + name, na))
            lines.append(f"| {name} | {fmt(med(t('base:' + name, na)))} | {fmt(med(t(name, na)))} | "
                         f"{'n/a' if r is None else f'{r:.3f}×'} | {'n/a' if rc is None else f'{rc:.3f}×'} | "
                         f"{fmt(med(CPU.get('base:' + name, na)))} | {fmt(med(CPU.get(name, na)))} |")
    failed = {k: sum(1 for x in v if x is None) for k, v in times.items() if any(x is None for x in v)}
    extra = ["", f"Failed or timed-out runs (not counted): {failed}"] if failed else []
    return rows, "\n".join(lines + growth + extra)


def _with_home(case: Case, idx: int, inner):
    def setup(home: str) -> None:
        case.argv[idx] = home
        if inner is not None:
            inner(home)
    return setup


def _g(a, b) -> str:
    return "n/a" if a is None or not b else f"{a / b:.2f}×"


def _files(root: Path) -> int:
    import json

    try:
        return int(json.loads((root.parent / (root.name + ".done")).read_text()).get("files", 0))
    except (OSError, ValueError, AttributeError):
        return 0


def deep_depth(root: Path, f: Path) -> str:
    return f"{len(f.parent.relative_to(root).parts)} folders"
