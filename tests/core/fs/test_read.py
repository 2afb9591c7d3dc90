import os
import socket
import threading
from pathlib import Path

import pytest

from wskit import fs
from wskit.fs import SafeFsError


def _code(fn, *a, **k) -> str:
    with pytest.raises(SafeFsError) as info:
        fn(*a, **k)
    return info.value.code


def test_reads_a_regular_file(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f.md").write_bytes(b"hello")
    res = fs.read_bytes(tmp_path, "a/f.md")
    assert res.raw == b"hello" and res.complete and res.size == 5


@pytest.mark.parametrize(
    "rel,code",
    [
        ("../x", "path-escape"),
        ("a/../../b", "path-escape"),
        ("/etc/passwd", "path-absolute"),
        ("C:/x", "path-absolute"),
        ("a\\b", "path-invalid"),
        ("a\x00b", "path-invalid"),
        (".env", "secret-path"),
        ("x/.ssh/id_rsa", "secret-path"),
        ("keys/server.pem", "secret-path"),
        (".git/config", "secret-path"),
        ("credentials.json", "secret-path"),
    ],
)
def test_refuses_lexically_unsafe_paths(tmp_path: Path, rel: str, code: str):
    assert _code(fs.read_bytes, tmp_path, rel) == code


def test_refuses_symlinked_file_and_folder(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    base = tmp_path / "base"
    (base / "real").mkdir(parents=True)
    (base / "link.md").symlink_to(outside)
    (base / "dirlink").symlink_to(base / "real")
    (base / "real" / "f.md").write_text("x")
    assert _code(fs.read_bytes, base, "link.md") == "symlink"
    assert _code(fs.read_bytes, base, "dirlink/f.md") == "symlink"
    # follow mode (user scope) follows and reports the target
    res = fs.read_bytes(base, "link.md", follow_links=True)
    assert res.raw == b"secret" and res.link_target == str(outside)


def test_refuses_hard_links(tmp_path: Path):
    (tmp_path / "a.md").write_text("x")
    os.link(tmp_path / "a.md", tmp_path / "b.md")
    assert _code(fs.read_bytes, tmp_path, "b.md") == "hardlink"


def test_fifo_is_refused_without_blocking(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.md")
    done = threading.Event()
    codes = []

    def run():
        codes.append(_code(fs.read_bytes, tmp_path, "pipe.md"))
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(5), "reading a FIFO blocked"
    assert codes == ["special-file"]


def test_socket_is_refused(tmp_path: Path):
    path = tmp_path / "s.md"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        assert _code(fs.read_bytes, tmp_path, "s.md") == "special-file"
    finally:
        sock.close()


def test_size_is_checked_before_reading(tmp_path: Path):
    big = tmp_path / "big.md"
    with open(big, "wb") as fh:
        fh.truncate(10 * 1024 * 1024)  # sparse
    assert _code(fs.read_bytes, tmp_path, "big.md", max_bytes=1024) == "too-large"
    (tmp_path / "ok.md").write_bytes(b"x" * 1024)
    assert len(fs.read_bytes(tmp_path, "ok.md", max_bytes=1024).raw) == 1024


def test_missing_and_folder(tmp_path: Path):
    (tmp_path / "d").mkdir()
    assert _code(fs.read_bytes, tmp_path, "nope.md") == "not-found"
    assert _code(fs.read_bytes, tmp_path, "d") == "not-a-file"


def test_read_head_stops_early(tmp_path: Path):
    (tmp_path / "f").write_bytes(b"a" * 100_000)
    res = fs.read_head(tmp_path, "f", done=lambda b: len(b) >= 10, max_bytes=50_000, chunk_size=4096)
    assert len(res.raw) == 4096 and not res.complete and res.size == 100_000


def test_scan_dir_lists_links_without_following(tmp_path: Path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    (tmp_path / "l").symlink_to(tmp_path / "d")
    (tmp_path / ".env").write_text("SECRET=1")
    os.mkfifo(tmp_path / "p")
    entries = {e.name: e.type for e in fs.scan_dir(tmp_path)}
    assert entries == {"d": "dir", "f": "file", "l": "link", "p": "special"}
    followed = {e.name: (e.type, e.link_target) for e in fs.scan_dir(tmp_path, follow_links=True)}
    assert followed["l"] == ("dir", str(tmp_path / "d"))


def test_a_refusal_as_a_diagnostic_does_not_repeat_its_path_or_code(tmp_path):
    """Not '<path>: <path>: refusing … [symlink] [symlink]' when a diagnostic (which has
    path and code fields) is printed as 'path: message [code]'."""
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.md").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(SafeFsError) as info:
        fs.read_bytes(tmp_path, "link/f.md")
    err = info.value
    d = err.diagnostic()
    assert d.code == "symlink" and d.path == err.path
    assert err.path not in d.message and "[symlink]" not in d.message and d.message == err.reason
    assert err.message_for(err.path) == err.reason
    assert err.message_for(str(tmp_path / "other")) == f"{err.path}: {err.reason}"
    assert str(err) == f"{err.path}: {err.reason} [symlink]"  # the exception text is unchanged
