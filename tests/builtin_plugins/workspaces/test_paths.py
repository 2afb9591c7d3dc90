"""Ids and lexical path rules (holon-sakura.md A1, A4)."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.builtin_plugins.workspaces.wsgit import git_identity  # noqa: F401  (git_identity: autouse)
from wskit.binding import normalize_lexical
from wskit.builtin_plugins.workspaces import (
    WorkspaceError,
    agent_home_id,
    canonical_root_id,
    check_view,
    resolve_read_path,
    resolve_write_path,
    sanitize_label,
    workspace_id_for,
    worktree_root_id,
)


def test_workspace_id_is_ws_plus_15_hex_of_sha256_of_normalised_anchor():
    expected = "ws_" + hashlib.sha256(b"/srv/proj").hexdigest()[:15]
    assert workspace_id_for("/srv/proj") == expected
    assert workspace_id_for("/srv/./x/../proj/") == expected
    assert len(expected) == 18


def test_root_and_agent_home_ids():
    assert agent_home_id("a1") == "agent_home:a1"
    assert canonical_root_id("ws_x") == "canonical_root:ws_x"
    assert worktree_root_id("ws_x", "/a/b/../c") == "git_worktree_root:ws_x:/a/c"
    with pytest.raises(WorkspaceError) as e:
        agent_home_id("../evil")
    assert e.value.kind == "invalid_tool_input"


@pytest.mark.parametrize("raw,want", [
    ("/../etc", "/etc"), ("/a/./b//c/..", "/a/b"), ("/a/b/../../..", "/"), ("//a", "/a"),
])
def test_normalisation_is_lexical_and_never_above_root(raw, want):
    assert str(normalize_lexical(raw)) == want


def test_normalisation_keeps_symlinks(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert normalize_lexical(tmp_path / "link" / "x") == tmp_path / "link" / "x"
    assert normalize_lexical("rel/p", base=tmp_path) == tmp_path / "rel" / "p"


@pytest.mark.parametrize("label,want", [
    ("feat/new thing", "feat-new-thing"), ("--a--b--", "a-b"), ("日本", "worktree"), ("", "worktree"),
    ("x" * 80, "x" * 64), ("ok_name-1", "ok_name-1"),
])
def test_sanitize_label(label, want):
    assert sanitize_label(label) == want


def test_check_view_error_kinds():
    a = Path("/w")
    check_view(a, a, a / "src", None)
    with pytest.raises(WorkspaceError) as e:
        check_view(a, a, Path("/elsewhere"), None)
    assert (e.value.kind, str(e.value)) == ("cwd_escapes_execution_root", "cwd escapes execution root")
    with pytest.raises(WorkspaceError) as e:
        check_view(a, Path("/wt"), Path("/wt"), None)
    assert e.value.kind == "execution_root_escapes_anchor"
    check_view(a, Path("/wt"), Path("/wt/x"), Path("/wt"))  # a worktree may live outside the anchor
    with pytest.raises(WorkspaceError) as e:
        check_view(a, Path("/wt"), Path("/wt"), Path("/other"))
    assert (e.value.kind, str(e.value)) == ("worktree_root_mismatch", "worktree root must match execution root")
    with pytest.raises(WorkspaceError):
        check_view(a, a, Path("/wx"), None)  # prefix of a name is not containment


def test_write_paths_stay_inside_the_execution_root_reads_may_leave():
    root, cwd = Path("/w"), Path("/w/src")
    assert resolve_write_path(root, cwd, "a/../b.txt") == Path("/w/src/b.txt")
    assert resolve_write_path(root, cwd, "/w/x") == Path("/w/x")
    with pytest.raises(WorkspaceError) as e:
        resolve_write_path(root, cwd, "../../etc/passwd")
    assert (e.value.kind, str(e.value)) == ("execution_root_violation", "path escapes execution root")
    assert resolve_read_path(cwd, "/etc/hosts") == Path("/etc/hosts")


_component = st.sampled_from(["a", "b", ".", "..", "", "c.d", "..."])


@given(st.lists(_component, max_size=12))
def test_normalisation_properties(parts):
    raw = "/" + "/".join(parts)
    norm = normalize_lexical(raw)
    assert normalize_lexical(norm) == norm  # idempotent
    assert norm.is_absolute() and not {".", ".."} & set(norm.parts[1:])
    assert str(norm) == posixpath.normpath("/" + raw.lstrip("/"))


def test_relative_base_is_taken_from_cwd(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert normalize_lexical("x/../y", base="sub") == tmp_path / "sub" / "y"
    assert normalize_lexical("y") == tmp_path / "y"
