"""Output paths the user names (``wsctl snapshot -o PATH``) behave like a shell
redirection, never like a rename over whatever is there.

``snapshot -o`` used to replace the path with a regular file by an atomic rename:
run as root with a path that was a device node, a FIFO or a link to a file, it
replaced the node or the link itself with session JSON. Every case here uses a
decoy made in ``tmp_path`` (a character device like ``/dev/null`` made with
``mknod``, a FIFO with a reader, a link to a decoy file, a pseudo-terminal this
test opened): never a real system file.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from tests.security.harness import bounded


@pytest.fixture
def project(tmp_path, wskit_home):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def _is_state(text: str) -> bool:
    return "session_id" in json.loads(text)


def test_link_to_a_decoy_is_followed_and_stays_a_link(wsctl, project, tmp_path):
    decoy = tmp_path / "decoy.json"
    decoy.write_text("old\n")
    os.chmod(decoy, 0o640)
    link = tmp_path / "out.json"
    link.symlink_to(decoy)
    res = wsctl("snapshot", str(project), "-o", str(link))
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and os.readlink(link) == str(decoy)  # never replaced by the rename
    assert _is_state(decoy.read_text())
    assert stat.S_IMODE(os.stat(decoy).st_mode) == 0o640  # an existing file keeps its mode


def test_character_device_is_written_through_not_replaced(wsctl, project, tmp_path):
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # like /dev/null
    except (PermissionError, OSError) as err:
        pytest.skip(f"mknod needs root: {err}")
    res = wsctl("snapshot", str(project), "-o", str(node))
    assert res.exit_code == 0, res.output
    assert stat.S_ISCHR(os.lstat(node).st_mode) and os.lstat(node).st_rdev == os.makedev(1, 3)


def test_fifo_is_written_through_and_one_without_reader_does_not_hang(wsctl, project, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader (the session JSON fits the pipe buffer)
    try:
        res = wsctl("snapshot", str(project), "-o", str(fifo))
        assert res.exit_code == 0, res.output
        got = os.read(rfd, 1 << 16)
    finally:
        os.close(rfd)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _is_state(got.decode())
    lonely = tmp_path / "lonely"
    os.mkfifo(lonely)
    res = bounded(lambda: wsctl("snapshot", str(project), "-o", str(lonely)), 20)
    assert res.exit_code == 1 and "nobody reads" in res.output and "Traceback" not in res.output
    assert stat.S_ISFIFO(os.lstat(lonely).st_mode)


def test_terminal_is_written_through(wsctl, project):
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        out: list[bytes] = []

        def drain():
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                out.append(chunk)

        t = threading.Thread(target=drain, daemon=True)
        t.start()
        res = wsctl("snapshot", str(project), "-o", name)
        assert res.exit_code == 0, res.output
        assert stat.S_ISCHR(os.stat(name).st_mode)
    finally:
        os.close(slave)
    t.join(5)
    os.close(master)
    assert b"session_id" in b"".join(out)


def test_dash_is_stdout_and_relative_paths_are_shown_absolute(wsctl, project, tmp_path, monkeypatch):
    res = wsctl("snapshot", str(project), "-o", "-")
    assert res.exit_code == 0 and _is_state(res.stdout)
    assert not (Path.cwd() / "-").exists()
    monkeypatch.chdir(tmp_path)
    res = wsctl("snapshot", str(project), "-o", "rel.json")
    assert res.exit_code == 0, res.output
    assert _is_state((tmp_path / "rel.json").read_text())
    assert f"wrote {tmp_path / 'rel.json'}:" in res.stdout


def test_socket_and_folder_are_refused(wsctl, project, tmp_path):
    import socket

    sock_path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    try:
        res = wsctl("snapshot", str(project), "-o", str(sock_path))
        assert res.exit_code == 1 and "socket" in res.output and "Traceback" not in res.output
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    finally:
        s.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc")
def test_a_file_whose_folder_refuses_the_temporary_file_is_named_with_why(wsctl, project, tmp_path):
    """``-o /proc/self/mem``: a 'regular' file in a folder where no file can be made
    (creating the temporary file beside it fails, so nothing is written). The error
    named only the temporary name ('.mem.….tmp'); it names the path given and why."""
    res = wsctl("snapshot", str(project), "-o", "/proc/self/mem")
    assert res.exit_code == 1 and "Traceback" not in res.output
    (line,) = res.output.strip().splitlines()
    assert line.startswith("error: cannot write /proc/self/mem (as /proc/") and ".tmp" not in line
    assert "does not let a new file be made beside it" in line and "the session state was not written" in line
    # through a link in the temporary folder: the link is named, and so is what it leads to
    (tmp_path / "out.json").symlink_to("/proc/self/comm")
    res = wsctl("snapshot", str(project), "-o", str(tmp_path / "out.json"))
    assert res.exit_code == 1 and f"cannot write {tmp_path / 'out.json'} (as /proc/" in res.output
    assert (tmp_path / "out.json").is_symlink()
