"""An approval given the digest of another entry says whose digest it is (issue 32).

``wsctl mcp approve A --digest <B's digest>`` (and ``lsp approve``, ``hooks trust --entry``)
said "changed after review", which sends the user to review an entry that did not change.
One mechanism now names the owner: :func:`wskit.approval.servers.shown_digests` (every
digest ``mcp list``, ``lsp list`` and ``hooks status`` show) passed as ``known`` to
:meth:`~wskit.approval.store.ApprovalStore.approve`, which also looks the digest up among
the records of the store (an entry approved before, here or in another project). Nothing
is approved then. A digest nobody showed still reads "changed after review"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _project(tmp_path: Path, name: str = "proj") -> Path:
    p = tmp_path / name
    (p / ".git").mkdir(parents=True)
    (p / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (p / ".claude").mkdir()
    (p / "tools").mkdir()
    for s in ("a", "b"):
        (p / "tools" / f"{s}.sh").write_text(f"echo {s}\n")
    (p / ".mcp.json").write_text(json.dumps({"mcpServers": {
        s: {"command": "bash", "args": [f"tools/{s}.sh"]} for s in ("a", "b")}}))
    (p / ".lsp.json").write_text(json.dumps({
        f"l{s}": {"command": "bash", "args": [f"tools/{s}.sh"], "extensionToLanguage": {f".{s}": s}}
        for s in ("a", "b")}))
    (p / ".claude/settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "bash tools/a.sh"}]},
        {"matcher": "Read", "hooks": [{"type": "command", "command": "bash tools/b.sh"}]}]}}))
    return p


def _digests(wsctl, project: Path) -> dict[str, str]:
    """name -> digest of each server (``mcp:a``, ``lsp:la``) and hook entry (its key)."""
    out = {}
    for cap in ("mcp", "lsp"):
        data = json.loads(wsctl(cap, "list", str(project), json=True).stdout)
        out.update({f"{cap}:{s['name']}": s["digest"] for s in data["servers"]})
    st = json.loads(wsctl("hooks", "status", str(project), json=True).stdout)
    out.update({e["key"]: e["digest"] for e in st["entries"]})
    out["hooks:all"] = st["digest"]
    return out


@pytest.mark.parametrize(("command", "owner"), [
    (("mcp", "approve", "a"), "mcp:b"), (("mcp", "approve", "a"), "lsp:lb"), (("lsp", "approve", "la"), "lsp:lb"),
    (("lsp", "approve", "la"), "mcp:a"), (("mcp", "approve", "a"), "hook"), (("lsp", "approve", "la"), "hooks:all"),
])
def test_a_servers_approval_names_whose_digest_it_was_given(wsctl, wskit_home, tmp_path, command, owner):
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    dg = _digests(wsctl, project)
    hook_keys = [k for k in dg if k.startswith("hooks:") and k != "hooks:all"]
    key = hook_keys[0] if owner == "hook" else owner
    r = wsctl(command[0], command[1], command[2], str(project), "--digest", dg[key])
    assert r.exit_code == 1 and "nothing was approved" in r.output, r.output
    assert "changed after review" not in r.output, r.output
    if owner.startswith(("mcp:", "lsp:")):
        cap, name = owner.split(":")
        assert f"is the digest of {cap.upper()} server {name!r} (entry {cap}:" in r.output, r.output
    elif owner == "hook":
        assert f"is the digest of hook entry {key} alone" in r.output, r.output
    else:
        assert "is the digest of hooks: all awaiting entries" in r.output, r.output
    listed = json.loads(wsctl(command[0], "list", str(project), json=True).stdout)["servers"]
    assert all(s["approval"] == "awaiting" for s in listed)


def test_hooks_trust_entry_names_a_servers_digest(wsctl, wskit_home, tmp_path):
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    dg = _digests(wsctl, project)
    entry = next(k for k in dg if k.startswith("hooks:") and k != "hooks:all")
    r = wsctl("hooks", "trust", str(project), "--entry", entry, "--digest", dg["mcp:b"])
    assert r.exit_code == 1 and "is the digest of MCP server 'b' (entry mcp:" in r.output, r.output
    assert f"not of what is to be approved (entry {entry})" in r.output and "changed after review" not in r.output


def test_a_digest_approved_in_another_project_is_named(wsctl, wskit_home, tmp_path):
    """The store knows the entries it recorded: a digest of one approved in another project
    is named with that project, not taken for a change since review."""
    first, second = _project(tmp_path, "first"), _project(tmp_path, "second")
    (second / "tools/a.sh").write_text("echo changed\n")  # so the two projects' digests differ
    for p in (first, second):
        assert wsctl("trust", "grant", str(p)).exit_code == 0
    d1 = _digests(wsctl, first)
    assert wsctl("mcp", "approve", "a", str(first), "--digest", d1["mcp:a"]).exit_code == 0
    r = wsctl("mcp", "approve", "a", str(second), "--digest", d1["mcp:a"])
    assert r.exit_code == 1 and f"of project {first}" in r.output and "recorded approved" in r.output, r.output
    assert "changed after review" not in r.output


def test_a_digest_nobody_showed_still_reads_changed_after_review(wsctl, wskit_home, tmp_path):
    project = _project(tmp_path)
    assert wsctl("trust", "grant", str(project)).exit_code == 0
    dg = _digests(wsctl, project)
    assert wsctl("mcp", "approve", "a", str(project), "--digest", dg["mcp:a"]).exit_code == 0
    (project / "tools/a.sh").write_text("echo edited\n")  # the approved server changed: its old digest
    r = wsctl("mcp", "approve", "a", str(project), "--digest", dg["mcp:a"])
    assert r.exit_code == 1 and "changed after review" in r.output, r.output
    r = wsctl("lsp", "approve", "la", str(project), "--digest", "sha256:" + "0" * 64)
    assert r.exit_code == 1 and "changed after review" in r.output, r.output
