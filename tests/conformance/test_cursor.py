"""wskit ``--host cursor`` against the answers Cursor's documentation gives
(:mod:`tests.conformance.cursor`: each case names the statements it rests on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.answers import _plugin_manager
from tests.conformance.cursor import CASES, DOCS

_IDS = [c.id for c, *_ in CASES]


def _answer(case, read: str, tmp_path: Path) -> dict:
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home, cwd = case.lay_out(tmp_path)
    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="cursor", home=home), _plugin_manager()).resolve(str(cwd))
    catalog = ws.catalog("rules")
    static = catalog.static_rules(str(cwd))
    attached = catalog.contextual_rules(str(cwd), [str(project / read)]) if read else None
    everything = catalog.rules()
    return {"instructions": [r.path for r in static.files],
            "attached": [r.path for r in attached.files] if attached is not None else [],
            "requested": [r.path for r in everything if r.activation == "requested"],
            "manual": [r.path for r in everything if r.activation == "manual"],
            "skills": sorted(r.name for r in ws.registry("skill").active()),
            "commands": sorted(r.name for r in ws.registry("command").active()),
            "mcp": sorted(r.name for r in ws.registry("mcp_server").active()),
            "hooks": sorted([h.native_event or h.event, h.event, h.matcher, h.provenance.scope.value]
                            for h in ws.registry("hook").active())}


@pytest.mark.parametrize(("case", "read", "expected", "sources"), CASES, ids=_IDS)
def test_wskit_answers_as_cursors_documentation_says(case, read, expected, sources, tmp_path: Path):
    got = _answer(case, read, tmp_path)
    assert {k: got[k] for k in expected} == expected


def test_every_case_cites_a_statement_in_the_compatibility_page():
    page = (Path(__file__).parents[2] / "docs" / "compatibility.md").read_text()
    for case, _read, _expected, sources in CASES:
        assert sources and all(s in DOCS for s in sources), case.id
        assert f"`{case.id}`" in page, f"docs/compatibility.md does not name {case.id}"
        for s in sources:
            assert DOCS[s] in page, f"docs/compatibility.md does not cite {DOCS[s]}"


def test_a_requested_rule_keeps_its_description(tmp_path: Path):
    case = CASES[0][0]
    project, home, cwd = case.lay_out(tmp_path)
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    TrustStore.for_home(home).grant(project)
    ws = WorkspaceCache(HostProfile(name="cursor", home=home), _plugin_manager()).resolve(str(cwd))
    rule = ws.catalog("rules").by_path(".cursor/rules/requested.mdc")
    assert rule is not None and rule.description == "Use for database migrations" and rule.conditional


@pytest.mark.corpus
def test_inspect_under_host_cursor_of_a_project_with_cursors_files(tmp_path: Path, wsctl):
    """A new user's Cursor project built from the published skills of ``shared/corpus``:
    ``wsctl --host cursor inspect`` lists every skill of ``.cursor/skills`` and
    ``.agents/skills`` (Cursor's skills directories), its command and MCP server, and the
    always-applied rule and ``AGENTS.md`` at start (DOCS ``skills``, ``commands``, ``mcp``, ``rules``)."""
    import shutil

    from tests.conformance.corpus_hosts import CORPUS

    if not CORPUS.is_dir():
        pytest.skip("shared/corpus is not available")
    project, home = tmp_path / "p", tmp_path / "h"
    home.mkdir()
    names = sorted(p.name for p in CORPUS.iterdir() if (p / "SKILL.md").is_file())
    for i, name in enumerate(names):
        shutil.copytree(CORPUS / name, project / (".cursor/skills" if i % 2 else ".agents/skills") / name,
                        symlinks=True)
    (project / ".git").mkdir()
    (project / "AGENTS.md").write_text("# rules\n")
    (project / ".cursor/rules").mkdir(parents=True)
    (project / ".cursor/rules/style.mdc").write_text("---\nalwaysApply: true\n---\nStyle rules\n")
    (project / ".cursor/rules/ts.mdc").write_text("---\nglobs: '**/*.ts'\n---\nTS rules\n")
    (project / ".cursor/commands").mkdir(parents=True)
    (project / ".cursor/commands/ship.md").write_text("Ship it\n")
    (project / ".cursor/mcp.json").write_text('{"mcpServers": {"docs": {"command": "npx"}}}')
    assert wsctl("--home", str(home), "trust", "grant", str(project)).exit_code == 0
    data = json.loads(wsctl("--home", str(home), "--host", "cursor", "inspect", str(project), json=True).output)
    by_kind: dict[str, list[str]] = {}
    for r in data["resources"]:
        by_kind.setdefault(r["kind"], []).append(r["name"])
    assert sorted(by_kind["skill"]) == names
    assert by_kind["command"] == ["ship"] and by_kind["mcp_server"] == ["docs"]
    rules = json.loads(wsctl("--home", str(home), "--host", "cursor", "rules", str(project), json=True).output)
    assert [x["path"] for x in rules["static"]] == ["AGENTS.md", ".cursor/rules/style.mdc"]
