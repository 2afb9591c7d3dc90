"""``wsctl serve --http`` under 50 official-SDK clients (tests/benchmarks/serve_load.py,
S2) for a short run: no failed, wrong or mixed answer. The header timeout once closed
connections of live clients under this load (docs/serve.md, "Load"). Slow (a real server,
50 sessions, 20 s of calls): left out of the default run, run by ``.ci/run``'s second step.
Figures (throughput, p99, memory over time) are the benchmark's to print, not asserted."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")
pytest.importorskip("wskit_serve")


@pytest.mark.slow
def test_fifty_clients_get_every_answer_right(tmp_path, capsys):
    from tests.benchmarks.serve_load import main

    status = main(["--clients", "50", "--seconds", "20", "--vanish", "20", "--workdir", str(tmp_path)])
    out = capsys.readouterr().out
    assert "failed or wrong answers: 0" in out, out
    assert status == 0
