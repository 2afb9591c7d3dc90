"""``plugins install`` copies a marketplace plugin within bounds: files, bytes per file
(apparent size: a sparse giant too), bytes in all. It used to copy anything: a 1 GiB
sparse file became 1 GiB in the home, hashed whole, and a 100,000-file plugin made every
later ``inspect`` 5–9× slower. The bounds are checked with ``lstat`` before anything is
validated or copied, and again while copying (docs/plugins.md, docs/security.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wskit.builtin_plugins.bundles import ledger
from wskit.builtin_plugins.bundles.ledger import (
    MAX_INSTALL_BYTES,
    MAX_INSTALL_FILE_BYTES,
    MAX_INSTALL_FILES,
    check_install_bounds,
)


def _market(tmp_path: Path) -> Path:
    m = tmp_path / "m"
    (m / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin").mkdir(parents=True)
    (m / "p" / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "big", "version": "1.0.0"}))
    (m / "p" / "skills" / "s").mkdir(parents=True)
    (m / "p" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    (m / ".claude-plugin" / "marketplace.json").write_text(json.dumps(
        {"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "big", "source": "./p"}]}))
    return m


def _sparse(path: Path, size: int) -> None:
    with open(path, "wb") as f:
        f.truncate(size)


def _many(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"f{i}").touch()


def _giant_total(folder: Path) -> None:
    folder.mkdir()
    per = MAX_INSTALL_FILE_BYTES
    for i in range(MAX_INSTALL_BYTES // per + 1):
        _sparse(folder / f"part{i}", per)


ATTACKS = {
    "sparse-1GiB": (lambda p: _sparse(p / "blob.bin", 1 << 30), "bound of one plugin file"),
    "sparse-just-over": (lambda p: _sparse(p / "blob.bin", MAX_INSTALL_FILE_BYTES + 1), "bound of one plugin file"),
    "too-many-files": (lambda p: _many(p / "vendor", MAX_INSTALL_FILES + 1), f"more than {MAX_INSTALL_FILES} files"),
    "too-many-bytes": (lambda p: _giant_total(p / "parts"), f"more than {MAX_INSTALL_BYTES} bytes"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_oversized_plugin_is_refused_before_anything_is_copied(attack, wsctl, wskit_home, tmp_path):
    m = _market(tmp_path)
    arm, words = ATTACKS[attack]
    arm(m / "p")
    for force in ((), ("--force",)):
        res = wsctl("plugins", "install", "big@m", "--from", str(m), *force)
        assert res.exit_code == 1, res.output
        assert words in res.output and "not installed" in res.output, res.output
        assert "Traceback" not in res.output
    home_bytes = sum(os.lstat(p).st_blocks * 512 for p in wskit_home.rglob("*"))
    assert home_bytes < 1 << 20, home_bytes  # nothing of it landed in the home
    assert not list(wskit_home.rglob("SKILL.md"))


def test_the_bounds_hold_while_copying(tmp_path, monkeypatch):
    """A file that grows between the measure and the copy is caught by the copy."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a").write_bytes(b"x" * 4096)
    monkeypatch.setattr(ledger, "MAX_INSTALL_FILE_BYTES", 1024)
    with pytest.raises(ledger.LedgerError, match="bound of one plugin file"):
        ledger._copy_tree(str(src), str(tmp_path / "dst"), [])


def test_a_plugin_within_bounds_installs_whole(wsctl, wskit_home, tmp_path):
    m = _market(tmp_path)
    _many(m / "p" / "data", 100)
    (m / "p" / "bin").mkdir()
    (m / "p" / "bin" / "tool").write_bytes(b"\x7fELF" + b"\0" * 4096)
    (m / "p" / "bin" / "tool").chmod(0o755)
    res = wsctl("plugins", "install", "big@m", "--from", str(m), json=True)
    assert res.exit_code == 0, res.output
    root = Path(json.loads(res.stdout)["root"])
    assert len(list((root / "data").iterdir())) == 100
    assert (root / "bin" / "tool").stat().st_mode & 0o777 == 0o755
    assert (root / "bin" / "tool").read_bytes() == (m / "p" / "bin" / "tool").read_bytes()


@pytest.mark.corpus
def test_every_official_plugin_is_within_the_bounds(shared_dir):
    corpus = shared_dir / "corpus" / "claude-plugins-official"
    roots = {p.parent.parent for p in corpus.rglob(".claude-plugin/plugin.json")}
    assert len(roots) > 10
    sizes = [check_install_bounds(r) for r in roots]
    assert max(s["files"] for s in sizes) * 20 < MAX_INSTALL_FILES
    assert max(s["bytes"] for s in sizes) * 20 < MAX_INSTALL_BYTES
