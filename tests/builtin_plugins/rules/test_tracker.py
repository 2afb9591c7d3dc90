"""The Sakura scope tracker (docs/rules.md §5): replace on new scope, once per path, re-read by digest."""

from __future__ import annotations

import os

from wskit.session import snapshot

FILES = {
    "AGENTS.md": "root",
    "backend/AGENTS.md": "backend",
    "backend/CLAUDE.md": "backend claude",
    "frontend/AGENTS.md": "frontend",
}


def _p(sel):
    return [r.path for r in sel.files]


def test_new_scope_replaces_snapshot_and_siblings_never_leak(rules_ws):
    t = snapshot(rules_ws(FILES)).rules.tracker
    snap = t.visit(["backend/app.py", "backend/lib.py"])
    assert _p(snap) == ["AGENTS.md", "backend/CLAUDE.md", "backend/AGENTS.md"]
    snap = t.visit(["frontend/app.ts"])
    assert _p(snap) == ["AGENTS.md", "frontend/AGENTS.md"]  # replaced, not appended
    assert snap.trigger_paths == ("frontend/app.ts",)


def test_pending_delivery_by_digest_not_mtime(rules_ws, tmp_path):
    t = snapshot(rules_ws(FILES)).rules.tracker
    t.mark_delivered(t.visit(["backend/app.py"]))
    assert t.pending() == []
    f = tmp_path / "ws" / "backend" / "AGENTS.md"
    st = os.stat(f)
    f.write_text("backend v2")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime: only the digest tells
    snap = t.refresh()
    assert [r.body for r in snap.files if r.path == "backend/AGENTS.md"] == ["backend v2"]
    assert [r.path for r in t.pending()] == ["backend/AGENTS.md"]


def test_deleted_files_drop_out(rules_ws, tmp_path):
    t = snapshot(rules_ws(FILES)).rules.tracker
    t.visit(["backend/app.py"])
    os.remove(tmp_path / "ws" / "backend" / "CLAUDE.md")
    assert _p(t.refresh()) == ["AGENTS.md", "backend/AGENTS.md"]


def test_directory_target_is_its_own_scope_and_render_json(rules_ws):
    t = snapshot(rules_ws(FILES)).rules.tracker
    snap = t.visit(["backend"])
    assert _p(snap) == ["AGENTS.md", "backend/CLAUDE.md", "backend/AGENTS.md"]
    data = snap.render_json()
    assert [(i["path"], i["scope"]) for i in data["instructions"]] == [
        ("AGENTS.md", "."), ("backend/CLAUDE.md", "backend"), ("backend/AGENTS.md", "backend")]


def test_refresh_reports_a_file_that_became_invalid(rules_ws, tmp_path):
    t = snapshot(rules_ws(FILES)).rules.tracker
    t.visit(["backend/app.py"])
    (tmp_path / "ws" / "backend" / "AGENTS.md").write_text("now with a hidden \u200b character")
    snap = t.refresh()
    assert [r.path for r in snap.files] == ["AGENTS.md", "backend/CLAUDE.md"]
    assert [d["code"] for d in snap.render_json()["diagnostics"]] == ["hidden-characters"]


def test_shell_visit_takes_the_whole_repository_then_a_path_narrows_it(rules_ws):
    t = snapshot(rules_ws(FILES)).rules.tracker
    assert _p(t.visit_shell()) == ["AGENTS.md", "backend/CLAUDE.md", "backend/AGENTS.md", "frontend/AGENTS.md"]
    assert _p(t.visit(["frontend/x.ts"])) == ["AGENTS.md", "frontend/AGENTS.md"]
