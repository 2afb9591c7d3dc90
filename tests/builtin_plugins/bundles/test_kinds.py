"""The component keys of a plugin manifest are those of the registered kinds: a
throwaway kind a plugin registers with a manifest key is located in content
plugins like the built-in ones, and a built-in kind that is not registered has
no key. Real files, the real pipeline, the kind added in-process."""

from __future__ import annotations

import json

from tests.builtin_plugins._bundle_helpers import load, plugin
from wskit import fs
from wskit.builtin_plugins.bundles.ledger import install
from wskit.builtin_plugins.bundles.marketplace import load_marketplace
from wskit.formats.mdwalk import walk_markdown
from wskit.kinds import ResourceKind, manifest_table
from wskit.models import LoadResult, Provenance, Resource, sha256_hex
from wskit.plugin import hookimpl
from wskit.plugin.manager import make_plugin_manager
from wskit.testing import register_plugin, write_tree

NOTE = ResourceKind(name="note", default_dir="notes", manifest_keys=("notes",), markdown=True)


def load_notes(source) -> LoadResult:
    """Every ``.md`` of the note folders of ``source``, named by its file."""
    entries, diags = walk_markdown(source, NOTE)
    found = []
    for e in entries:
        res = fs.read_bytes(source.base, e.rel)
        prefix = f"plugin:{source.plugin}" if source.plugin else source.scope.value
        found.append(Resource(id=f"{prefix}:{e.segments[-1]}", name=e.segments[-1], kind="note",
                              provenance=Provenance(scope=source.scope, source_root=source.base, path=e.rel,
                                                    plugin=source.plugin, sha256=sha256_hex(res.raw))))
    return LoadResult(resources=tuple(found), diagnostics=tuple(diags))


class NotesPlugin:
    def __init__(self, **fields) -> None:
        self.kind = NOTE.model_copy(update={"loader": load_notes, **fields})

    @hookimpl
    def wskit_resource_kinds(self):
        return [self.kind]


def _project(make_tree, tmp_path, **manifest):
    ws = make_tree({"README.md": "x"}, root=tmp_path / "ws")
    plugin(ws / ".claude/plugins/kit", "kit", {"notes/default.md": "d", "mine/named.md": "n"}, **manifest)
    return ws


def _notes(ws) -> list[str]:
    return sorted(r.id for r in ws.registry("note").active())


def test_a_registered_kinds_manifest_key_names_its_folders(wskit_pm, wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path, notes="./mine")
    with register_plugin(wskit_pm, NotesPlugin(), name="notes"):
        loaded = load(wskit_pm, ws, wskit_profile)
    # the key replaces the default folder, as "commands" does
    assert _notes(loaded) == ["plugin:kit:named"]
    src = next(s for s in loaded.sources if s.plugin == "kit")
    assert src.components["note"] == ("mine",)


def test_without_the_key_the_kinds_default_folder_is_read(wskit_pm, wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path)
    with register_plugin(wskit_pm, NotesPlugin(), name="notes"):
        assert _notes(load(wskit_pm, ws, wskit_profile)) == ["plugin:kit:default"]


def test_manifest_adds_keeps_the_default_folder(wskit_pm, wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path, notes=["./mine"])
    with register_plugin(wskit_pm, NotesPlugin(manifest_adds=True), name="notes"):
        assert _notes(load(wskit_pm, ws, wskit_profile)) == ["plugin:kit:default", "plugin:kit:named"]


def test_the_key_is_validated_only_while_its_kind_is_registered(wskit_pm, wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path, notes=3)
    with register_plugin(wskit_pm, NotesPlugin(), name="notes"):
        loaded = load(wskit_pm, ws, wskit_profile)
    failed = [d for d in loaded.diagnostics if d.code == "plugin-failed" and d.plugin == "kit"]
    assert len(failed) == 1 and "key 'notes' must be a path or an array of paths, not int" in failed[0].message
    # unregistered, "notes" is an unknown key like any other: ignored, the plugin loads
    loaded = load(wskit_pm, ws, wskit_profile)
    assert not [d for d in loaded.diagnostics if d.code == "plugin-failed"]
    assert "kit" in {s.plugin for s in loaded.sources}


def test_a_built_in_kind_that_is_not_registered_has_no_manifest_key(wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path, agents=3, commands=3)
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "agents"})
    (failed,) = [d for d in load(pm, ws, wskit_profile).diagnostics if d.code == "plugin-failed"]
    assert "key 'commands'" in failed.message and "'agents'" not in failed.message


def test_an_inline_kind_keeps_the_object(wskit_pm, wskit_profile, make_tree, tmp_path):
    ws = _project(make_tree, tmp_path, notes={"one": {"text": "inline"}})
    with register_plugin(wskit_pm, NotesPlugin(manifest_inline=True, manifest_adds=True), name="notes"):
        loaded = load(wskit_pm, ws, wskit_profile)
    src = next(s for s in loaded.sources if s.plugin == "kit")
    assert src.inline["note"] == {"one": {"text": "inline"}} and src.components["note"] == ("notes",)


def _market(tmp_path, entry: dict, plugin_json: dict | None) -> str:
    root = tmp_path / "market"
    files = {"mine/named.md": "n", "extra/more.md": "m", "notes/default.md": "d"}
    if plugin_json is not None:
        plugin(root / "plugins/kit", "kit", files, **plugin_json)
    else:
        write_tree(root / "plugins/kit", files)
    write_tree(root, {".claude-plugin/marketplace.json": json.dumps(
        {"name": "mk", "owner": {"name": "Me"}, "plugins": [{"name": "kit", "source": "./plugins/kit", **entry}]})})
    return str(root / "plugins/kit")


def test_a_strict_marketplace_entry_adds_its_paths_under_the_kinds_key(wskit_pm, wskit_profile, make_tree, tmp_path):
    kit = _market(tmp_path, {"notes": "./extra"}, {"notes": "./mine"})
    ws = make_tree({"README.md": "x"}, root=tmp_path / "ws")
    with register_plugin(wskit_pm, NotesPlugin(), name="notes"):
        loaded = load(wskit_pm, ws, wskit_profile, plugin_dirs=[kit])
    assert _notes(loaded) == ["plugin:kit:more", "plugin:kit:named"]


def test_a_loose_marketplace_entry_names_the_kinds_key_in_its_conflict(wsctl, wskit_pm, wskit_profile, make_tree,
                                                                        tmp_path):
    # a managed install of a strict: false entry whose folder also has a plugin.json
    _market(tmp_path, {"strict": False, "notes": "./extra"}, {"notes": "./mine"})
    install(wskit_profile, load_marketplace(tmp_path / "market"), "kit")
    ws = make_tree({"README.md": "x"}, root=tmp_path / "ws")
    with register_plugin(wskit_pm, NotesPlugin(), name="notes"):
        data = json.loads(wsctl("plugins", "show", "kit", "--path", str(ws), json=True).stdout)
    (conflict,) = [d for d in data["issues"] if d["code"] == "manifest-conflict"]
    assert "declares ['notes']" in conflict["message"]
    assert data["resources"] == ["plugin:kit:more"]  # the entry is the definition: ./extra only
    data = json.loads(wsctl("plugins", "show", "kit", "--path", str(ws), json=True).stdout)
    assert not [d for d in data["issues"] if d["code"] == "manifest-conflict"]  # no such key without the kind


def test_manifest_table_is_sorted_and_shares_a_key():
    other = ResourceKind(name="memo", manifest_keys=("notes", "memos"))
    table = manifest_table([NOTE, other])
    assert list(table) == ["memos", "notes"]
    assert [k.name for k in table["notes"]] == ["note", "memo"]


def test_the_built_in_kinds_declare_the_claude_code_component_keys():
    from wskit.plugin.facade import builtin_kinds

    table = manifest_table(builtin_kinds())
    assert {k: [x.name for x in v] for k, v in table.items()} == {
        "agents": ["agent"], "commands": ["command"], "hooks": ["hook"], "lspServers": ["lsp_server"],
        "mcpServers": ["mcp_server"], "outputStyles": ["style"], "skills": ["skill"]}
    adds = {k.name for v in table.values() for k in v if k.manifest_adds}
    inline = {k.name for v in table.values() for k in v if k.manifest_inline}
    markdown = {k.name for k in builtin_kinds() if k.markdown}
    assert adds == {"skill", "hook", "mcp_server", "lsp_server"} and inline == {"hook", "mcp_server", "lsp_server"}
    assert markdown == {"agent", "command", "style"}


def test_a_sources_components_may_name_a_kind_by_plural_or_manifest_key(tmp_path):
    from wskit.formats.mdwalk import component_dirs
    from wskit.models import ResourceSource, Scope

    memo = ResourceKind(name="memo", default_dir="memos", manifest_keys=("memoFolders",),
                        component_aliases=("memo-dir",))
    assert memo.component_keys == ("memos", "memoFolders", "memo-dir")

    def dirs(components):
        src = ResourceSource(scope=Scope.PROJECT, root=str(tmp_path), base=str(tmp_path), components=components)
        return component_dirs(src, memo)

    assert dirs({}) == ("memos",)
    assert dirs({"memo-dir": ("a",)}) == ("a",)
    assert dirs({"memoFolders": ("b",), "memo-dir": ("a",)}) == ("b",)  # the manifest key before the alias
    assert dirs({"memo": ("c",), "memos": ("d",)}) == ("c",)  # the kind's own name first
    assert component_dirs(ResourceSource(scope=Scope.PROJECT, root=str(tmp_path), base=str(tmp_path),
                                         components={"memos": ("d",)}), "memo", "memos") == ("memos",)
