"""``wsctl --host copilot inspect`` of a new user's project built from the published skills
in ``shared/corpus`` gives what GitHub Copilot CLI 1.0.102 gave for it (recorded by
:mod:`tests.conformance.corpus_hosts`): the same skills (one refused for its description's
length by both), instruction files and MCP servers."""

from __future__ import annotations

import json

import pytest

from tests.conformance.corpus_hosts import CORPUS, RECORDED, lay_out_copilot

pytestmark = [pytest.mark.corpus,
              pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus is not available")]


def test_inspect_under_host_copilot_gives_what_copilot_gave(tmp_path, wsctl):
    expected = json.loads(RECORDED.read_text())["copilot"]
    assert expected["version"] == "1.0.102"
    project, home, cwd = lay_out_copilot(tmp_path)
    assert wsctl("--home", str(home), "trust", "grant", str(project)).exit_code == 0
    r = wsctl("--home", str(home), "--host", "copilot", "inspect", str(cwd), json=True)
    data = json.loads(r.output)
    got_skills = sorted(x["name"] for x in data["resources"] if x.get("kind") == "skill")
    got_mcp = sorted(x["name"] for x in data["resources"] if x.get("kind") == "mcp_server")
    assert got_skills == expected["answer"]["skills"]
    assert got_mcp == expected["answer"]["mcp"]
    refused = [d for d in data["diagnostics"] if d["level"] == "error" and d["code"] == "skill-description-too-long"]
    assert len(refused) == 1 and "claude-api" in refused[0]["path"]
    rules = json.loads(wsctl("--home", str(home), "--host", "copilot", "rules", str(cwd), json=True).output)
    assert [[x["path"], None] for x in rules["static"]] == [i for i in expected["answer"]["instructions"]
                                                            if i[1] is None]
    # the file Copilot lists for the model to open (applyTo **/*.py) applies when a .py file is read
    (cwd / "x.py").write_text("pass\n")
    conditional = [i[0] for i in expected["answer"]["instructions"] if i[1] == "**/*.py"]
    ctx = json.loads(wsctl("--home", str(home), "--host", "copilot", "rules", str(cwd), "--for", str(cwd / "x.py"),
                           json=True).output)
    assert [x["path"] for x in ctx["contextual"]] == conditional
