"""Every hostile-file case against every loader (the table of docs/security.md).

For each (loader, case) pair: a valid sibling resource ``good`` is placed,
then the hostile thing; the load must finish within a hang guard, end in one
of the case's diagnostic codes (stable, kebab-case, naming a path), keep
``good`` loaded, never load the hostile resource when it is refused, never
surface the secret's bytes, and stay under the case's read and memory bounds.
"""

from __future__ import annotations

import os
import re
import socket
import tracemalloc
from pathlib import Path

import pytest

from tests.security.cases import CASES, Case, release_deep
from tests.security.harness import bounded, rchar
from tests.security.targets import TARGETS, Ctx, Target
from wskit.models import Scope

SECRET = b"-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-CANARY-7f3a9c\n-----END OPENSSH PRIVATE KEY-----\n"
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
#: hang guard per load, seconds (normal loads take milliseconds)
HANG_GUARD = 30


def applies(case: Case, target: Target) -> bool:
    """Whether ``case`` is run against ``target``."""
    if case.name in target.skip:
        return False
    return "*" in case.formats or target.format in case.formats


PAIRS = [pytest.param(t, c, id=f"{t.name}-{c.name}") for t in TARGETS for c in CASES if applies(c, t)]


def make_ctx(tmp_path: Path, target: Target) -> Ctx:
    home = tmp_path / "home"
    secret = home / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_bytes(SECRET)
    base = home if target.scope is Scope.USER else tmp_path / "ws"
    root = base / ".claude"
    root.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    return Ctx(base=base, root=root, outside=outside, secret=secret, secret_bytes=SECRET)


@pytest.mark.parametrize(("target", "case"), PAIRS)
def test_hostile_file(target: Target, case: Case, tmp_path: Path):
    ctx = make_ctx(tmp_path, target)
    good = ctx.root / target.file_for("good")
    good.parent.mkdir(parents=True, exist_ok=True)
    good.write_bytes(target.valid("good"))
    evil = ctx.root / target.file_for(case.resource_name)
    keep = None
    try:
        if case.place is not None:
            keep = case.place(ctx, evil)
        elif case.field is None:
            evil.parent.mkdir(parents=True, exist_ok=True)
            evil.write_bytes(target.valid(case.resource_name))
        if case.max_alloc:
            tracemalloc.start()
        before = rchar()
        out = bounded(lambda: target.load(ctx, case.field), HANG_GUARD)
        read = rchar() - before
        if case.max_alloc:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            assert peak < case.max_alloc, f"peak allocation {peak} bytes"
    finally:
        if isinstance(keep, socket.socket):
            keep.close()
        release_deep(evil.parent.parent / "deep")

    if case.name not in target.whole_fail:
        assert "good" in out.names, f"valid sibling lost: {out.diagnostics}"
    assert all(KEBAB.match(d.code) for d in out.diagnostics), out.codes
    assert SECRET not in out.dump.encode() and b"SECRET-CANARY" not in out.dump.encode()
    if case.max_read is not None:
        assert read < case.max_read, f"read {read} bytes"
    expected = target.expect.get(case.name, case.codes)
    if expected is None:
        return
    expected = expected | target.also_accept
    hits = [d for d in out.diagnostics if d.code in expected]
    assert hits, f"expected one of {sorted(expected)}, got {sorted(out.codes)}"
    assert all(d.path for d in hits), hits
    if any(d.level == "error" for d in hits):
        assert case.resource_name not in out.names and "<field>" not in out.names


def test_gemini_folder_injection_stays_inside_and_bounded(tmp_path):
    """``@{folder}`` in a Gemini TOML command: a link leaving the project, a FIFO and files past
    the byte cap are not injected, each with a ``command-file-refused`` warning naming it; the
    secret outside never reaches the prompt and nothing hangs."""
    pytest.importorskip("wskit_gemini")
    from wskit.models import ResourceSource, Scope
    from wskit_gemini.commands import expand_toml_command, load_toml_commands

    root = tmp_path / "p"
    (root / ".gemini/commands").mkdir(parents=True)
    (root / ".gemini/commands/c.toml").write_text('prompt = "@{docs}"\n')
    (root / "docs").mkdir()
    (root / "docs/a.md").write_text("A" * 100)
    (root / "docs/b.md").write_text("B" * 100)
    (tmp_path / "secret.txt").write_text("SECRET\n")
    os.symlink(tmp_path / "secret.txt", root / "docs/link.md")
    os.mkfifo(root / "docs/pipe")
    src = ResourceSource(scope=Scope.PROJECT, root=str(root / ".gemini"), base=str(root), label="project:.gemini")
    cmd = {c.name: c for c in load_toml_commands(src).resources}["c"]
    exp = expand_toml_command(cmd, file_cap=150)
    assert "SECRET" not in exp.text and "A" * 100 in exp.text and "B" * 100 not in exp.text
    refused = " ".join(d.message for d in exp.diagnostics if d.code == "command-file-refused")
    assert "link.md" in refused and "pipe" in refused and "b.md" in refused
