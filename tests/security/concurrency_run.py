"""Concurrency run: real ``wsctl`` processes change every state store at once while
random ones are SIGKILLed; afterwards no change whose command exited 0 is lost.

Usage (from the repository root; on demand, not in the default test run)::

    python -m tests.security.concurrency_run                  # 8 processes, 30 s
    python -m tests.security.concurrency_run --procs 8 --seconds 30 --json
    python -m tests.security.concurrency_run --write      # also put the row into docs/security.md

``tests/security/test_concurrency_run.py`` runs a short smoke variant (a few
seconds) in the default run. What it does:

- a throw-away home holds a local marketplace of plugins, trusted projects with
  hooks, and plain folders; ``procs`` worker threads each run one ``wsctl``
  process at a time, over and over, for ``seconds``: ``trust grant|revoke``,
  ``hooks trust|revoke``, ``plugins enable|disable`` (user settings),
  ``plugins install|uninstall`` (ledger and plugin folder) and ``workspace attach``;
- 30 % of the commands get a SIGKILL at a random moment of their first 2 s
  (those that end sooner exit normally);
- every key (a folder's trust, a project's hook trust, a plugin's enablement, a
  plugin's install, a workspace) belongs to one worker, so its commands run in
  order; the final state of a key must be the value of its last command that
  exited 0, or of a command after it that was killed (a killed write may have
  landed or not); every store must still parse.

Figures: commands run, exited 0, killed, refused by design without a change
(``plugins uninstall`` of a plugin not installed), failed otherwise (must be
0), keys checked, changes lost (must be 0), wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Outcome", "run"]

#: An install whose ledger entry is written and whose folder is not (yet, or any more).
PARTIAL = "ledger entry without its folder"
#: Refusals that leave the state as it was (exit 1 by design, not a failure of a write).
NO_CHANGE_REFUSALS = ("is not a managed install",)

HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}


@dataclass
class Outcome:
    """Figures of one run (see the module docstring)."""

    procs: int
    seconds: float
    commands: int = 0
    exited_0: int = 0
    killed: int = 0
    failed: int = 0
    refused: int = 0
    keys: int = 0
    lost: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"procs": self.procs, "seconds": self.seconds, "commands": self.commands, "exited_0": self.exited_0,
                "killed": self.killed, "refused": self.refused, "failed": self.failed, "keys": self.keys, "lost": len(self.lost),
                "wall": round(self.wall, 1)}


def _wsctl_argv(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "wskit", "--home", str(home), *args]


def _setup(root: Path, procs: int) -> dict[str, Any]:
    home = root / "home"
    home.mkdir()
    market = root / "market"
    plugins = []
    for w in range(procs):
        for j in range(2):
            name = f"p{w}-{j}"
            d = market / "plugins" / name
            (d / ".claude-plugin").mkdir(parents=True)
            (d / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
            (d / "skills" / "s").mkdir(parents=True)
            (d / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: A skill.\n---\nBody.\n")
            plugins.append({"name": name, "source": f"./plugins/{name}"})
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps({"name": "mk", "owner": {"name": "Me"}, "plugins": plugins}))
    hook_projects: dict[int, Path] = {}
    for w in range(procs):
        p = root / "hooked" / f"h{w}"
        (p / ".git").mkdir(parents=True)
        (p / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (p / ".claude").mkdir()
        (p / ".claude" / "settings.json").write_text(json.dumps(HOOKS))
        hook_projects[w] = p
    # the hooked projects are trusted once, up front (their folder trust is not under test)
    from wskit.trust import TrustStore

    for p in hook_projects.values():
        TrustStore.for_home(home).grant(p)
    status = subprocess.run(_wsctl_argv(home, "--json", "hooks", "status", str(hook_projects[0])), check=True,
                            capture_output=True, text=True)
    digest = json.loads(status.stdout)["digest"]
    folders = {}
    for w in range(procs):
        for j in range(3):
            f = root / "folders" / f"f{w}-{j}"
            f.mkdir(parents=True)
            folders[(w, j)] = f
    return {"home": home, "market": market, "hooked": hook_projects, "digest": digest, "folders": folders}


def _ops(w: int, env: dict[str, Any], rnd: random.Random) -> tuple[str, Any, list[str]]:
    """One random command of worker ``w``: ``(key, value it sets, argv)``."""
    home = env["home"]
    kind = rnd.choice(["trust", "trust", "hooks", "enable", "enable", "install", "workspace"])
    if kind == "trust":
        j = rnd.randrange(3)
        folder = env["folders"][(w, j)]
        state = rnd.choice(["trusted", "untrusted"])
        return (f"trust:{folder}", state,
                _wsctl_argv(home, "trust", "grant" if state == "trusted" else "revoke", str(folder)))
    if kind == "hooks":
        p = env["hooked"][w]
        on = rnd.random() < 0.5
        args = ("hooks", "trust", str(p), "--digest", env["digest"]) if on else ("hooks", "revoke", str(p))
        return f"hooks:{p}", on, _wsctl_argv(home, *args)
    if kind == "enable":
        name = f"e{w}-{rnd.randrange(3)}"
        on = rnd.random() < 0.5
        return (f"enable:{name}", on,
                _wsctl_argv(home, "plugins", *(("enable", "--force") if on else ("disable",)), name, "--scope", "user"))
    if kind == "install":
        name = f"p{w}-{rnd.randrange(2)}"
        on = rnd.random() < 0.6
        args = ("plugins", "install", f"{name}@mk", "--from", str(env["market"])) if on else \
            ("plugins", "uninstall", name)
        return f"install:{name}", on, _wsctl_argv(home, *args)
    folder = env["folders"][(w, rnd.randrange(3))]
    return f"workspace:{folder}", True, _wsctl_argv(home, "workspace", "attach", str(folder))


def _observe(env: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """The state of every key, read back from the stores (each must parse)."""
    from wskit.approval.store import ApprovalStore
    from wskit.builtin_plugins.bundles.ledger import plugins_dir, read_ledger
    from wskit.builtin_plugins.workspaces.store import WorkspaceStore
    from wskit.host import HostProfile
    from wskit.trust import TrustStore

    home = env["home"]
    profile = HostProfile(home=home)
    trust = {e["path"]: e["state"] for e in TrustStore.for_home(home).entries()}
    hooks = ApprovalStore.for_home(home).read()
    settings_path = home / profile.host_dir / "settings.json"
    enabled = json.loads(settings_path.read_text()).get("enabledPlugins", {}) if settings_path.exists() else {}
    ledger = read_ledger(profile)
    attached = {str(w.workspace_anchor) for w in WorkspaceStore.for_home(home).workspaces()}
    out: dict[str, Any] = {}
    for key in keys:
        kind, _, what = key.partition(":")
        if kind == "trust":
            out[key] = trust.get(os.path.realpath(what))
        elif kind == "hooks":
            out[key] = str(Path(what).resolve()) in hooks
        elif kind == "enable":
            out[key] = enabled.get(what)
        elif kind == "install":
            present, folder = what in ledger, (plugins_dir(profile) / what).is_dir()
            if present and not folder:
                out[key] = PARTIAL  # a killed install or uninstall: both recover from it
            elif folder and not present:
                out[key] = "an unmanaged folder (blocks every later install)"
            else:
                out[key] = present
        else:
            out[key] = True if what in attached or os.path.realpath(what) in attached else None
    return out


def _kill(proc: subprocess.Popen) -> None:
    try:
        proc.send_signal(signal.SIGKILL)
    except (ProcessLookupError, OSError):
        pass


def run(procs: int = 8, seconds: float = 30.0, *, seed: int = 17, root: Path | None = None,
        kill_share: float = 0.3) -> Outcome:
    """Run the concurrency run (see the module docstring) and return its figures.

    :param kill_share: share of commands given a SIGKILL at a random moment of
        their first 2 s (one that ends sooner is not killed).
    """
    out = Outcome(procs=procs, seconds=seconds)
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        env = _setup(Path(tmp), procs)
        history: dict[str, list[tuple[Any, str]]] = {}
        lock = threading.Lock()
        stop = time.monotonic() + seconds
        start = time.monotonic()

        def worker(w: int) -> None:
            rnd = random.Random(seed * 1000 + w)
            while time.monotonic() < stop:
                key, value, argv = _ops(w, env, rnd)
                proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                timer = None
                if rnd.random() < kill_share:  # SIGKILL at a random moment of its life (or after it ended)
                    timer = threading.Timer(rnd.uniform(0.05, 2.0), _kill, (proc,))
                    timer.start()
                _, err = proc.communicate()
                if timer is not None:
                    timer.cancel()
                with lock:
                    out.commands += 1
                    if proc.returncode == 0:
                        out.exited_0 += 1
                        result = "ok"
                    elif proc.returncode == -signal.SIGKILL:
                        out.killed += 1
                        result = "killed"
                    elif any(m in err for m in NO_CHANGE_REFUSALS):
                        out.refused += 1
                        result = "refused"
                    else:
                        out.failed += 1
                        result = "failed"
                        out.failures.append(f"{' '.join(argv[3:])}: {err.strip()[-300:]}")
                    history.setdefault(key, []).append((value, result))

        threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(procs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + 300)
        out.wall = time.monotonic() - start
        seen = _observe(env, set(history))
        out.keys = len(history)
        for key, steps in sorted(history.items()):
            allowed = _allowed(key, steps)
            if allowed is not None and seen[key] not in allowed:
                out.lost.append(f"{key}: found {seen[key]!r}, expected one of {sorted(map(repr, allowed))} "
                                f"after {steps}")
    return out


def _absent(key: str) -> Any:
    """What a key reads as when nothing was ever written to it."""
    kind = key.partition(":")[0]
    return {"trust": None, "hooks": False, "enable": None, "install": False, "workspace": None}[kind]


def _allowed(key: str, steps: list[tuple[Any, str]]) -> set[Any] | None:
    """The final values the key may hold: the last exit-0 value (or "never written"
    when none), plus the value of every killed command after it. None: unconstrained."""
    last_ok = None
    for i, (_value, result) in enumerate(steps):
        if result == "ok":
            last_ok = i
    base = {_absent(key)} if last_ok is None else {steps[last_ok][0]}
    tail = steps[(last_ok + 1) if last_ok is not None else 0:]
    killed = {v for v, r in tail if r == "killed"}
    if killed and key.startswith("install:"):
        killed.add(PARTIAL)
    return base | killed


def _row(res: Outcome) -> str:
    d = res.as_dict()
    return (f"| {d['procs']} | {d['seconds']:g} s ({d['wall']} s wall) | {d['commands']} | {d['exited_0']} | "
            f"{d['killed']} | {d['refused']} | {d['failed']} | {d['keys']} | **{d['lost']}** |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write", action="store_true", help="replace the figures in docs/security.md")
    args = ap.parse_args(argv)
    res = run(args.procs, args.seconds, seed=args.seed)
    if args.json:
        print(json.dumps({**res.as_dict(), "lost_changes": res.lost, "failures": res.failures[:20]}, indent=2))
    else:
        print("| processes | run | commands | exited 0 | SIGKILLed | refused, no change | failed otherwise "
              "| keys checked | changes lost |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        print(_row(res))
        for line in res.lost + res.failures[:20]:
            print("  " + line)
    if args.write:
        import re

        doc_path = Path(__file__).resolve().parents[2] / "docs" / "security.md"
        doc = doc_path.read_text(encoding="utf-8")
        pat = re.compile(r"(<!-- concurrency:start -->\n(?:\|[^\n]*\n){2})(?:[^\n]*\n)(<!-- concurrency:end -->)")
        if not pat.search(doc):
            raise SystemExit("marker concurrency not found in docs/security.md")
        doc_path.write_text(pat.sub(lambda m: m.group(1) + _row(res) + "\n" + m.group(2), doc), encoding="utf-8")
    return 1 if res.lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
