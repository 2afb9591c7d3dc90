"""Real repositories under each host profile: ``python -m tests.conformance.real
GITDIR:DEEP_FOLDER ...`` (a fetched repository's git directory and a folder inside it).

For each repository the newest commit is unpacked into a temporary folder and committed
again as a fresh repository; every instruction file gets a first line ``S:<path>``
(which changes nothing about what loads) so the host's answer can be read; then each
installed host and wskit with that host's profile are asked which instruction files
reach the prompt in the deep folder. Prints one JSON line per (repository, host)
with both answers and whether they agree (the figures in docs/compatibility.md).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conformance import oracles
from tests.conformance.answers import wskit_answer
from tests.conformance.cases import _commit

__all__ = ["RealRepo", "main"]

_INSTRUCTION = re.compile(r"(^|/)((AGENTS|CLAUDE|GEMINI|CONTEXT)(\.override|\.local)?\.md|\.claude/rules/.+\.md)$")


@dataclass(frozen=True)
class RealRepo:
    """A fetched repository and the folder the host starts in."""

    git_dir: str
    cwd: str
    id: str = ""

    def lay_out(self, base: Path) -> tuple[Path, Path, Path]:
        project, home = base / "p", base / "h"
        project.mkdir(parents=True)
        home.mkdir(parents=True)
        _unpack(self.git_dir, project)
        for dirpath, _dirs, files in os.walk(project):
            for name in files:
                p = Path(dirpath, name)
                rel = p.relative_to(project).as_posix()
                if _INSTRUCTION.search(rel) and not p.is_symlink() and p.is_file():
                    p.write_text(f"S:{rel}\n" + p.read_text(errors="replace"))
        _commit(project)
        return project, home, project / self.cwd


def _unpack(git_dir: str, dest: Path) -> None:
    """The newest commit's files under ``dest``; blobs a snapshot lacks (large files) are
    left out, links are made as links."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "HEAD"], check=True,
                             capture_output=True).stdout.split(b"\0")
    entries = []
    for item in listing:
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode("utf-8", "replace")))
    proc = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], check=True, capture_output=True,
                          input=b"".join(sha + b"\n" for _m, sha, _p in entries)).stdout
    buf = io.BytesIO(proc)
    for mode, _sha, path in entries:
        header = buf.readline().split()
        if len(header) < 3:
            continue  # "<sha> missing"
        data = buf.read(int(header[2]))
        buf.read(1)
        target = dest / path
        if ".." in Path(path).parts:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            os.symlink(data.decode(), target)
        else:
            target.write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    """Compare every installed host with its profile on the given repositories."""
    import tempfile

    for arg in argv if argv is not None else sys.argv[1:]:
        git_dir, cwd = arg.rsplit(":", 1)
        repo = RealRepo(git_dir, cwd, id=Path(git_dir).parent.name)
        for host in oracles.HOSTS:
            if oracles.binary(host) is None:
                continue
            got = oracles.ask(host, repo)["instructions"]
            with tempfile.TemporaryDirectory() as t:
                ours = wskit_answer(repo, host, Path(t))["instructions"]
            print(json.dumps({"repo": repo.id, "cwd": cwd, "host": host, "host_files": got, "wskit_files": ours,
                              "agree": got == ours}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
