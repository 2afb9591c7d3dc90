"""``wsctl plugins --timings``: import and registration time of every plugin, entry points included.

Runs the real ``wsctl`` in a subprocess (a fresh interpreter, so imports are
really timed) with an extra entry-point distribution on ``PYTHONPATH`` whose
module takes a known minimum time to import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wskit.testing import write_tree

SLEEP = 0.05


@pytest.fixture
def slow_plugin_path(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "site", {
        "slowplug.py": f"import time\ntime.sleep({SLEEP})\n",
        "wskit_slowplug-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: wskit-slowplug\nVersion: 0.1\n",
        "wskit_slowplug-0.1.dist-info/entry_points.txt": "[wskit]\nslow = slowplug\n",
    })


def _wsctl(*args: str, path: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(path)}
    env.pop("WSKIT_DISABLE_PLUGINS", None)
    env.pop("WSKIT_LOAD_PLUGINS", None)
    return subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), *args, "--path", str(home)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_timings_json_per_plugin_including_entry_points(slow_plugin_path, tmp_path):
    home = write_tree(tmp_path / "home", {})
    proc = _wsctl("--json", "plugins", "--timings", path=slow_plugin_path, home=home)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)["plugins"]}
    assert {"slow", "gemini", "example", "skills", "trust"} <= set(rows)
    for r in rows.values():
        assert r["import_seconds"] is not None and r["register_seconds"] is not None
        assert abs(r["seconds"] - (r["import_seconds"] + r["register_seconds"])) < 1e-5
    slow = rows["slow"]
    assert slow["distribution"] == "wskit-slowplug" and not slow["builtin"]
    assert slow["import_seconds"] >= SLEEP  # a lower bound: the module sleeps while it is imported
    assert rows["gemini"]["distribution"] == "wskit-gemini" and rows["gemini"]["import_seconds"] > 0


def test_timings_table_and_keys_only_when_asked(slow_plugin_path, tmp_path):
    home = write_tree(tmp_path / "home", {})
    table = _wsctl("plugins", "--timings", path=slow_plugin_path, home=home)
    lines = table.stdout.splitlines()
    assert lines[0] == "content plugins:"  # content plugins come first
    header = lines[lines.index("Python plugins:") + 1].split()
    assert header[-3:] == ["IMPORT_S", "REGISTER_S", "TOTAL_S"]
    slow_line = next(line for line in table.stdout.splitlines() if line.startswith("slow "))
    assert float(slow_line.split()[-3]) >= SLEEP
    plain = json.loads(_wsctl("--json", "plugins", path=slow_plugin_path, home=home).stdout)
    assert all("seconds" not in r and "import_seconds" not in r for r in plain["plugins"])


def test_plugins_list_says_why_no_content_plugins_are_listed(tmp_path, wskit_home):
    """Blocking the bundles built-in leaves wsctl's own ``plugins list``, which says that
    content plugins are not listed and why (instead of "no content plugins")."""
    from click.testing import CliRunner

    from wskit.cli import make_cli
    from wskit.plugin.manager import make_plugin_manager

    (tmp_path / "ws").mkdir()
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "bundles"})
    out = CliRunner().invoke(make_cli(pm), ["--home", str(wskit_home), "plugins", "list", str(tmp_path / "ws")])
    assert out.exit_code == 0, out.output
    assert "content plugins are not listed: the built-in 'bundles' is blocked" in out.output
    assert "bundles" not in [line.split()[0] for line in out.output.splitlines()[2:] if line.strip()][:20]
