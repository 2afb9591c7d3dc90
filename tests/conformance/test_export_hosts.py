"""Trees ``wsctl export`` wrote, as the real Codex CLI, Gemini CLI and opencode load them
(recorded in ``export_recorded.json`` by ``python -m tests.conformance.export_hosts``):

- wskit under the host's profile answers what the host answered on the same exported tree;
- the host received what the Claude Code source meant: every instruction marker Claude Code
  delivers at that cwd and every skill, except what the export reports as not carried.

With ``WSKIT_HOST_ORACLES=1`` the installed hosts are asked again and a drift fails.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conformance import export_hosts, oracles
from tests.conformance.export_hosts import CASES, HOSTS, export_tree

RECORDED = export_hosts.load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"
PAIRS = [(h, c) for h in HOSTS for c in CASES]
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
    source = _load("claude", project, home, cwd, pm)
    from wskit.trust import TrustStore

    wskit_home = tmp_path / "wskit-home"
    TrustStore.for_home(wskit_home).grant(project)
    report = wskit.export(project, [host], home=wskit_home, check=True, plugin_manager=pm)
    assert report.ok, [f.to_json() for f in report.stale]
    lost = {loss.item for loss in report.losses if loss.target == host and not loss.carried}
    widened = {loss.item for loss in report.losses if loss.target == host and loss.carried and loss.kind == "rule"}
    catalog = source.catalog("rules").complete()
    marker_file = {m.group(1): r.path for r in catalog.rules() for m in _MARK.finditer(r.body)}
    want = [m for m in _labels(source, cwd) if marker_file.get(m) not in lost]
    have = recorded["instructions"]
    assert [m for m in want if m not in have] == []
    extra = [m for m in have if m not in want]
    assert all(marker_file.get(m) in widened for m in extra), extra
    if host != "opencode":  # opencode puts the nearest folder first: reported as a loss
        assert [m for m in have if m in want] == want
    meant = sorted(s.name for s in source.registry("skill").active() if "SKILLNAME-" in s.description)
    skill_losses = {loss.item for loss in report.losses if loss.target == host and loss.kind == "skill"}
    assert [s for s in recorded["skills"] if s not in meant] == []
    assert [s for s in meant if s not in recorded["skills"] and s not in skill_losses] == []


def test_every_host_recording_names_its_version() -> None:
    for host in HOSTS:
        assert RECORDED[host]["version"].count(".") == 2
