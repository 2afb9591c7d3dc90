"""State files and JSON readers that landed with issues 4-7, under the same
hostile inputs as the trust store: deep nesting, huge sparse files, FIFOs.

Each must end in its module's own error (or a diagnostic), never a
RecursionError escaping, a hang or a whole-file read of a huge file.
"""

from __future__ import annotations

import os

import pytest

from tests.security.harness import bounded, rchar
from wskit.host import HostProfile

DEEP_JSON = b"[" * 100_000 + b"]" * 100_000
DEEP_TOML = b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"


def _profile(tmp_path):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return HostProfile(name="wskit", home=home)


def _approvals(tmp_path):
    from wskit.approval.store import ApprovalStore, ApprovalStoreError

    store = ApprovalStore.for_home(_profile(tmp_path).home)
    return store.path, store.read, ApprovalStoreError


def _ledger(tmp_path):
    from wskit.builtin_plugins.bundles.ledger import LedgerError, ledger_path, read_ledger

    profile = _profile(tmp_path)
    return ledger_path(profile), lambda: read_ledger(profile), LedgerError


def _skills_manifest(tmp_path):
    from wskit.builtin_plugins.skills.admin import AdminSkillError, manifest_path, read_manifest

    profile = _profile(tmp_path)
    return manifest_path(profile), lambda: read_manifest(profile), AdminSkillError


READERS = {"approval-store": (_approvals, DEEP_JSON), "plugin-ledger": (_ledger, DEEP_JSON),
           "skills-manifest": (_skills_manifest, DEEP_TOML)}


def _place(path, data: bytes | None = None, *, sparse: bool = False, fifo: bool = False):
    path.parent.mkdir(parents=True, exist_ok=True)
    if fifo:
        os.mkfifo(path, 0o600)
        return
    with open(path, "wb") as fh:
        fh.write(data or b"")
        if sparse:
            fh.truncate(2 * 1024**3)
    os.chmod(path, 0o600)


@pytest.mark.parametrize("name", sorted(READERS))
def test_deeply_nested_state_file_is_a_clean_error(name, tmp_path):
    make, deep = READERS[name]
    path, read, error = make(tmp_path)
    _place(path, deep)
    with pytest.raises(error):
        bounded(read, 20)


@pytest.mark.parametrize("name", sorted(READERS))
def test_huge_sparse_state_file_is_refused_unread(name, tmp_path):
    make, _ = READERS[name]
    path, read, error = make(tmp_path)
    _place(path, b"{", sparse=True)
    before = rchar()
    with pytest.raises(error):
        bounded(read, 20)
    assert rchar() - before < 32 * 1024 * 1024


@pytest.mark.parametrize("name", sorted(READERS))
def test_state_file_swapped_for_fifo_does_not_hang(name, tmp_path):
    make, _ = READERS[name]
    path, read, error = make(tmp_path)
    _place(path, fifo=True)
    with pytest.raises(error):
        bounded(read, 10)


def test_bundle_json_reader_turns_deep_nesting_into_a_diagnostic(tmp_path):
    from wskit.fs.jsonfile import read_json

    (tmp_path / "plugin.json").write_bytes(b'{"name": "x", "a": ' + DEEP_JSON + b"}")
    data, diags = bounded(lambda: read_json(str(tmp_path), "plugin.json"), 20)
    assert data is None and [d.code for d in diags] == ["json-too-deep"]


def test_allowed_tools_json_list_nested_deep_fails_closed():
    from wskit.builtin_plugins.skills.tools import SelectorError, split_value

    with pytest.raises(SelectorError):
        bounded(lambda: split_value("[" * 30_000 + "]" * 30_000), 20)


def test_mcp_config_argument_nested_deep_is_a_diagnostic(tmp_path):
    from wskit.builtin_plugins.mcp.loader import parse_mcp_config

    servers, diags = bounded(lambda: parse_mcp_config('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
                                                       str(tmp_path)), 20)
    assert servers == [] and diags and diags[0].code in ("invalid-json", "json-too-deep")


def test_skill_with_deep_allowed_tools_does_not_take_its_siblings_down(tmp_path, wskit_pm):
    """A RecursionError inside one SKILL.md is that skill's diagnostic: escaping the
    skills hook, it would lose every skill of that source to a hook-failed diagnostic."""
    from tests.conftest import skill_md
    from wskit.models import ResourceSource, Scope
    from wskit.plugin.facade import WskitHooks
    from wskit.testing import write_tree

    deep = '"' + "[" * 30_000 + "]" * 30_000 + '"'
    write_tree(tmp_path / ".claude", {
        "skills/good/SKILL.md": skill_md("good"),
        "skills/evil/SKILL.md": f"---\nname: evil\ndescription: d\nallowed-tools: {deep}\n---\n",
    })
    hooks = WskitHooks(wskit_pm)
    kind = {k.name: k for k in hooks.resource_kinds()[0]}["skill"]
    src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path / ".claude"), base=str(tmp_path))
    found, diags = hooks.load(kind, src)
    assert "good" in {r.name for r in found}
    assert "hook-failed" not in {d.code for d in diags}


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("rel", [".mcp.json", ".lsp.json", ".claude/settings.json", ".claude/settings.local.json"])
def test_deep_json_config_in_a_trusted_project_is_a_diagnostic(rel, wskit_home, wskit_pm, wskit_profile, make_tree):
    """A JSON config nested 100,000 deep ends in ``json-too-deep`` naming the
    file; the workspace still loads its skills and no hook fails."""
    from tests.conftest import skill_md
    from wskit.binding import Binding
    from wskit.plugin.facade import WskitHooks
    from wskit.trust import TrustStore
    from wskit.workspace import load_workspace

    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n", ".claude/skills/good/SKILL.md": skill_md("good"),
                    rel: '{"mcpServers": {"a": ' + DEEP + "}}"})
    TrustStore.for_home(wskit_home).grant(ws)
    res = bounded(lambda: load_workspace(WskitHooks(wskit_pm), Binding.discover(ws), wskit_profile), 60)
    codes = {d.code for d in res.diagnostics}
    assert "hook-failed" not in codes, [d.message for d in res.diagnostics if d.code == "hook-failed"]
    assert any(d.code == "json-too-deep" and d.path and d.path.endswith(rel) for d in res.diagnostics), codes
    assert "good" in {r.name for r in res.registry("skill")}


def test_deep_plugin_manifest_is_a_diagnostic(tmp_path):
    from wskit.builtin_plugins.bundles.discovery import read_manifest

    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "p", "keywords": ' + DEEP + "}")
    out = bounded(lambda: read_manifest(str(tmp_path)), 20)
    diags = out[-1] if isinstance(out, tuple) else out
    assert "json-too-deep" in {d.code for d in diags}


def test_gemini_jsonc_nested_deep_is_a_diagnostic(tmp_path):
    pytest.importorskip("json5")
    config = pytest.importorskip("wskit_gemini.config")
    (tmp_path / "settings.json").write_text('{"a": ' + DEEP + "}")
    data, diags = bounded(lambda: config.read_jsonc(tmp_path, "settings.json"), 20)
    assert data is None and [d.code for d in diags] == ["gemini-json-invalid"]
