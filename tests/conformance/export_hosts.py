"""The real hosts on trees ``wsctl export`` wrote: ``python -m tests.conformance.export_hosts``
(also run by ``python -m tests.conformance.record``).

Each case is a Claude Code layout source tree (the export tests' own project, and one with a
published skill of ``../shared/corpus``), exported with ``wskit.export`` to Codex, Gemini CLI
and opencode in a temporary folder; each installed host is then asked, as
shared/reference/host-oracles.md says, what it loads from the exported tree at a cwd: the
instruction files (their ``S:`` markers, in delivery order), the skills, and for Gemini CLI the
user turn a typed custom command becomes. Answers go to ``export_recorded.json`` with the
host's version; ``test_export_hosts.py`` compares them with wskit's answer on the same
exported tree and with the source view (except the losses ``--verify`` reports).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CASES", "RECORDED", "ExportCase", "export_tree", "load", "main", "record"]

RECORDED = Path(__file__).with_name("export_recorded.json")
CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus"
HOSTS = ("codex", "gemini", "opencode")
#: observed too: Copilot CLI compared only with what the export wrote (wskit has no Copilot
#: profile yet); Claude Code on a tree exported to it from a Codex layout
OBSERVED = ("copilot", "claude")


@dataclass(frozen=True)
class ExportCase:
    """A source tree exported to ``HOSTS`` and asked at ``cwd`` (relative to the project).

    :ivar corpus_skill: a skill folder of ``../shared/corpus`` copied into ``.claude/skills``.
    :ivar commands: prompts typed at Gemini CLI (its custom commands).
    """

    id: str
    cwd: str = ""
    corpus_skill: str | None = None
    commands: tuple[str, ...] = ()
    source: str = "claude"
    hosts: tuple[str, ...] = ("codex", "gemini", "opencode", "copilot")


CASES = (
    ExportCase("claude-layout-root", "", commands=("/review src/app.py", "/git:fixissue 12 high")),
    ExportCase("claude-layout-pkg-api", "pkg/api"),
    ExportCase("corpus-skill", "", corpus_skill="anthropic-skills/skills/brand-guidelines"),
    # a Codex layout exported --from codex --to claude, asked of Claude Code
    ExportCase("codex-layout-to-claude", "sub", source="codex", hosts=("claude",)),
)

#: the Codex layout of ``codex-layout-to-claude``
CODEX_TREE = {"AGENTS.md": "Codex root rules. S:croot\n", "sub/AGENTS.md": "Sub rules. S:csub\n",
              "sub/x.txt": "\n",
              ".agents/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint things SKILLNAME-lint\n---\nRun ruff.\n"}


def export_tree(case: ExportCase, base: Path, pm=None) -> tuple[Path, Path, Path]:
    """Lay the source tree out under ``base``, export it with ``wskit.export`` (a trusted
    project, an empty home) and return ``(project, home, cwd)``; the home is left empty of
    everything but wskit's trust record, so the hosts see only the project."""
    import wskit
    from tests.builtin_plugins.export.tree import make_project
    from wskit.trust import TrustStore

    project, home = base / "proj", base / "home"
    home.mkdir(parents=True)
    extra = {}
    if case.corpus_skill:
        src = CORPUS / case.corpus_skill
        for f in sorted(src.rglob("*")):
            if f.is_file() and not f.is_symlink():
                text = f.read_text("utf-8", "replace")
                if f.name == "SKILL.md":  # a marker after the description, so a host's listing can be read
                    text = re.sub(r"^(description: .*)$", rf"\1 SKILLNAME-{src.name}", text, count=1, flags=re.M)
                extra[f".claude/skills/{src.name}/{f.relative_to(src).as_posix()}"] = text
    if case.source == "codex":
        import subprocess

        for rel, text in CODEX_TREE.items():
            (project / rel).parent.mkdir(parents=True, exist_ok=True)
            (project / rel).write_text(text)
        env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "PATH": "/usr/bin:/bin"}
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"],
                    ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]):
            subprocess.run(cmd, cwd=project, env=env, check=True)
    else:
        make_project(project, extra=extra)
    wskit_home = base / "wskit-home"
    wskit_home.mkdir()
    TrustStore.for_home(wskit_home).grant(project)
    if pm is None:
        from wskit.plugin.manager import make_plugin_manager

        pm = make_plugin_manager(load_entrypoints=True, env={})
    targets = [*HOSTS, "cursor", "copilot"] if case.source == "claude" else list(case.hosts)
    wskit.export(project, targets, home=wskit_home, source=case.source, plugin_manager=pm)
    return project, home, project / case.cwd if case.cwd else project


def _copilot_version() -> str:
    from tests.conformance import oracles

    with tempfile.TemporaryDirectory() as h:
        out = oracles._run([str(COPILOT), "--version"], Path(h), oracles._env(Path(h), COPILOT_OFFLINE="true"),
                           timeout=120)
    m = re.search(r"\d+\.\d+\.\d+", out)
    return m.group(0) if m else out.strip()


def load() -> dict:
    """The committed recordings ``{host: {"version", "recorded", "cases": {id: answer}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def _codex_mcp(project: Path, home: Path, cwd: Path) -> list[list[str]]:
    """``codex mcp list --json`` with the project trusted in ``~/.codex/config.toml`` (Codex
    reads a project's ``.codex/config.toml`` only then): ``[[name, transport], …]``."""
    from tests.conformance import oracles

    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex/config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    out = oracles._run([str(oracles.binary("codex")), "mcp", "list", "--json"], cwd, oracles._env(home), timeout=60)
    return sorted([s["name"], s["transport"]["type"]] for s in json.loads(out[out.index("["):]))


def _gemini_mcp(home: Path, cwd: Path) -> list[list[str]]:
    """``gemini mcp list`` in a trusted workspace: ``[[name, transport], …]``."""
    from tests.conformance import oracles

    env = oracles._env(home, GEMINI_API_KEY="x", GEMINI_CLI_TRUST_WORKSPACE="true")
    out = oracles._run([str(oracles.binary("gemini")), "mcp", "list"], cwd, env, timeout=90, stderr=True)
    return sorted([m.group(1), m.group(2)] for m in re.finditer(r"^\S+ ([\w.-]+): .* \((\w+)\)", out, re.M))


def _opencode_config(home: Path, cwd: Path) -> dict:
    """``opencode debug config``: the MCP servers (name, type), commands and agents it merged."""
    from tests.conformance import oracles

    env = oracles._env(home, PWD=str(cwd))
    out = oracles._run([str(oracles.binary("opencode")), "debug", "config"], cwd, env, timeout=90)
    data = json.loads(out[out.index("{"):])
    return {"mcp": sorted([k, v.get("type")] for k, v in (data.get("mcp") or {}).items()),
            "command_names": sorted(data.get("command") or {}),
            "agents": sorted(k for k, v in (data.get("agent") or {}).items() if isinstance(v, dict) and v.get("prompt"))}


def _opencode_commands(home: Path, cwd: Path, prompts) -> list[list[str]]:
    """Each ``/name args`` run as ``opencode run --command name args`` against a stand-in
    model: ``[prompt, the user turn opencode sent]``."""
    from tests.conformance import oracles

    out: list[list[str]] = []
    for prompt in prompts:
        name, _, args = prompt[1:].partition(" ")
        srv = oracles._StandIn()
        try:
            oracles.opencode_standin(home, srv.port)

            def asked(_s: str = "", srv=srv) -> bool:
                return any(b"title generator" not in b for b in list(srv.bodies))
            oracles._run([str(oracles.binary("opencode")), "run", "--command", name.replace(":", "/"), *args.split()],
                         cwd, oracles._env(home, PWD=str(cwd)), until=asked, timeout=90)
        finally:
            srv.close()
        users = oracles.opencode_messages(srv.bodies, "user")
        c = users[-1]["content"] if users else ""
        out.append([prompt, c if isinstance(c, str) else "".join(p.get("text", "") for p in c if isinstance(p, dict))])
    return out


#: GitHub Copilot CLI, observed offline (host-oracles.md): instruction sources, skills, MCP servers
COPILOT = Path(os.environ.get("WSKIT_HOSTS_DIR", "/work/hosts")) / "npm/node_modules/.bin/copilot"


def _ask_copilot(project: Path, home: Path, cwd: Path) -> dict:
    """``copilot instruction list --json``, ``skill list --json`` and ``mcp list --json``
    (``COPILOT_OFFLINE=true``, ``COPILOT_ALLOW_ALL=true`` so the workspace's servers are read)."""
    from tests.conformance import oracles

    env = oracles._env(home, COPILOT_OFFLINE="true", COPILOT_ALLOW_ALL="true")

    def ask(*args: str):
        out = oracles._run([str(COPILOT), *args, "--json"], cwd, env, timeout=120)
        start = min(i for i in (out.find("["), out.find("{")) if i >= 0)
        return json.loads(out[start:])
    instructions = sorted([i["sourcePath"], ",".join(i.get("applyTo") or [])] for i in ask("instruction", "list"))
    skills = sorted(s["name"] for s in ask("skill", "list") if s.get("source") != "builtin")
    servers = ask("mcp", "list").get("mcpServers", {})
    return {"instruction_files": instructions, "skills": skills,
            "mcp": sorted([k, os.path.relpath(v.get("sourcePath", ""), project)] for k, v in servers.items())}


def _claude_skills(project: Path, home: Path, cwd: Path) -> list[str]:
    """The skills Claude Code lists to the model (``- name: description``), by marker."""
    from tests.conformance import oracles

    srv = oracles._StandIn()
    try:
        env = oracles._env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{srv.port}", ANTHROPIC_API_KEY="x",
                           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"], cwd,
                     env, until=lambda s: "\n" in s and bool(srv.bodies), timeout=60)
    finally:
        srv.close()
    return sorted({m for b in srv.bodies for m in re.findall(r"SKILLNAME-([A-Za-z0-9_.-]+)", b.decode("utf-8", "replace"))})


def _ask(host: str, case: ExportCase) -> dict:
    from tests.conformance import oracles

    base = Path(tempfile.mkdtemp(prefix=f"wskit-export-{host}-"))
    try:
        project, home, cwd = export_tree(case, base)
        if host == "copilot":
            return _ask_copilot(project, home, cwd)
        answer = {"codex": oracles.ask_codex, "gemini": oracles.ask_gemini, "opencode": oracles.ask_opencode,
                  "claude": oracles.ask_claude}[host](project, home, cwd)
        if host == "claude":  # the init line's skills, named by the marker in their description
            answer = {"instructions": answer["instructions"], "skills": _claude_skills(project, home, cwd)}
        if host == "gemini" and case.commands:
            answer["commands"] = oracles.ask_gemini_commands(home, cwd, case.commands)
        if not case.cwd:  # the project's own configuration: asked at the root
            if host == "codex":
                answer["mcp"] = _codex_mcp(project, home, cwd)
            elif host == "gemini":
                answer["mcp"] = _gemini_mcp(home, cwd)
            elif host == "opencode":
                answer.update(_opencode_config(home, cwd))
                if case.commands:
                    answer["commands"] = _opencode_commands(home, cwd, case.commands)
        return answer
    finally:
        shutil.rmtree(base, ignore_errors=True)


def record(hosts=HOSTS, cases=None) -> int:
    """Ask every installed host of ``hosts`` and rewrite the recordings; returns 0."""
    from tests.conformance import oracles

    data = load()
    for host in hosts:
        if host not in HOSTS + OBSERVED:
            continue
        if (COPILOT if host == "copilot" else oracles.binary(host)) is None or (
                host == "copilot" and not COPILOT.exists()):
            print(f"{host}: not installed, export recording kept", file=sys.stderr)
            continue
        entry = data.setdefault(host, {"cases": {}})
        entry["version"] = _copilot_version() if host == "copilot" else oracles.host_version(host)
        entry["recorded"] = datetime.date.today().isoformat()
        for case in CASES:
            if (cases and case.id not in cases) or host not in case.hosts:
                continue
            if case.corpus_skill and not (CORPUS / case.corpus_skill).is_dir():
                print(f"{case.id}: ../shared/corpus absent, kept", file=sys.stderr)
                continue
            entry["cases"][case.id] = _ask(host, case)
            print(f"export {host} {entry['version']} {case.id}: {json.dumps(entry['cases'][case.id])}", flush=True)
        RECORDED.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tests.conformance.export_hosts", description=__doc__.splitlines()[0])
    ap.add_argument("--host", action="append", choices=HOSTS + OBSERVED)
    ap.add_argument("--case", action="append")
    args = ap.parse_args(argv)
    return record(args.host or HOSTS + OBSERVED, args.case)


if __name__ == "__main__":
    sys.exit(main())
