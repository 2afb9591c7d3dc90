"""wskit.approval.coverage: the value types, the digest, bounds, and the property that
the digest changes whenever a covered file's bytes or executable bit change."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wskit.approval.coverage import (
    MAX_FILE_BYTES,
    Coverage,
    CoveredFile,
    Unverified,
    command_coverage,
    known_variables,
)


def _cov(root: Path, command: str) -> Coverage:
    return command_coverage(command, cwd=str(root), project_root=str(root), plugin_root=None,
                            env={"CLAUDE_PROJECT_DIR": str(root)})


def test_digest_is_order_independent_and_sensitive_to_each_field():
    a = CoveredFile("/p/a.sh", "00" * 32, True)
    b = CoveredFile("/p/b.sh", None, False)
    u = Unverified("$X", "variable $X")
    base = Coverage((a, b), (u,)).digest()
    assert base.startswith("sha256:") and len(base) == 71
    assert Coverage((b, a), (u,)).digest() == base
    assert Coverage((CoveredFile("/p/a.sh", "00" * 32, False), b), (u,)).digest() != base
    assert Coverage((CoveredFile("/p/a.sh", "11" * 32, True), b), (u,)).digest() != base
    assert Coverage((a, CoveredFile("/p/b.sh", "00" * 32, False)), (u,)).digest() != base
    assert Coverage((a, b), ()).digest() != base
    assert Coverage((a, b), (u,)).complete is False and Coverage((a,)).complete


def test_known_variables_are_only_the_project_and_plugin_roots():
    env = {"CLAUDE_PROJECT_DIR": "/p", "GEMINI_PROJECT_DIR": "/p", "CLAUDE_PLUGIN_ROOT": "/pl", "HOME": "/h",
           "PATH": "/bin", "CLAUDE_SESSION_ID": "x"}
    assert set(known_variables(env)) == {"CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT"}


def test_paths_are_absolute_and_reads_are_bounded(tmp_path):
    (tmp_path / "big.sh").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    c = _cov(tmp_path, "sh big.sh")
    assert any("too-large" in u.reason for u in c.unverified), c.unverified
    assert all(os.path.isabs(f.path) for f in c.files)


def test_a_fifo_beside_a_script_is_named_and_never_opened(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s/run.sh").write_text("exit 0\n")
    os.mkfifo(tmp_path / "s/pipe")
    c = _cov(tmp_path, "sh s/run.sh")   # would block forever if the FIFO were opened for reading
    assert any("FIFO" in u.reason for u in c.unverified)


def test_nothing_is_run(tmp_path):
    marker = tmp_path / "ran"
    _cov(tmp_path, f"touch {marker}; sh -c 'touch {marker}'; echo $(touch {marker})")
    assert not marker.exists()


def test_deep_nesting_is_bounded(tmp_path):
    deep = _cov(tmp_path, "eval " * 40 + "./x")
    assert any("nested more than" in u.reason for u in deep.unverified)


_NAMES = ["a.sh", "lib/b.sh", "c.py", "mod.py", "pkg/__init__.py", "pkg/m.py", "tool.js"]
_COMMANDS = [
    "sh a.sh", "cd lib && sh b.sh", "./a.sh", "python3 c.py", "python3 -m pkg", "python3 -c 'import mod'",
    "node tool.js", ". ./a.sh; sh lib/b.sh", "sh -c 'cd lib; sh ./b.sh'", "sh < a.sh",
    '"$CLAUDE_PROJECT_DIR"/lib/b.sh',
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=st.dictionaries(st.sampled_from(_NAMES), st.tuples(st.binary(max_size=40), st.booleans()), min_size=1),
       command=st.sampled_from(_COMMANDS), pick=st.integers(min_value=0), flip_exec=st.booleans(),
       new_bytes=st.binary(max_size=40))
def test_property_digest_changes_when_any_covered_file_changes(files, command, pick, flip_exec, new_bytes):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        for name, (data, exe) in files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            os.chmod(p, 0o755 if exe else 0o644)
        before = _cov(root, command)
        assert _cov(root, command).digest() == before.digest()  # stable
        real = [f for f in before.files if not f.path.endswith(("/", "/*.py"))]
        if not real:
            return
        f = real[pick % len(real)]
        path = Path(f.target or f.path)
        if f.digest is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(new_bytes)
        elif flip_exec:
            os.chmod(path, 0o644 if f.executable else 0o755)
        else:
            old = path.read_bytes()
            path.write_bytes(new_bytes if new_bytes != old else old + b"\n")
        assert _cov(root, command).digest() != before.digest(), (command, f)
