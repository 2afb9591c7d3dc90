"""Output styles: limits, ids, built-ins through a hook, selection and resume (docs/styles.md)."""

import pytest

from tests.markdown_helpers import load
from wskit import hookimpl
from wskit.builtin_plugins.styles.catalog import (
    EXTENSION_KEY,
    StyleCatalog,
    StyleCatalogError,
    StyleProvenanceError,
    StyleUnavailableError,
    restore_style,
    select_style,
)
from wskit.builtin_plugins.styles.loader import StyleLimits, load_styles
from wskit.models import ResourceSource, Scope
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.style import builtin_style
from wskit.session import SessionState, snapshot


class HostStyles:
    __name__ = "host_styles"

    @hookimpl
    def wskit_builtin_styles(self):
        return [builtin_style("auto", ""), builtin_style("pragmatic", "Be pragmatic.", description="Pragmatic")]


def _pm():
    return make_plugin_manager(load_entrypoints=False, env={}, plugins=[HostStyles()])


def test_ids_precedence_and_builtins(make_tree, wskit_home):
    ws = make_tree({
        ".claude/output-styles/compact.md": "---\ndescription: claude\n---\nShort.",
        ".wskit/output-styles/compact.md": "---\nname: Compact\n---\n# Heading line\nTiny.",
        ".claude/output-styles/review/Strict.md": "Be strict.",
    })
    (wskit_home / ".claude/output-styles").mkdir(parents=True)
    (wskit_home / ".claude/output-styles/compact.md").write_text("User compact.")
    w = load(ws, wskit_home, pm=_pm())
    cat = StyleCatalog.for_resources(w)
    assert [s.id for s in cat.list()] == ["auto", "pragmatic", "project:compact", "project:review:strict",
                                          "user:compact"]
    compact = cat.resolve("project:compact")
    assert (compact.title, compact.description, compact.prompt) == ("Compact", "Heading line", "# Heading line\nTiny.")
    assert cat.resolve("user:compact").description == "User compact."
    assert cat.resolve("pragmatic").builtin
    for bad in ["project:../secret", "learning", "x" * 301, "/abs/path.md"]:
        with pytest.raises(StyleUnavailableError):
            cat.resolve(bad)


def test_plugin_styles(make_tree, tmp_path):
    root = make_tree({"output-styles/guided.md": "Guide."}, root=tmp_path / "p")
    res = load_styles(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="review-kit"))
    assert [s.id for s in res.resources] == ["plugin:review-kit:guided"]


@pytest.mark.parametrize("name,content,fragment", [
    ("big.md", "x" * (24 * 1024 + 1), "exceeds 24576 bytes"),
    ("empty.md", "---\nname: e\n---\n   \n", "must not be empty"),
    ("prompt.md", "y" * (16 * 1024 + 1), "prompt exceeds 16384 bytes"),
    ("hidden.md", "ok\u200btext", "hidden control characters"),
    ("longname.md", "---\nname: " + "n" * 81 + "\n---\nx", "Name exceeds 80"),
    ("longdesc.md", "---\ndescription: " + "d" * 257 + "\n---\nx", "Description exceeds 256"),
    ("Bad Name.md", "x", "lowercase safe segments"),
])
def test_bad_file_is_a_warning_and_skipped(make_tree, wskit_home, name, content, fragment):
    ws = make_tree({f".claude/output-styles/{name}": content, ".claude/output-styles/fine.md": "Fine."})
    w = load(ws, wskit_home)
    assert [s.id for s in w.registry("style").active()] == ["project:fine"]
    warn = [d for d in w.diagnostics if d.code == "style-skipped"]
    assert len(warn) == 1 and fragment in warn[0].message and warn[0].path.endswith(name)
    assert warn[0].level == "warning"
    StyleCatalog.for_resources(w)  # a skipped file does not fail the catalog


def test_boundaries_load(make_tree, wskit_home):
    ws = make_tree({".claude/output-styles/p.md": "---\ndescription: d\n---\n" + "y" * (16 * 1024),
                    ".claude/output-styles/n.md": "---\nname: " + "n" * 80 + "\n---\nx"})
    assert len(load(ws, wskit_home).registry("style")) == 2


@pytest.mark.parametrize("files,fragment", [
    ({f".claude/output-styles/s{i}.md": "x" for i in range(33)}, "exceeds 32 files"),
    ({".claude/output-styles/a/b/c/d/e.md": "x"}, "exceeds depth 4"),
])
def test_scan_violations_fail_resolution(make_tree, wskit_home, files, fragment):
    w = load(make_tree(files), wskit_home)
    with pytest.raises(StyleCatalogError, match=fragment):
        StyleCatalog.for_resources(w)


def test_symlink_fails_resolution(make_tree, wskit_home, tmp_path):
    ws = make_tree({".claude/output-styles/a.md": "x", "elsewhere.md": "y"})
    (ws / ".claude/output-styles/link.md").symlink_to(ws / "elsewhere.md")
    with pytest.raises(StyleCatalogError, match="cannot be a symlink"):
        StyleCatalog.for_resources(load(ws, wskit_home))


def test_catalog_limits(make_tree, wskit_home):
    ws = make_tree({**{f".claude/output-styles/s{i}.md": "Style\n" + "z" * 16000 for i in range(9)}})
    with pytest.raises(StyleCatalogError, match="exceeds 131072 bytes"):
        StyleCatalog.for_resources(load(ws, wskit_home))
    ws2 = make_tree({**{f".claude/output-styles/s{i}.md": "x" for i in range(20)},
                     **{f".wskit/output-styles/t{i}.md": "x" for i in range(13)}}, root=ws.parent / "ws2")
    with pytest.raises(StyleCatalogError, match="exceeds 32 styles"):
        StyleCatalog.for_resources(load(ws2, wskit_home))
    relaxed = StyleLimits(max_styles=64)
    assert len(StyleCatalog.for_resources(load(ws2, wskit_home), limits=relaxed).list()) == 33


def test_selection_stored_and_changed_custom_style_refused_on_resume(make_tree, wskit_home):
    ws = make_tree({".claude/output-styles/compact.md": "Short."})
    w = load(ws, wskit_home, pm=_pm())
    cat = StyleCatalog.for_resources(w)
    state = snapshot(w).state(extensions={EXTENSION_KEY: select_style(cat, "project:compact")})
    record = SessionState.from_json(state.to_json()).extensions[EXTENSION_KEY]
    assert set(record) == {"id", "sha256"}  # the shape restore() verifies
    assert record["id"] == "project:compact" and len(record["sha256"]) == 64
    assert restore_style(StyleCatalog.for_resources(load(ws, wskit_home, pm=_pm())), record).prompt == "Short."
    (ws / ".claude/output-styles/compact.md").write_text("Now long and different.")
    cat2 = StyleCatalog.for_resources(load(ws, wskit_home, pm=_pm()))
    with pytest.raises(StyleProvenanceError, match="provenance mismatch: project:compact"):
        restore_style(cat2, record)
    builtin = select_style(cat2, "pragmatic")
    assert restore_style(cat2, builtin).id == "pragmatic"  # choosing a built-in recovers
    (ws / ".claude/output-styles/compact.md").unlink()
    with pytest.raises(StyleUnavailableError, match="unavailable"):
        restore_style(StyleCatalog.for_resources(load(ws, wskit_home, pm=_pm())), record)


@pytest.mark.parametrize(("text", "code", "description"), [
    ("---\ndescription: first\ndescription: last\n---\nBody.", "yaml-duplicate-key", "last"),
    ("---\ndescription: [unclosed\n---\nBody.", "yaml-quoted-retry", "[unclosed"),
])
def test_lenient_frontmatter_warnings_are_reported_naming_the_file(make_tree, tmp_path, text, code, description):
    """A style whose frontmatter loads only leniently (as Claude Code reads it) loads, and
    the warning the skills and commands loaders give is reported too, naming the file."""
    root = make_tree({"output-styles/guided.md": text}, root=tmp_path / "p")
    res = load_styles(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin="review-kit"))
    assert [s.description for s in res.resources] == [description]
    found = [d for d in res.diagnostics if d.code == code]
    assert found and found[0].path.endswith("output-styles/guided.md") and found[0].plugin == "review-kit"
    assert found[0].level == "warning"


def test_a_style_without_name_is_named_by_its_file_case_kept(make_tree, wskit_home):
    """Claude Code 2.1.337 names ``MyStyle.md`` ``MyStyle`` and ``Sub/Deep.md`` ``Deep``
    (tests/conformance/disagreements.py, ``style-file-case``, ``style-nested-name``)."""
    ws = make_tree({".claude/output-styles/MyStyle.md": "Body one.", ".claude/output-styles/Sub/Deep.md": "Body two."})
    cat = StyleCatalog.for_resources(load(ws, wskit_home))
    assert cat.resolve("project:mystyle").title == "MyStyle"  # the id's key stays lower-cased
    assert cat.resolve("project:sub:deep").title == "Deep"
    assert cat.by_name("MyStyle").id == "project:mystyle" and cat.by_name("Deep").id == "project:sub:deep"
    with pytest.raises(StyleUnavailableError, match="'mystyle'.*did you mean 'MyStyle'"):
        cat.by_name("mystyle")  # names are compared exactly, as Claude Code's outputStyle is


def test_a_project_style_shadows_a_user_style_of_the_same_name(make_tree, wskit_home):
    """Claude Code offers one style of a name, the project's (``style-same-name``); a plugin's
    style is ``<plugin>:<name>`` and shadows nothing (``style-plugin-namespace``)."""
    ws = make_tree({".claude/output-styles/aa.md": "---\nname: Dup\n---\nProject body.",
                    ".claude/output-styles/other.md": "---\nname: dup\n---\nOther case."})
    (wskit_home / ".claude/output-styles").mkdir(parents=True)
    (wskit_home / ".claude/output-styles/zz.md").write_text("---\nname: Dup\n---\nUser body.")
    (wskit_home / ".claude/output-styles/own.md").write_text("---\nname: Own\n---\nUser only.")
    cat = StyleCatalog.for_resources(load(ws, wskit_home))
    assert [s.id for s in cat.list()] == ["project:aa", "project:other", "user:own"]
    assert cat.shadowed == {"user:zz": "project:aa"}
    assert cat.by_name("Dup").prompt == "Project body." and cat.by_name("Own").id == "user:own"
    with pytest.raises(StyleUnavailableError, match="shadowed by project:aa"):
        cat.resolve("user:zz")
    plugin = builtin_style("x", "Plugin body.", title="Dup").model_copy(update={"builtin": False, "id": "plugin:pk:x"})
    plugin = plugin.model_copy(update={"provenance": plugin.provenance.model_copy(update={"plugin": "pk"})})
    both = StyleCatalog({**cat.styles, plugin.id: plugin})
    assert both.by_name("pk:Dup").id == "plugin:pk:x" and both.by_name("Dup").id == "project:aa"
