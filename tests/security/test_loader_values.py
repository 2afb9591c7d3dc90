"""No loader fails whole on one bad value.

A value Python cannot hold (a 5,000-digit integer: the int-string conversion
limit raises a plain ValueError, in :mod:`json`, :mod:`tomllib` and PyYAML
alike), a nesting depth the parser recurses into (a 60,000-deep TOML array),
a NUL where a path is built (a marketplace's ``pluginRoot``), a folder tree
deeper than the Python stack (a 1,100-folder-deep plugin): each must cost that
one file or plugin a diagnostic, never a traceback and never every other
plugin or command.

The named cases come first; then every JSON, TOML and YAML entry point is
fuzzed (hypothesis) with such values put in place of one value of a valid
document, with a valid sibling that must still load.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.markdown_helpers import load
from tests.security.cases import remove_deep
from wskit.plugin.manager import make_plugin_manager

BIG_INT = "1" * 5000
OK_SKILL = "---\nname: ok\ndescription: A sibling that must still load.\n---\nBody.\n"
FUZZ = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def pm():
    return make_plugin_manager(load_entrypoints=True, env={})  # the first-party plugins too (Gemini, MCP, LSP)


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    ws = tmp_path / "ws"
    for rel, text in {".claude/skills/ok/SKILL.md": OK_SKILL, **files}.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8", errors="surrogatepass")
    return ws


def _deep_chain(top: Path, depth: int, leaf: str, text: bytes) -> None:
    """``top/d/d/…/leaf`` ``depth`` folders deep (made with folder descriptors)."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        w = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(w, text)
        os.close(w)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def deep_chain(tmp_path_factory):
    """``place(at)``: a 1,100-folder chain ``at/d/d/…/x.md`` (and a ``SKILL.md`` beside
    ``x.md``), built once per module and moved into place by one rename; moved back
    out after each test, removed once at the end (shutil.rmtree recurses per level;
    rm walks iteratively)."""
    park = tmp_path_factory.mktemp("deep") / "chain"
    _deep_chain(park, 1100, "x.md", b"x")
    placed: list[Path] = []

    def place(at: Path) -> None:
        at.parent.mkdir(parents=True, exist_ok=True)
        os.rename(park, at)
        placed.append(at)

    yield place, placed, park
    for top in [park, *placed]:
        if top.exists() and (subprocess.run(["rm", "-rf", str(top)], check=False).returncode or top.exists()):
            remove_deep(top)


@pytest.fixture
def deep_tree(deep_chain):
    place, placed, park = deep_chain
    yield place
    while placed:
        at = placed.pop()
        if at.exists():
            os.rename(at, park)
            return


# -- the named cases --------------------------------------------------------------------------


@pytest.mark.parametrize("rel, text", [
    (".claude/settings.json", '{"hooks": {}, "n": %s}' % BIG_INT),
    (".wskit/settings.json", '{"enabledPlugins": {"a": %s}}' % BIG_INT),
    (".mcp.json", '{"mcpServers": {"a": {"command": "x", "timeout": %s}}}' % BIG_INT),
    (".lsp.json", '{"py": {"command": "x", "extensionToLanguage": {".py": "python"}, "n": %s}}' % BIG_INT),
    (".gemini/settings.json", '{"context": {"fileName": %s}}' % BIG_INT),
    (".claude/commands/c.md", "---\ndescription: x\nn: %s\n---\nbody\n" % BIG_INT),
    (".claude/agents/a.md", "---\nname: a\ndescription: x\nn: %s\n---\nbody\n" % BIG_INT),
    (".claude/skills/big/SKILL.md", "---\nname: big\ndescription: x\nn: %s\n---\nbody\n" % BIG_INT),
])
def test_a_5000_digit_number_costs_that_file_a_diagnostic(tmp_path, wskit_home, pm, rel, text):
    ws = load(_project(tmp_path, {rel: text}), wskit_home, pm=pm)
    assert ws.registry("skill").find("ok") is not None
    hits = [d for d in ws.diagnostics if d.path and d.path.endswith(rel)]
    assert hits and any("4300" in d.message or "digits" in d.message for d in hits), [
        (d.code, d.path, d.message) for d in ws.diagnostics]


def test_a_60000_deep_toml_command_costs_that_command(tmp_path, wskit_home, pm):
    deep = "prompt = " + "[" * 60_000 + "]" * 60_000 + "\n"
    big = "prompt = %s\n" % BIG_INT
    ws = load(_project(tmp_path, {".gemini/commands/deep.toml": deep, ".gemini/commands/big.toml": big,
                                  ".gemini/commands/fine.toml": 'prompt = "fine"\n'}), wskit_home, pm=pm)
    assert ws.registry("command").find("fine") is not None
    by = {Path(d.path).name: d for d in ws.diagnostics if d.code == "gemini-command-invalid-toml"}
    assert "nested deeper than 64 levels" in by["deep.toml"].message and by["deep.toml"].line == 1
    assert "digits" in by["big.toml"].message


def test_toml_state_files_fail_closed_with_their_own_error(wskit_home):
    from wskit.builtin_plugins.skills.admin import AdminSkillError, manifest_path, read_manifest
    from wskit.errors import TrustStoreError
    from wskit.host import HostProfile
    from wskit.trust import TrustStore

    profile = HostProfile(name="wskit", home=wskit_home)
    for value in (BIG_INT, "[" * 60_000 + "]" * 60_000):
        mp = manifest_path(profile)
        mp.parent.mkdir(parents=True, exist_ok=True)
        mp.write_text(f"[skills.a]\nenabled = {value}\n")
        with pytest.raises(AdminSkillError, match="not valid TOML"):
            read_manifest(profile)
        store = TrustStore.for_home(wskit_home)
        store.path.parent.mkdir(parents=True, exist_ok=True)
        store.path.write_text(f"version = {value}\n")
        os.chmod(store.path, 0o600)
        with pytest.raises(TrustStoreError, match="corrupt"):
            store.decide(wskit_home)


def test_nul_in_a_marketplace_plugin_root_costs_the_entries_under_it(tmp_path):
    from wskit.builtin_plugins.bundles.marketplace import load_marketplace

    root = tmp_path / "mk"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / "direct").mkdir()
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps({
        "name": "mk", "owner": {"name": "o"}, "metadata": {"pluginRoot": "plugins\u0000/x"},
        "plugins": [{"name": "under-root", "source": "under"}, {"name": "direct", "source": "./direct"}]}))
    mk = load_marketplace(root)
    by = {e.name: e for e in mk.plugins}
    assert by["direct"].installable
    assert not by["under-root"].installable and "pluginRoot" in by["under-root"].reason
    assert any(d.code == "marketplace-source-invalid" and "under-root" in d.message for d in mk.diagnostics)


def _marketplace(tmp_path: Path, names: list[str]) -> Path:
    root = tmp_path / "market"
    (root / ".claude-plugin").mkdir(parents=True)
    for n in names:
        (root / n / ".claude-plugin").mkdir(parents=True)
        (root / n / ".claude-plugin/plugin.json").write_text(json.dumps({"name": n}))
        (root / n / "skills" / f"{n}-skill").mkdir(parents=True)
        (root / n / "skills" / f"{n}-skill" / "SKILL.md").write_text(
            f"---\nname: {n}-skill\ndescription: from {n}\n---\nbody\n")
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps({
        "name": "mk", "owner": {"name": "o"}, "plugins": [{"name": n, "source": f"./{n}"} for n in names]}))
    return root


def test_a_1100_folder_deep_plugin_is_refused_at_install(tmp_path, wsctl, wskit_home, deep_tree):
    root = _marketplace(tmp_path, ["deep", "fine"])
    deep_tree(root / "deep" / "skills" / "chain")
    res = wsctl("plugins", "install", "deep@mk", "--from", str(root))
    assert res.exit_code == 1 and "deeper than 128 levels" in res.stderr, res.output
    assert not (wskit_home / ".wskit/plugins/deep").exists()
    plugins = wskit_home / ".wskit/plugins"  # refused before the folder is even made
    assert not plugins.exists() or not [p for p in plugins.iterdir() if p.name.startswith(".deep.")]  # no leftovers
    assert wsctl("plugins", "install", "fine@mk", "--from", str(root)).exit_code == 0


def test_an_installed_plugin_grown_1100_deep_costs_only_that_plugin(tmp_path, wsctl, wskit_home, make_tree,
                                                                     deep_tree):
    root = _marketplace(tmp_path, ["deep", "fine"])
    for n in ("deep", "fine"):
        assert wsctl("plugins", "install", f"{n}@mk", "--from", str(root)).exit_code == 0
    installed = wskit_home / ".wskit/plugins/deep"
    deep_tree(installed / "skills" / "chain")  # os.walk recursed per level
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n"})
    res = wsctl("plugins", "list", str(ws), json=True)  # os.walk raised RecursionError: no listing at all
    assert res.exit_code == 0, res.output
    assert "managed-modified" in res.stdout and '"fine"' in res.stdout


def test_a_1100_folder_deep_admin_skill_is_refused(tmp_path, wsctl, deep_tree):
    src = tmp_path / "deepskill"
    src.mkdir()
    (src / "SKILL.md").write_text("---\nname: deepskill\ndescription: deep\n---\nbody\n")
    deep_tree(src / "refs")
    res = wsctl("skills", "install", str(src))
    assert res.exit_code == 1 and "deeper than 64 levels" in res.stderr, res.output


# -- fuzzing every entry point ----------------------------------------------------------------

#: raw JSON texts put in place of one value
_json_hostile = st.one_of(
    st.integers(4301, 6000).map(lambda n: "1" * n),
    st.integers(4301, 6000).map(lambda n: "-" + "9" * n),
    st.sampled_from(["1e999999", "-1e999999", "1" * 300 + ".5", "-0", "0.0e-99999", "NaN", "Infinity"]),
    st.integers(65, 5000).map(lambda d: "[" * d + "]" * d),
    st.integers(65, 5000).map(lambda d: '{"a":' * d + "1" + "}" * d),
    st.sampled_from(['"\\u0000"', '"\\ud800"', '"\\udcff"', '"a\\u0000/../b"', '"' + "x" * 100_000 + '"',
                     "null", "true", "[]", "{}", '""', '"../../etc"', '"/abs"', '"\\\\share"']),
)

_SENTINEL = "\u0000HOSTILE\u0000"


def _slots(doc, path=()):
    """Every place of ``doc`` a value can be put (dict values, list items)."""
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _slots(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _slots(v, path + (i,))


def _put(doc, path):
    if not path:
        return _SENTINEL
    doc = json.loads(json.dumps(doc))
    cur = doc
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = _SENTINEL
    return doc


def _json_text(doc, slot, raw: str) -> str:
    return json.dumps(_put(doc, slot)).replace(json.dumps(_SENTINEL), raw)


#: (name, file, valid document): each loads with a workspace
JSON_ENTRY_POINTS = [
    ("project settings", ".claude/settings.json", {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5}]}]},
        "mcpServers": {"s": {"command": "x", "args": ["a"]}}, "enabledPlugins": {"p@m": True}, "model": "m"}),
    ("host settings", ".wskit/settings.json", {"enabledPlugins": {"p@m": False}, "outputStyle": "x"}),
    ("local settings", ".claude/settings.local.json", {"permissions": {"allow": ["Read"]}}),
    (".mcp.json", ".mcp.json", {"mcpServers": {"s": {"command": "node", "args": ["x.js"], "env": {"A": "1"},
                                                     "cwd": "sub"}, "h": {"type": "http", "url": "http://127.0.0.1:1/"}}}),
    (".lsp.json", ".lsp.json", {"py": {"command": "pyls", "args": [], "extensionToLanguage": {".py": "python"},
                                       "workspaceFolder": "src"}}),
    ("gemini settings", ".gemini/settings.json", {"context": {"fileName": ["GEMINI.md", "AGENTS.md"]}}),
]


@pytest.mark.parametrize("name, rel, doc", JSON_ENTRY_POINTS, ids=[e[0] for e in JSON_ENTRY_POINTS])
def test_json_entry_points_survive_hostile_values(tmp_path_factory, pm, name, rel, doc):
    slots = list(_slots(doc))

    @FUZZ
    @given(st.sampled_from(slots), _json_hostile)
    def run(slot, raw):
        tmp = tmp_path_factory.mktemp("fz")
        home = tmp / "home"
        home.mkdir()
        ws = load(_project(tmp, {rel: _json_text(doc, slot, raw)}), home, pm=pm)
        assert ws.registry("skill").find("ok") is not None

    run()


def test_plugin_and_marketplace_manifests_survive_hostile_values(tmp_path_factory, pm):
    from wskit.builtin_plugins.bundles.discovery import load_bundle
    from wskit.builtin_plugins.bundles.marketplace import MarketplaceError, load_marketplace
    from wskit.host import HostProfile

    manifest = {"name": "p", "version": "1.0.0", "description": "d", "skills": ["./skills"], "commands": "./cmd",
                "mcpServers": {"s": {"command": "x"}}, "hooks": {"Stop": []}, "author": {"name": "a"}}
    market = {"name": "m", "owner": {"name": "o"}, "metadata": {"pluginRoot": "./plugins"},
              "plugins": [{"name": "p", "source": "p", "version": "1"}, {"name": "q", "source": {"source": "github"}}]}

    @FUZZ
    @given(st.sampled_from(list(_slots(manifest))), st.sampled_from(list(_slots(market))), _json_hostile)
    def run(mslot, kslot, raw):
        tmp = tmp_path_factory.mktemp("fz")
        profile = HostProfile(name="wskit", home=tmp)
        plug = tmp / "plugins" / "p"
        (plug / ".claude-plugin").mkdir(parents=True)
        (plug / ".claude-plugin/plugin.json").write_text(_json_text(manifest, mslot, raw), errors="surrogatepass")
        bundle = load_bundle(str(plug), "cli", "--plugin-dir", 0, profile)
        assert bundle.state in ("active", "error", "inactive")
        if bundle.state == "error":
            assert bundle.issues
        (tmp / ".claude-plugin").mkdir()
        (tmp / ".claude-plugin/marketplace.json").write_text(_json_text(market, kslot, raw), errors="surrogatepass")
        try:
            load_marketplace(tmp)
        except MarketplaceError as err:
            assert "marketplace.json" in str(err)

    run()


_toml_hostile = st.one_of(
    st.integers(4301, 6000).map(lambda n: "1" * n),
    st.integers(65, 70_000).map(lambda d: "[" * d + "]" * d),
    st.integers(65, 5000).map(lambda d: "{a = " * d + "1" + " }" * d),
    st.sampled_from(['"\\u0000"', '"\\ud800"', "inf", "nan", "1979-05-27T07:32:00Z", "0x" + "f" * 5000,
                     '"""' + "x" * 100_000 + '"""', "'''\n'''", "[[]]", "{}", '"a"\n[prompt]', "= 1"]),
)


def test_toml_entry_points_survive_hostile_values(tmp_path_factory, pm):
    from wskit.builtin_plugins.skills.admin import AdminSkillError, manifest_path, read_manifest
    from wskit.errors import TrustStoreError
    from wskit.host import HostProfile
    from wskit.trust import TrustStore

    @FUZZ
    @given(st.sampled_from(["prompt", "description"]), _toml_hostile)
    def run(key, raw):
        tmp = tmp_path_factory.mktemp("fz")
        home = tmp / "home"
        home.mkdir()
        other = "description" if key == "prompt" else "prompt"
        text = f'{key} = {raw}\n{other} = "x"\n' if raw.count("\n") == 0 else f"{key} = {raw}\n"
        ws = load(_project(tmp, {".gemini/commands/evil.toml": text, ".gemini/commands/fine.toml": 'prompt = "f"\n'}),
                  home, pm=pm)
        assert ws.registry("command").find("fine") is not None
        profile = HostProfile(name="wskit", home=home)
        mp = manifest_path(profile)
        mp.parent.mkdir(parents=True, exist_ok=True)
        mp.write_text(f"[skills.ok]\nenabled = {raw}\n", errors="surrogatepass")
        try:
            read_manifest(profile)
        except AdminSkillError:
            pass
        store = TrustStore.for_home(home)
        store.path.write_text(f"version = {raw}\n", errors="surrogatepass")
        os.chmod(store.path, 0o600)
        try:
            store.decide(home)
        except TrustStoreError:
            pass

    run()


_yaml_hostile = st.one_of(
    st.integers(4301, 6000).map(lambda n: "1" * n),
    st.integers(4301, 6000).map(lambda n: "0o" + "7" * n),
    st.integers(65, 20_000).map(lambda d: "[" * d + "]" * d),
    st.integers(65, 5000).map(lambda d: "{a: " * d + "1" + "}" * d),
    st.sampled_from(["1e99999", ".inf", ".nan", "2001-12-14t21:59:43.10-05:00", "9999-99-99", "!!python/object:os.system",
                     "!!binary AAAA", "&a [*a]", "*undefined", '"\\0"', '"\\ud800"', "x" * 100_000, "|\n  block",
                     "? complex\n: key", "- a\n- b", "~", "[1, {b: 2}]", '"a: b"', "'--- '", "---"]),
)

#: (file, frontmatter keys): the YAML entry points (frontmatter of every markdown kind)
YAML_ENTRY_POINTS = [
    (".claude/skills/evil/SKILL.md", ("name", "description", "allowed-tools", "arguments", "metadata", "model")),
    (".claude/commands/evil.md", ("description", "allowed-tools", "argument-hint", "model")),
    (".claude/agents/evil.md", ("name", "description", "tools", "model")),
    (".claude/output-styles/evil.md", ("name", "description", "keep-coding-instructions")),
    (".claude/rules/evil.md", ("paths", "description")),
    (".gemini/agents/evil.md", ("name", "description")),
]


@pytest.mark.parametrize("rel, keys", YAML_ENTRY_POINTS, ids=[e[0] for e in YAML_ENTRY_POINTS])
def test_yaml_frontmatter_entry_points_survive_hostile_values(tmp_path_factory, pm, rel, keys):
    @FUZZ
    @given(st.sampled_from(keys), _yaml_hostile)
    def run(key, raw):
        tmp = tmp_path_factory.mktemp("fz")
        home = tmp / "home"
        home.mkdir()
        text = f"---\nname: evil\ndescription: d\n{key}: {raw}\n---\nBody.\n"
        ws = load(_project(tmp, {rel: text, "CLAUDE.md": "See the rules.\n"}), home, pm=pm)
        assert ws.registry("skill").find("ok") is not None

    run()


def test_state_files_survive_hostile_json(tmp_path_factory):
    """A session state, the hook-trust store and the plugin ledger: their own error, never another."""
    from wskit.builtin_plugins.bundles.ledger import LedgerError, ledger_path, read_ledger
    from wskit.errors import SessionStateError, WskitError
    from wskit.host import HostProfile
    from wskit.session import SessionState

    state = {"format": 1, "session_id": "s", "parent_id": None, "created_at": "2026-01-01T00:00:00+00:00",
             "workspace": {"source_root": "/w", "execution_root": "/w", "cwd": "/w", "host": "wskit"},
             "trust": "trusted", "resources": [{"kind": "skill", "id": "project:a", "name": "a", "scope": "project",
                                                "source_root": "/w", "path": "a", "plugin": None, "sha256": "0" * 64}],
             "extensions": {"output_style": {"id": "x", "sha256": "0" * 64}, "workflows": []}}
    ledger = {"version": 1, "plugins": {"p": {"name": "p", "digest": "sha256:x", "root": "/r", "entry": {}}}}

    @FUZZ
    @given(st.sampled_from(list(_slots(state))), st.sampled_from(list(_slots(ledger))), _json_hostile)
    def run(sslot, lslot, raw):
        try:
            SessionState.from_json(_json_text(state, sslot, raw))
        except SessionStateError:
            pass
        tmp = tmp_path_factory.mktemp("fz")
        profile = HostProfile(name="wskit", home=tmp)
        lp = ledger_path(profile)
        lp.parent.mkdir(parents=True, exist_ok=True)
        lp.write_text(_json_text(ledger, lslot, raw), errors="surrogatepass")
        try:
            read_ledger(profile)
        except (LedgerError, WskitError) as err:
            assert "ledger" in str(err)

    run()


def test_fuzzed_values_are_the_ones_named():
    """The strategies hold the values the guarantee names (a guard against a fuzzer that drifts)."""
    assert re.fullmatch(r"1{5000}", BIG_INT)
    assert _json_text({"a": 1}, ("a",), BIG_INT) == '{"a": ' + BIG_INT + "}"


@pytest.mark.parametrize("field", ["pluginRoot", "source"])
def test_a_lone_surrogate_in_a_marketplace_path_is_refused_not_a_crash(tmp_path, field):
    """A JSON ``"\\ud800"`` escape (a lone surrogate, not a surrogateescape byte) in
    ``metadata.pluginRoot`` or a plugin's ``source`` cannot be encoded as a path: the entry
    is refused with a reason naming it; ``load_marketplace`` does not raise."""
    from wskit.builtin_plugins.bundles.marketplace import load_marketplace

    root = tmp_path / "m"
    (root / ".claude-plugin").mkdir(parents=True)
    entry = {"name": "p", "source": "./p\ud800" if field == "source" else "p"}
    data = {"name": "m", "owner": {"name": "o"}, "plugins": [entry]}
    if field == "pluginRoot":
        data["metadata"] = {"pluginRoot": "\ud800"}
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps(data))
    mk = load_marketplace(str(root))
    (got,) = mk.plugins
    assert not got.installable and "U+D800" in got.reason
