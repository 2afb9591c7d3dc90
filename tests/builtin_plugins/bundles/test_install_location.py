"""Where ``wsctl plugins install`` puts a plugin (issue 34 items 2 and 3): wskit's own state,
``~/.wskit/installs/<host>/<name>``; installs earlier versions made in
``~/.<host>/plugins/<name>`` keep loading and are moved there (locked, atomic, recoverable);
a folder dropped in ``~/.claude/plugins`` does not load under ``--host claude`` (Claude Code
2.1.337 does not load it: tests/conformance, case ``dropped-plugin-folder``); a name Claude
Code's validator reserves installs from a marketplace the user added."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from wskit.builtin_plugins.bundles.ledger import ledger_path


def _market(root: Path, name: str = "tool") -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / "p" / ".claude-plugin").mkdir(parents=True)
    (root / "p" / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    (root / "p" / "skills" / "s").mkdir(parents=True)
    (root / "p" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps(
        {"name": "m", "owner": {"name": "x"}, "plugins": [{"name": name, "source": "./p"}]}))
    return root


def _bundles(wsctl, host: str, where: Path) -> dict[str, dict]:
    r = wsctl("--host", host, "plugins", "list", str(where), json=True)
    assert r.exit_code == 0, r.output
    return {b["name"]: b for b in json.loads(r.output)["bundles"]}


def _as_an_earlier_version_left_it(home: Path, host: str, name: str) -> tuple[Path, Path]:
    """Move an install to ``~/.<host>/plugins/<name>`` and point the ledger there."""
    new = home / ".wskit" / "installs" / host / name
    legacy = home / f".{host}" / "plugins" / name
    legacy.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(new, legacy)
    path = home / f".{host}" / "plugin-ledger.json"
    doc = json.loads(path.read_text())
    doc["plugins"][name]["root"] = str(legacy)
    path.write_text(json.dumps(doc))
    return legacy, new


def test_an_install_goes_to_wskits_state_and_loads(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m")
    r = wsctl("--host", "claude", "plugins", "install", "tool@m", "--from", str(m), json=True)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["root"] == str(wskit_home / ".wskit/installs/claude/tool")
    assert not (wskit_home / ".claude/plugins/tool").exists()
    got = _bundles(wsctl, "claude", tmp_path)
    assert got["tool"]["scope"] == "managed" and got["tool"]["state"] == "active"


def test_an_earlier_install_keeps_loading_and_migrates(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m")
    assert wsctl("--host", "claude", "plugins", "install", "tool@m", "--from", str(m)).exit_code == 0
    legacy, new = _as_an_earlier_version_left_it(wskit_home, "claude", "tool")
    before = _bundles(wsctl, "claude", tmp_path)["tool"]
    assert before["scope"] == "managed" and before["state"] == "active"  # works before it is moved
    r = wsctl("--host", "claude", "plugins", "migrate", json=True)
    assert r.exit_code == 0, r.output
    (moved,) = json.loads(r.output)["migrated"]
    assert moved == {"name": "tool", "from": str(legacy), "to": str(new), "status": "moved"}
    assert not legacy.exists() and (new / "skills/s/SKILL.md").is_file()
    assert json.loads(ledger_path_for(wskit_home, "claude").read_text())["plugins"]["tool"]["root"] == str(new)
    after = _bundles(wsctl, "claude", tmp_path)["tool"]
    assert after["scope"] == "managed" and after["state"] == "active"  # the digest still matches
    assert json.loads(wsctl("--host", "claude", "plugins", "migrate", json=True).output)["migrated"] == []


def test_an_install_or_uninstall_migrates_first(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m")
    assert wsctl("plugins", "install", "tool@m", "--from", str(m)).exit_code == 0
    legacy, new = _as_an_earlier_version_left_it(wskit_home, "wskit", "tool")
    r = wsctl("plugins", "uninstall", "tool", json=True)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["root"] == str(new)
    assert not legacy.exists() and not new.exists()


def test_a_move_whose_ledger_write_was_cut_short_is_completed(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m")
    assert wsctl("plugins", "install", "tool@m", "--from", str(m)).exit_code == 0
    legacy, new = _as_an_earlier_version_left_it(wskit_home, "wskit", "tool")
    shutil.move(legacy, new)  # the folder moved, the ledger still names the old place
    (moved,) = json.loads(wsctl("plugins", "migrate", json=True).output)["migrated"]
    assert moved["status"] == "moved"
    assert json.loads(ledger_path_for(wskit_home, "wskit").read_text())["plugins"]["tool"]["root"] == str(new)
    assert _bundles(wsctl, "wskit", tmp_path)["tool"]["state"] == "active"


def test_a_folder_at_the_new_place_that_is_not_the_install_is_kept(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m")
    assert wsctl("plugins", "install", "tool@m", "--from", str(m)).exit_code == 0
    legacy, new = _as_an_earlier_version_left_it(wskit_home, "wskit", "tool")
    new.mkdir(parents=True)
    (new / "mine.txt").write_text("someone else's")
    (kept,) = json.loads(wsctl("plugins", "migrate", json=True).output)["migrated"]
    assert kept["status"] == "kept" and "remove it" in kept["detail"]
    assert (legacy / "skills/s/SKILL.md").is_file() and (new / "mine.txt").read_text() == "someone else's"
    assert json.loads(ledger_path_for(wskit_home, "wskit").read_text())["plugins"]["tool"]["root"] == str(legacy)


def test_a_folder_dropped_in_claudes_plugins_folder_does_not_load_under_host_claude(tmp_path, wsctl, wskit_home):
    dropped = wskit_home / ".claude/plugins/dropped"
    (dropped / ".claude-plugin").mkdir(parents=True)
    (dropped / ".claude-plugin/plugin.json").write_text(json.dumps({"name": "dropped", "version": "1.0.0"}))
    (dropped / "skills/s").mkdir(parents=True)
    (dropped / "skills/s/SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    assert "dropped" not in _bundles(wsctl, "claude", tmp_path)
    assert _bundles(wsctl, "wskit", tmp_path)["dropped"]["scope"] == "user"  # wskit's own union reads it


def test_a_name_claude_codes_validator_reserves_installs_from_a_local_marketplace(tmp_path, wsctl, wskit_home):
    m = _market(tmp_path / "m", "claude-md-management")
    assert wsctl("plugins", "validate", str(m / "p")).exit_code == 1  # the validator's verdict stands
    r = wsctl("--host", "claude", "plugins", "install", "claude-md-management@m", "--from", str(m), json=True)
    assert r.exit_code == 0, r.output
    assert (wskit_home / ".wskit/installs/claude/claude-md-management/skills/s/SKILL.md").is_file()


def ledger_path_for(home: Path, host: str) -> Path:
    from wskit import HostProfile

    return ledger_path(HostProfile(name=host, home=home))
