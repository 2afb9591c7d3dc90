"""wskit under each host profile against the answers the real hosts gave.

Default run: the recordings committed in ``recorded.json`` (host name and version
beside each). With ``WSKIT_HOST_ORACLES=1`` the installed hosts are asked live instead
and a drift from the recording fails too. A case wskit deliberately answers otherwise
is listed in :data:`tests.conformance.differences.DIFFERENCES` and in docs/compatibility.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance import oracles
from tests.conformance.answers import wskit_answer
from tests.conformance.cases import CASES
from tests.conformance.differences import DIFFERENCES
from tests.conformance.record import load

RECORDED = load()
LIVE = os.environ.get("WSKIT_HOST_ORACLES") == "1"
PAIRS = [(h, c) for h in oracles.HOSTS for c in CASES if h in c.hosts]
_BY_ID = {c.id: c for c in CASES}


def _recorded(host: str, case_id: str) -> dict:
    entry = RECORDED.get(host, {})
    assert entry.get("version"), f"no recorded version for {host}"
    got = entry.get("cases", {}).get(case_id)
    assert got is not None, f"no recording of {case_id} for {host}: run python -m tests.conformance.record"
    return {k: got.get(k, []) for k in _BY_ID[case_id].compare}


@pytest.mark.parametrize(("host", "case"), PAIRS, ids=[f"{h}-{c.id}" for h, c in PAIRS])
def test_wskit_answers_as_the_host_did(host, case, tmp_path: Path):
    expected = _recorded(host, case.id)
    if LIVE:
        if oracles.binary(host) is None:
            pytest.skip(f"{host} is not installed")
        live = oracles.ask(host, case)
        assert {k: live.get(k, []) for k in case.compare} == expected, (
            f"{host} {oracles.host_version(host)} answers otherwise than the recording "
            f"({RECORDED[host]['version']}): re-record with python -m tests.conformance.record")
    got = {k: v for k, v in wskit_answer(case, host, tmp_path).items() if k in case.compare}
    if (host, case.id) in DIFFERENCES:
        assert got != expected, f"{host}/{case.id} is listed as a deliberate difference but now agrees"
        return
    assert got == expected


def test_every_recording_names_its_host_version_and_every_case_is_recorded():
    for host in oracles.HOSTS:
        assert RECORDED[host]["version"].count(".") == 2
        assert set(RECORDED[host]["cases"]) >= {c.id for c in CASES if host in c.hosts}


def test_every_deliberate_difference_is_in_the_compatibility_page():
    page = (Path(__file__).parents[2] / "docs" / "compatibility.md").read_text()
    for (host, case_id), why in DIFFERENCES.items():
        assert f"`{case_id}`" in page, f"docs/compatibility.md does not list {host}/{case_id}"


def test_the_default_host_keeps_the_cross_tool_union(tmp_path: Path):
    """Host ``wskit`` reads every convention at once (docs/rules.md): here AGENTS.md,
    CLAUDE.md and GEMINI.md (wskit-gemini) of every folder of the chain."""
    case = next(c for c in CASES if c.id == "nested-chain")
    got = wskit_answer(case, "wskit", tmp_path)
    assert got["instructions"] == ["CLAUDE.md", "AGENTS.md", "GEMINI.md", "a/CLAUDE.md", "a/AGENTS.md",
                                   "a/GEMINI.md", "a/b/CLAUDE.md", "a/b/AGENTS.md", "a/b/GEMINI.md"]


def test_exact_byte_budget_is_codex(tmp_path: Path):
    """``exact_byte_budget`` reproduces Codex's 32 KiB cut of the recorded ``budget`` case,
    and says which file it cut."""
    case = next(c for c in CASES if c.id == "budget")
    settings = {"rules": {"exact_byte_budget": 32 * 1024}}
    got = wskit_answer(case, "codex", tmp_path / "a", settings)
    assert {k: got[k] for k in case.compare} == _recorded("codex", case.id)
    project, home, cwd = case.lay_out(tmp_path / "b")
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="codex", home=home, settings=settings)).resolve(str(cwd))
    sel = ws.catalog("rules").static_rules(str(cwd))
    assert sum(r.bytes for r in sel.files if r.source != "user") <= 32 * 1024
    cut = [(s.rule.display_path, s.reason) for s in sel.skipped]
    assert cut == [("a/AGENTS.md", "cut")]
    assert sel.files[-1].body.startswith("S:a/AGENTS.md") and "#end" not in sel.files[-1].body


def test_string_path_order_is_gemini(tmp_path: Path):
    """``string_path_order`` reproduces Gemini CLI's order of the recorded
    ``gemini-file-names`` case (memory paths sorted as strings), the deliberate difference
    of the default gemini profile."""
    case = next(c for c in CASES if c.id == "gemini-file-names")
    expected = _recorded("gemini", case.id)
    assert {k: v for k, v in wskit_answer(case, "gemini", tmp_path / "a").items() if k in case.compare} != expected
    got = wskit_answer(case, "gemini", tmp_path / "b", {"rules": {"string_path_order": True}})
    assert {k: got[k] for k in case.compare} == expected


def test_the_default_host_reads_copilots_and_cursors_conventions_too(tmp_path: Path):
    """Host ``wskit`` adds GitHub Copilot's and Cursor's files to its union (docs/rules.md):
    ``.github/copilot-instructions.md``, ``.github/instructions``, ``~/.copilot``; ``.cursorrules``,
    ``.cursor/rules``, ``.cursor/skills``, ``.cursor/commands``, ``.cursor/mcp.json``."""
    from tests.conformance.cursor import CASES as CURSOR

    case = next(c for c in CASES if c.id == "copilot-sources")
    got = wskit_answer(case, "wskit", tmp_path / "a")
    assert {"~/.copilot/copilot-instructions.md", ".github/copilot-instructions.md", "all-instr",
            "noapply-instr"} <= set(got["instructions"])
    assert "excl-cod" not in got["instructions"]
    assert {"sk-gh-root", "sk-home-copilot"} <= set(got["skills"])
    assert {"ag1", "ag3"} <= set(got["agents"])  # ag2, without name, is Copilot's file-named one
    assert {"home-mcp", "root-mcp"} <= set(got["mcp"])
    rules, *_ = CURSOR[0]
    got = wskit_answer(rules, "wskit", tmp_path / "b")
    assert got["instructions"] == ["always", "both", "nested"]  # globs, requested, manual: not at start
    mixed = CURSOR[2][0]
    got = wskit_answer(mixed, "wskit", tmp_path / "c")
    assert {"sk-cursor", "sk-home-cursor"} <= set(got["skills"])
    assert {"cursor-mcp", "home-mcp"} <= set(got["mcp"])
