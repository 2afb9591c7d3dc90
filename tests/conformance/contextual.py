"""Instruction files a host adds when a tool reads a file below the cwd (contextual rules).

Claude Code loads the instruction files of the folders between the cwd and a file its
``Read`` tool opens, just in time, as a reminder beside the tool result. wskit answers the
same question with ``catalog.contextual_rules(cwd, [file])``. Each case here is a tree,
a cwd and the file read; the host's answer is the list of markers (``S:<path>``) it put in
the request after the read and not before it, in order.

``python -m tests.conformance.contextual`` asks the installed Claude Code (a stand-in model
on 127.0.0.1 answers the first request with one ``Read`` of the case's file and every later
one with a short text) and rewrites ``contextual_recorded.json``;
``tests/conformance/test_contextual.py`` compares wskit ``--host claude`` with the recording
in the default test run (``WSKIT_HOST_ORACLES=1``: with the live host too).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from tests.conformance.cases import Case
from tests.conformance.standin import claude_tool_round, record_claude

__all__ = ["CASES", "OPENCODE_CASES", "RECORDED", "ask_case", "ask_claude", "ask_opencode", "ask_opencode_case", "load",
           "main", "wskit_contextual"]

RECORDED = Path(__file__).with_name("contextual_recorded.json")

#: (case, the file the host reads, relative to the project)
CASES: tuple[tuple[Case, str], ...] = (
    (Case("ctx-agents-below-agents", ("AGENTS.md", "pkg/AGENTS.md", "pkg/sub/f.txt"), hosts=("claude",),
          what="AGENTS.md at the root and in a folder below the cwd"), "pkg/sub/f.txt"),
    (Case("ctx-claude-below-agents", ("AGENTS.md", "pkg/CLAUDE.md", "pkg/sub/f.txt"), hosts=("claude",),
          what="AGENTS.md at the root, CLAUDE.md below the cwd"), "pkg/sub/f.txt"),
    (Case("ctx-agents-below-claude", ("CLAUDE.md", "pkg/AGENTS.md", "pkg/sub/f.txt"), hosts=("claude",),
          what="CLAUDE.md at the root: an AGENTS.md below the cwd is not added"), "pkg/sub/f.txt"),
    (Case("ctx-agents-only-below", ("pkg/AGENTS.md", "pkg/sub/AGENTS.md", "pkg/sub/f.txt"), hosts=("claude",),
          what="no file at the root, AGENTS.md in two folders below"), "pkg/sub/f.txt"),
    (Case("ctx-both-in-one-folder", ("pkg/CLAUDE.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md", "pkg/sub/f.txt"),
          hosts=("claude",), what="CLAUDE.md and AGENTS.md in one folder below, AGENTS.md deeper"),
     "pkg/sub/f.txt"),
    (Case("ctx-cwd-below-claude", ("CLAUDE.md", "a/AGENTS.md", "a/b/AGENTS.md", "a/b/f.txt"), cwd="a",
          hosts=("claude",), what="the cwd in a subfolder, CLAUDE.md at the root"), "a/b/f.txt"),
    (Case("ctx-claude-family-below", ("pkg/.claude/CLAUDE.md", "pkg/AGENTS.md", "pkg/CLAUDE.local.md",
                                      "pkg/sub/f.txt"), hosts=("claude",),
          what=".claude/CLAUDE.md and CLAUDE.local.md beside AGENTS.md below the cwd"), "pkg/sub/f.txt"),
    (Case("ctx-per-folder-names", ("AGENTS.md", "deep/AGENTS.md", "deep/a/CLAUDE.md", "deep/a/x.txt"),
          hosts=("claude", "opencode"),
          what="issue 34 item 6: AGENTS.md in one folder, CLAUDE.md in the folder below, a file read there"),
     "deep/a/x.txt"),
)

#: the cases asked of opencode too (its ``read`` tool through a stand-in model)
OPENCODE_CASES = tuple((c, t) for c, t in CASES if c.id in (
    "ctx-agents-below-agents", "ctx-claude-below-agents", "ctx-agents-below-claude", "ctx-agents-only-below",
    "ctx-both-in-one-folder", "ctx-per-folder-names"))

_MARK = re.compile(r"S:([A-Za-z0-9_./-]+)")


def load() -> dict:
    """The committed recording: ``{"claude": {"version", "recorded", "cases": {id: [marker, ...]}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def ask_claude(project: Path, home: Path, cwd: Path, target: Path) -> list[str]:
    """Markers Claude Code adds to its request after its ``Read`` tool opened ``target``."""
    bodies = claude_tool_round(cwd, home, "Read", {"file_path": str(target)})

    def markers(body: dict) -> list[str]:
        out: list[str] = []
        for m in _MARK.finditer(json.dumps(body.get("messages", [])).replace("\\n", "\n")):
            if m.group(1) not in out:
                out.append(m.group(1))
        return out

    before = set(markers(bodies[0]))
    return [m for m in markers(bodies[-1]) if m not in before and not m.endswith(".txt")]


def wskit_contextual(case: Case, target: str, host: str, base: Path) -> list[str]:
    """Markers of ``contextual_rules(cwd, [target])`` under ``HostProfile(name=host)``."""
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home, cwd = case.lay_out(base)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name=host, home=home)).resolve(str(cwd))
    catalog = ws.catalog("rules")
    sel = catalog.contextual_rules(str(ws.binding.to_source(ws.binding.cwd)), [str(project / target)])
    out: list[str] = []
    for rule in sel.files:
        for m in _MARK.finditer(rule.body):
            if m.group(1) not in out:
                out.append(m.group(1))
    return out


def ask_case(case: Case, target: str) -> list[str]:
    """:func:`ask_claude` on ``case`` laid out in a temporary folder, reading ``target``."""
    base = Path(tempfile.mkdtemp(prefix="wskit-oracle-ctx-"))
    try:
        project, home, cwd = case.lay_out(base)
        return ask_claude(project, home, cwd, project / target)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def ask_opencode(project: Path, home: Path, cwd: Path, target: Path) -> list[str]:
    """Markers opencode 1.18.33 adds to its request after its ``read`` tool opened ``target``
    (a stand-in model answering the agent's first request with that one tool call)."""
    from tests.conformance import oracles

    srv = oracles._ChatStandIn(("read", {"filePath": str(target)}), ignore="title generator")
    try:
        cfg = home / ".config/opencode"
        cfg.mkdir(parents=True, exist_ok=True)
        (cfg / "opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json", "model": "standin/m", "autoupdate": False,
            "share": "disabled", "provider": {"standin": {
                "npm": "@ai-sdk/openai-compatible", "name": "standin",
                "options": {"baseURL": f"http://127.0.0.1:{srv.port}/v1", "apiKey": "x"},
                "models": {"m": {"name": "m"}}}}}))
        oracles._run([str(oracles.binary("opencode")), "run", "hello"], cwd, oracles._env(home, PWD=str(cwd)),
                     until=lambda _s: len(srv.bodies) >= 2, timeout=120)
    finally:
        srv.close()
    bodies = [json.dumps(b) for b in srv.bodies]
    if len(bodies) < 2:
        raise RuntimeError("opencode sent no request after its read tool ran")

    def markers(text: str) -> list[str]:
        out: list[str] = []
        for m in _MARK.finditer(text.replace("\\n", "\n")):
            if m.group(1) not in out:
                out.append(m.group(1))
        return out

    before = set(markers(bodies[0]))
    return [m for m in markers(bodies[-1]) if m not in before and not m.endswith(".txt")]


def ask_opencode_case(case: Case, target: str) -> list[str]:
    """:func:`ask_opencode` on ``case`` laid out in a temporary folder, reading ``target``."""
    base = Path(tempfile.mkdtemp(prefix="wskit-oracle-ctx-oc-"))
    try:
        project, home, cwd = case.lay_out(base)
        return ask_opencode(project, home, cwd, project / target)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code (and, with ``--host opencode``, opencode) every case and
    rewrite the recording."""
    import datetime

    from tests.conformance import oracles

    args = list(sys.argv[1:] if argv is None else argv)
    if "--host" in args and args[args.index("--host") + 1] == "opencode":
        data = load()
        entry = data.setdefault("opencode", {"cases": {}})
        entry["version"] = oracles.host_version("opencode")
        entry["recorded"] = datetime.date.today().isoformat()
        for case, target in OPENCODE_CASES:
            entry["cases"][case.id] = ask_opencode_case(case, target)
            print(f"opencode {entry['version']} {case.id}: {entry['cases'][case.id]}", flush=True)
        RECORDED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return 0
    return record_claude(RECORDED, ((case.id, lambda c=case, t=target: ask_case(c, t)) for case, target in CASES))

if __name__ == "__main__":
    sys.exit(main())
