"""wskit.testing: the pytest plugin plugin authors use (fixtures and helpers)."""

from __future__ import annotations

import json
import subprocess
import sys

import pluggy
import pytest

import wskit
from wskit.testing import register_plugin, write_tree


def test_wskit_pm_is_fresh_and_loads_no_entry_points(wskit_pm):
    from importlib.metadata import entry_points

    from wskit.plugin.manager import DEFAULT_PLUGINS, make_plugin_manager

    names = {n for n, p in wskit_pm.list_name_plugin() if p is not None}
    assert names == {n for n, _ in DEFAULT_PLUGINS}
    installed = {ep.name for ep in entry_points(group="wskit")}
    assert installed, "the repository's plugins are installed in the test environment"
    assert not installed & names
    assert installed <= {n for n, p in make_plugin_manager(env={}).list_name_plugin() if p is not None}


def test_register_plugin_registers_checked_and_unregisters_on_error(wskit_pm):
    class Good:
        @wskit.hookimpl
        def wskit_host_profiles(self):
            return [wskit.HostProfile(name="acme")]

    good = Good()
    with pytest.raises(RuntimeError):
        with register_plugin(wskit_pm, good, name="good"):
            assert wskit_pm.has_plugin("good") and "good" in wskit_pm.info
            raise RuntimeError("boom")
    assert not wskit_pm.has_plugin("good") and "good" not in wskit_pm.info

    class Typo:
        @wskit.hookimpl
        def wskit_host_profile(self):  # misspelt: no such hookspec
            return []

    with pytest.raises(pluggy.PluginValidationError):
        with register_plugin(wskit_pm, Typo(), name="typo"):
            pass
    assert not wskit_pm.has_plugin("typo")


def test_write_tree_and_make_tree(make_tree, tmp_path):
    root = make_tree({"a/b.md": "text", "bin.dat": b"\x00\x01", "empty/": None, "also-empty": None})
    assert root == tmp_path / "ws"
    assert (root / "a/b.md").read_text() == "text" and (root / "bin.dat").read_bytes() == b"\x00\x01"
    assert (root / "empty").is_dir() and (root / "also-empty").is_dir()
    other = write_tree(tmp_path / "other", {"x.txt": "x"})
    assert make_tree({"y.txt": "y"}, root=other) == other and sorted(p.name for p in other.iterdir()) == ["x.txt", "y.txt"]


def test_wsctl_fixture_uses_the_temporary_home_and_json(wsctl, wskit_home, make_tree):
    root = make_tree({".git/HEAD": "x"})
    res = wsctl("trust", "grant", str(root))
    assert res.exit_code == 0
    assert (wskit_home / ".wskit" / "trust.toml").is_file()
    data = json.loads(wsctl("inspect", str(root), json=True).stdout)
    assert data["trust"]["state"] == "trusted"
    bad = wsctl("inspect", str(root / "missing"))
    assert bad.exit_code == 2 and "missing" in bad.stderr


def test_the_plugin_is_registered_with_pytest(tmp_path):
    """A fresh pytest run (as a plugin author's CI) gets the fixtures without any conftest."""
    test = tmp_path / "test_author.py"
    test.write_text(
        "import json\n"
        "def test_it(wsctl, wskit_pm, wskit_profile, wskit_home, make_tree):\n"
        "    assert wskit_profile.home == wskit_home\n"
        "    root = make_tree({'README.md': 'x'})\n"
        "    assert json.loads(wsctl('inspect', str(root), json=True).stdout)['resources'] == []\n"
    )
    # Its own --basetemp: without it the inner run shares /tmp/pytest-of-<user> and, at its end, removes
    # the numbered folders of earlier sessions there (hundreds of MB on a CI machine), which can take
    # minutes and has nothing to do with the plugin under test.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--basetemp={tmp_path / 'inner-tmp'}", str(test)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
