"""Trees ``wsctl export`` wrote, as the real Codex CLI, Gemini CLI and opencode load them
(recorded in ``export_recorded.json`` by ``python -m tests.conformance.export_hosts``):

- wskit under the host's profile answers what the host answered on the same exported tree;
- the host received what the Claude Code source meant: every instruction marker Claude Code
  delivers at that cwd and every skill, except what the export reports as not carried.

With ``WSKIT_HOST_ORACLES=1`` the installed hosts are asked again and a drift fails.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conformance import export_hosts, oracles
from tests.conformance.export_hosts import CASES, HOSTS, export_tree

RECORDED = export_hosts.load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"
PAIRS = [(h, c) for h in (*HOSTS, "claude") for c in CASES if h in c.hosts]
_MARK = re.compile(r"S:(\S+)")


def _needs_corpus(case) -> None:
    if case.corpus_skill and not (export_hosts.CORPUS / case.corpus_skill).is_dir():
        pytest.skip("../shared/corpus is absent")


def _labels(ws, cwd: Path) -> list[str]:
    out: list[str] = []
    for rule in ws.catalog("rules").static_rules(str(cwd)).files:
        for m in _MARK.finditer(rule.body):
            if m.group(1) not in out:
                out.append(m.group(1))
    return out


def _load(host: str, project: Path, home: Path, cwd: Path, pm):
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    TrustStore.for_home(home).grant(project)
    return WorkspaceCache(HostProfile(name=host, home=home), pm).resolve(str(cwd))


def _wskit_answer(host: str, case, base: Path, pm) -> dict:
    project, home, cwd = export_tree(case, base, pm)
    ws = _load(host, project, home, cwd, pm)
    skills = sorted({m.group(1) for s in ws.registry("skill").active()
                     for m in re.finditer(r"SKILLNAME-([A-Za-z0-9_.-]+)", s.description)})
    answer = {"instructions": _labels(ws, cwd), "skills": skills}
    if host == "gemini" and case.commands:
        from wskit_gemini.expansion import expand_toml_command

        commands = {c.name: c for c in ws.registry("command").active()}
        answer["commands"] = []
        for prompt in case.commands:
            name, _, args = prompt[1:].partition(" ")
            cmd = commands.get(name)
            answer["commands"].append([prompt, prompt if cmd is None else
                                       expand_toml_command(cmd, args, root=project).text])
    return answer


@pytest.fixture(scope="module")
def pm():
    from wskit.plugin.manager import make_plugin_manager

    return make_plugin_manager(load_entrypoints=True, env={})


@pytest.mark.parametrize(("host", "case"), PAIRS, ids=[f"{h}-{c.id}" for h, c in PAIRS])
def test_wskit_loads_the_exported_tree_as_the_host_did(host, case, tmp_path: Path, pm) -> None:
    _needs_corpus(case)
    recorded = RECORDED.get(host, {}).get("cases", {}).get(case.id)
    assert recorded is not None, f"no recording of {case.id} for {host}: python -m tests.conformance.export_hosts"
    if LIVE:
        if oracles.binary(host) is None:
            pytest.skip(f"{host} is not installed")
        live = export_hosts._ask(host, case)
        assert live == recorded, f"{host} answers otherwise than recorded: re-record"
    got = _wskit_answer(host, case, tmp_path, pm)
    assert got == {k: recorded.get(k, []) for k in got}
    if host == "opencode" and "commands" in recorded:  # opencode's own expansion, as --verify computes it
        from wskit.builtin_plugins.export.verify import opencode_expand

        project = tmp_path / "proj"
        for prompt, text in recorded["commands"]:
            name, _, args = prompt[1:].partition(" ")
            body = (project / ".opencode/commands" / (name.replace(":", "/") + ".md")).read_text()
            assert opencode_expand(body.split("---\n", 2)[-1].strip(), args) == text.strip()


@pytest.mark.parametrize(("host", "case"), PAIRS, ids=[f"{h}-{c.id}" for h, c in PAIRS])
def test_the_host_got_what_the_source_meant_but_for_reported_losses(host, case, tmp_path: Path, pm) -> None:
    """Claude Code's own view of the source (wskit ``--host claude``, itself conformance-tested)
    against what the real host loaded from the export: a marker may be missing only when the
    export reported its file lost for that host, and arrive extra only from a path rule it
    reported widened into that folder."""
    import wskit

    _needs_corpus(case)
    recorded = RECORDED[host]["cases"][case.id]
    project, home, cwd = export_tree(case, tmp_path, pm)
    source = _load(case.source, project, home, cwd, pm)
    from wskit.trust import TrustStore

    wskit_home = tmp_path / "wskit-home"
    TrustStore.for_home(wskit_home).grant(project)
    report = wskit.export(project, [host], home=wskit_home, source=case.source, check=True, plugin_manager=pm)
    assert report.ok, [f.to_json() for f in report.stale]
    lost = {loss.item for loss in report.losses if loss.target == host and not loss.carried}
    widened = {loss.item for loss in report.losses if loss.target == host and loss.carried and loss.kind == "rule"}
    catalog = source.catalog("rules").complete()
    written = set(json.loads((project / ".wskit/export.json").read_text())["files"])  # every target's
    marker_file = {m.group(1): r.path for r in catalog.rules() if r.path not in written
                   for m in _MARK.finditer(r.body)}
    want = [m for m in _labels(source, cwd) if marker_file.get(m) not in lost]
    have = recorded["instructions"]
    assert [m for m in want if m not in have] == []
    extra = [m for m in have if m not in want]
    assert all(marker_file.get(m) in widened for m in extra), extra
    if host != "opencode":  # opencode puts the nearest folder first: reported as a loss
        assert [m for m in have if m in want] == want
    _same_configuration(host, recorded, source, report)
    meant = sorted(s.name for s in source.registry("skill").active() if "SKILLNAME-" in s.description)
    skill_losses = {loss.item for loss in report.losses if loss.target == host and loss.kind == "skill"}
    assert [s for s in recorded["skills"] if s not in meant] == []
    assert [s for s in meant if s not in recorded["skills"] and s not in skill_losses] == []


def test_every_host_recording_names_its_version() -> None:
    for host in (*HOSTS, "copilot", "claude"):
        assert RECORDED[host]["version"].count(".") == 2


#: how each host names a Claude Code transport in its listing
_TRANSPORTS = {"codex": {"stdio": "stdio", "http": "streamable_http"}, "gemini": {"stdio": "stdio", "http": "http"},
               "opencode": {"stdio": "local", "http": "remote"}}


def _same_configuration(host: str, recorded: dict, source, report) -> None:
    """MCP servers, commands (expanded by the real host for a typed line) and agents: as the
    source meant, or the difference is a loss the export reported for that host."""
    lost = {(loss.kind, loss.item) for loss in report.losses if loss.target == host}
    servers = {s.name: s for s in source.registry("mcp_server").active()}
    if "mcp" in recorded:
        assert dict(recorded["mcp"]) == {n: _TRANSPORTS[host][s.transport] for n, s in servers.items()}
    commands = {c.name: c for c in source.registry("command").active()}
    if "command_names" in recorded:
        assert recorded["command_names"] == sorted(n.replace(":", "/") for n in commands)
    if "agents" in recorded:
        assert recorded["agents"] == sorted(a.name for a in source.registry("agent").active())
    for prompt, text in recorded.get("commands", ()):
        name, _, args = prompt[1:].partition(" ")
        meant = source.hooks.expand_command(commands[name], args.split(), str(source.binding.source_root)).text
        if text.strip() != meant.strip():
            assert ("command", name) in lost, (host, prompt, text, meant)


def test_copilot_loads_the_files_written_for_it(tmp_path: Path, pm) -> None:
    """GitHub Copilot CLI (observed offline): every instruction file the export wrote for it
    is an instruction source with the ``applyTo`` written, and it offers the source's skills
    and MCP servers. (Its own reading of CLAUDE.md and .claude/rules is the duplication the
    export reports for copilot.)"""
    import frontmatter

    recorded = RECORDED.get("copilot", {}).get("cases", {}).get("claude-layout-root")
    assert recorded is not None, "no copilot recording: python -m tests.conformance.export_hosts --host copilot"
    project, _home, _cwd = export_tree(CASES[0], tmp_path, pm)
    listed = {path: apply_to for path, apply_to in recorded["instruction_files"]}
    written = sorted(p.relative_to(project).as_posix() for p in (project / ".github").rglob("*.md")
                     if p.name.endswith(".instructions.md") or p.name == "copilot-instructions.md")
    assert written and all(w in listed for w in written), (written, listed)
    for w in written:
        if w.endswith(".instructions.md"):
            assert listed[w] == frontmatter.loads((project / w).read_text())["applyTo"]
    assert "pdf-tools" in recorded["skills"]
    assert {name for name, _ in recorded["mcp"]} == {"docs", "files"}
