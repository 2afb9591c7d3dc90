"""wsctl plugins list|show|validate|install|uninstall|enable|disable and marketplace list|show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builtin_plugins._bundle_helpers import plugin, skill
from wskit.testing import write_tree
from wskit.trust import TrustStore


def _market(root):
    plugin(root / "plugins/tool", "tool", {"skills/s/SKILL.md": skill()}, version="1.0.0")
    write_tree(root, {".claude-plugin/marketplace.json": json.dumps({"name": "mk", "owner": {"name": "Me"}, "plugins": [
        {"name": "tool", "source": "./plugins/tool"},
        {"name": "net", "source": {"source": "npm", "package": "x"}}]})})
    return root


def test_plugins_list_json_keeps_plugins_and_adds_bundles(tmp_path, wsctl, make_tree):
    p = plugin(tmp_path / "p", "demo", {"skills/a/SKILL.md": skill()}, version="0.2.0")
    ws = make_tree({"x": "y"})
    r = wsctl("--plugin-dir", str(p), "plugins", "list", str(ws), json=True)
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert {"plugins", "bundles"} <= set(data)
    assert any(x["name"] == "bundles" and x["builtin"] for x in data["plugins"])
    (b,) = data["bundles"]
    assert set(b) == {"name", "version", "root", "scope", "state", "issues", "counts", "disabled_by"}
    assert b["name"] == "demo" and b["version"] == "0.2.0" and b["scope"] == "cli" and b["state"] == "active"
    assert b["counts"] == {"skill": 1} and b["root"] == str(p)


def test_plugins_show(tmp_path, wsctl, make_tree):
    p = plugin(tmp_path / "p", "demo", {"skills/a/SKILL.md": skill()})
    r = wsctl("--plugin-dir", str(p), "plugins", "show", "demo", "--path", str(make_tree({"x": "y"})), json=True)
    data = json.loads(r.output)
    assert data["resources"] == ["plugin:demo:a"] and data["state"] == "active"
    r = wsctl("plugins", "show", "nope", "--path", str(tmp_path))
    assert r.exit_code == 1 and "no content plugin 'nope'" in r.output


def test_validate_reports_errors_with_exit_1(tmp_path, wsctl):
    good = plugin(tmp_path / "good", "good", {".mcp.json": {"s": {"command": "x"}}})
    r = wsctl("plugins", "validate", str(good), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 0 and data["ok"] and data["counts"] == {"mcp_server": 1}
    bad = plugin(tmp_path / "bad", "bad", {".lsp.json": {"x": {"command": "c"}}})
    r = wsctl("plugins", "validate", str(bad), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 1 and not data["ok"]
    assert any(d["code"] == "lsp-invalid" for d in data["diagnostics"])


def test_validate_strict_refuses_what_loads_leniently(tmp_path, wsctl):
    """Claude Code loads these skill and command files (so does wskit, with warnings);
    ``--strict`` reports each leniency as an error naming the file."""
    p = plugin(tmp_path / "lax", "lax", {
        "skills/dup/SKILL.md": "---\nname: dup\ndescription: a\ndescription: b\n---\nBody\n",
        "skills/tab/SKILL.md": "---\nname: tab\ndescription: t\nmetadata:\n\towner: a\n---\nBody\n",
        "skills/nofm/SKILL.md": "Just a body\n",
        "commands/open.md": "---\ndescription: never closed\n",
    })
    lenient = json.loads(wsctl("plugins", "validate", str(p), json=True).output)
    assert lenient["ok"] and lenient["counts"] == {"skill": 3, "command": 1}
    r = wsctl("plugins", "validate", str(p), "--strict", json=True)
    data = json.loads(r.output)
    assert r.exit_code == 1 and not data["ok"]
    errors = {(d["code"], d["path"].rsplit("/", 2)[-2] if d["path"].endswith("SKILL.md") else d["path"].rsplit("/", 1)[-1])
              for d in data["diagnostics"] if d["level"] == "error"}
    assert {("yaml-duplicate-key", "dup"), ("yaml-quoted-retry", "tab"), ("skill-no-frontmatter", "nofm"),
            ("frontmatter-unterminated", "open.md")} <= errors


def test_marketplace_list_and_install_uninstall(tmp_path, wsctl, wskit_home):
    mk = _market(tmp_path / "market")
    r = wsctl("marketplace", "list", str(mk), json=True)
    data = json.loads(r.output)
    assert data["name"] == "mk" and data["owner"] == {"name": "Me"}
    rows = {p["name"]: p for p in data["plugins"]}
    assert set(rows["tool"]) == {"name", "description", "source", "installable", "reason_code", "reason"}
    assert rows["tool"]["installable"] and rows["tool"]["reason"] is None
    assert not rows["net"]["installable"] and "fetch" in rows["net"]["reason"]
    r = wsctl("marketplace", "show", str(mk), "net", json=True)
    assert json.loads(r.output)["source_kind"] == "npm"
    human = wsctl("marketplace", "show", str(mk), "net").output  # without --json: text, not the JSON document
    assert human.startswith("net in mk: npm source") and "not installable: " in human and "entry:" in human
    assert not human.lstrip().startswith("{")
    r = wsctl("plugins", "install", "net@mk", "--from", str(mk))
    assert r.exit_code == 1 and "needs a fetch" in r.output
    r = wsctl("plugins", "install", "tool@mk", "--from", str(mk), json=True)
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["digest"].startswith("sha256:")
    r = wsctl("plugins", "install", "tool@mk", json=True)  # known from the ledger now
    assert r.exit_code == 0, r.output
    r = wsctl("plugins", "list", str(tmp_path), json=True)
    assert [b["scope"] for b in json.loads(r.output)["bundles"]] == ["managed"]
    r = wsctl("plugins", "uninstall", "tool", json=True)
    assert json.loads(r.output)["removed"] is True
    assert not (wskit_home / ".wskit/plugins/tool").exists()


def test_enable_disable_write_settings(tmp_path, wsctl, wskit_home, make_tree):
    plugin(wskit_home / ".claude/plugins/demo", "demo")
    ws = make_tree({"x": "y"})
    r = wsctl("plugins", "disable", "demo", json=True)
    assert json.loads(r.output)["settings"] == str(wskit_home / ".wskit/settings.json")
    assert json.loads((wskit_home / ".wskit/settings.json").read_text()) == {"enabledPlugins": {"demo": False}}
    r = wsctl("plugins", "list", str(ws), json=True)
    assert json.loads(r.output)["bundles"][0]["state"] == "inactive"
    TrustStore.for_home(wskit_home).grant(ws)
    r = wsctl("plugins", "enable", "demo", "--scope", "local", "--path", str(ws), json=True)
    assert json.loads(r.output)["enabled"] is True
    assert (ws / ".wskit/settings.local.json").is_file()
    r = wsctl("plugins", "list", str(ws), json=True)
    assert json.loads(r.output)["bundles"][0]["state"] == "active"


def test_plugins_list_reports_a_missing_plugin_dir_and_keeps_errors_out_of_the_table(tmp_path, wsctl, make_tree):
    """A missing --plugin-dir shows in plugins list, not only in inspect; a long error
    goes under the table, whole, since in the STATE column it would stretch every row."""
    ws = make_tree({"x": "y"})
    r = wsctl("--plugin-dir", str(tmp_path / "nonexistent"), "plugins", "list", str(ws), json=True)
    assert r.exit_code == 0, r.output
    assert [d["code"] for d in json.loads(r.output)["diagnostics"]] == ["plugin-dir-missing"]
    assert "plugin-dir-missing" in wsctl("--plugin-dir", str(tmp_path / "nonexistent"), "plugins", "list",
                                         str(ws)).output
    from wskit.builtin_plugins.bundles.cli import human_bundles

    long = "x" * 300
    text = human_bundles([{"name": "b", "version": None, "root": "/r", "scope": "cli", "state": "invalid",
                           "issues": [{"level": "error", "message": long}], "counts": {}}])
    table_lines = text.split("\n\nerrors:\n")[0].splitlines()
    assert all(len(line) < 120 for line in table_lines), table_lines
    assert "invalid (1 error, below)" in text and f"  b: {long}" in text  # whole, under the table


# --- failing --plugin-dir folders; the messages of install, enable and disable ------

#: every command that lists what a workspace holds, with the key of its JSON list
_LISTINGS = [("inspect",), ("skills", "list"), ("commands", "list"), ("agents", "list"), ("styles", "list"),
             ("mcp", "list"), ("lsp", "list"), ("hooks", "list"), ("rules",), ("plugins", "list")]


def _failing_plugin_dirs(tmp_path):
    """A folder without a manifest, a marketplace entry or any component (one with a
    component loads named after its folder, as in Claude Code), one with a broken
    manifest, and one that does not exist."""
    bare = write_tree(tmp_path / "no-manifest", {"README.md": "not a plugin\n", "notes/skills.txt": "x\n"})
    broken = write_tree(tmp_path / "broken", {".claude-plugin/plugin.json": "{not json"})
    return bare, broken, tmp_path / "nonexistent"


@pytest.mark.parametrize("command", _LISTINGS, ids=" ".join)
def test_every_listing_reports_a_failing_plugin_dir(tmp_path, wsctl, make_tree, command):
    """`skills list` and every other listing say why a --plugin-dir failed, not just "no
    skills" with exit 0: otherwise only inspect and plugins list would tell."""
    bare, broken, missing = _failing_plugin_dirs(tmp_path)
    ws = make_tree({"x": "y"})
    argv = ("--plugin-dir", str(bare), "--plugin-dir", str(broken), "--plugin-dir", str(missing), *command, str(ws))
    r = wsctl(*argv, json=True)
    assert r.exit_code == 0, r.output
    found = {(d["code"], d["path"]) for d in json.loads(r.stdout)["diagnostics"]}
    assert {("plugin-failed", str(bare)), ("plugin-failed", str(broken)),
            ("plugin-dir-missing", str(missing))} <= found, found
    bare_failed = [d for d in json.loads(r.stdout)["diagnostics"] if d["path"] == str(bare)]
    assert len(bare_failed) == 1 and "no marketplace entry defines it" in bare_failed[0]["message"]
    assert r.stderr == ""  # reported once, in the document
    r = wsctl(*argv)
    assert r.exit_code == 0, r.output
    lines = [line for line in r.stdout.splitlines() if "plugin-failed" in line or "plugin-dir-missing" in line]
    if command == ("plugins", "list"):
        # stated once: in the errors block under the bundle table, not again as plugin-failed
        assert len(lines) == 1 and "plugin-dir-missing" in lines[0]
        errors = r.stdout.split("errors:\n", 1)[1]
        assert "no-manifest: Not a valid plugin directory" in errors and "\n  broken: " in errors
    else:
        assert len(lines) == 3 and any(str(bare) in line and "Not a valid plugin directory" in line for line in lines)
    assert "plugin-failed" not in r.stderr


def test_other_commands_say_a_plugin_dir_failed_on_stderr(tmp_path, wsctl, make_tree):
    """Commands without a diagnostics list (show, snapshot…) still name the failing
    --plugin-dir (stderr, once), and their JSON document gains no diagnostics key."""
    bare, _, _ = _failing_plugin_dirs(tmp_path)
    ws = make_tree({".claude/commands/hi.md": "Say hi\n"})
    TrustStore.for_home(ws.parent / "home").grant(ws)
    r = wsctl("--plugin-dir", str(bare), "snapshot", str(ws), json=True)
    assert r.exit_code == 0, r.output
    assert "diagnostics" not in json.loads(r.stdout)
    assert r.stderr.count("plugin-failed") == 1 and str(bare) in r.stderr
    r = wsctl("--plugin-dir", str(bare), "skills", "show", "s", str(ws))
    assert r.exit_code == 1 and "plugin-failed" in r.stderr and "unknown skill" in r.stderr
    # a working --plugin-dir adds nothing
    good = plugin(tmp_path / "good", "good", {"skills/g/SKILL.md": skill()})
    r = wsctl("--plugin-dir", str(good), "skills", "list", str(ws), json=True)
    assert not [d for d in json.loads(r.stdout)["diagnostics"] if d["code"].startswith("plugin")]
    assert r.stderr == ""


def test_a_marketplace_defined_plugin_dir_is_still_a_plugin(tmp_path, wsctl, make_tree):
    """The documented refusal is kept, and so is its exception (docs/plugins.md)."""
    mk = _market(tmp_path / "market")
    (mk / "plugins/tool/.claude-plugin/plugin.json").unlink()
    r = wsctl("--plugin-dir", str(mk / "plugins/tool"), "skills", "list", str(make_tree({"x": "y"})), json=True)
    data = json.loads(r.stdout)
    assert [s["id"] for s in data["skills"]] == ["plugin:tool:s"]
    assert not [d for d in data["diagnostics"] if d["code"].startswith("plugin")] and r.stderr == ""


def test_install_names_the_marketplace_the_from_folder_holds(tmp_path, wsctl, monkeypatch):
    """When the --from folder holds a marketplace of another name, the error says so,
    not "unknown marketplace 'mkt': pass its folder with --from DIR" (--from was passed)."""
    _market(tmp_path / "mkt")  # holds marketplace "mk"
    monkeypatch.chdir(tmp_path / "mkt")
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    r = wsctl("plugins", "install", "tool@mkt", "--from", "../mkt")
    assert r.exit_code == 1
    assert "the folder given with --from (../mkt) holds marketplace 'mk', not 'mkt'" in r.stderr
    assert "pass its folder with --from" not in r.stderr
    r = wsctl("plugins", "install", "tool@mk", "--from", "../mkt", json=True)
    assert r.exit_code == 0 and json.loads(r.stdout)["marketplace"] == "mk"
    r = wsctl("plugins", "install", "tool@other")  # no --from: the advice to pass it stands
    assert r.exit_code == 1 and "unknown marketplace 'other': pass its folder with --from DIR" in r.stderr


def test_enable_disable_warn_about_an_unknown_plugin_and_still_write(tmp_path, wsctl, wskit_home, make_tree,
                                                                      monkeypatch):
    """`plugins disable nonexistent-plugin` warns: written in silence, a typo would go
    unnoticed. Entries for plugins not installed are valid (a project lists what its
    team uses), so it is still written."""
    ws = make_tree({"x": "y"})
    monkeypatch.chdir(ws)
    r = wsctl("plugins", "disable", "nonexistent-plugin", json=True)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["known"] is False
    assert "no plugin 'nonexistent-plugin' is known" in r.stderr
    settings = json.loads((wskit_home / ".wskit/settings.json").read_text())
    assert settings == {"enabledPlugins": {"nonexistent-plugin": False}}
    # known: a user plugin, a managed install, a marketplace entry, an untrusted project's plugin folder
    plugin(wskit_home / ".claude/plugins/demo", "demo")
    mk = _market(tmp_path / "market")
    assert wsctl("plugins", "install", "tool@mk", "--from", str(mk)).exit_code == 0
    write_tree(wskit_home, {".wskit/settings.json": json.dumps({"extraKnownMarketplaces": {
        "mk": {"source": {"source": "directory", "path": str(mk)}}}})})
    plugin(ws / ".claude/plugins/local-one", "local-one")
    for name in ("demo", "tool", "tool@mk", "net@mk", "local-one"):
        r = wsctl("plugins", "enable", name, json=True)
        assert r.exit_code == 0 and json.loads(r.stdout)["known"] is True, (name, r.output)
        assert "warning" not in r.stderr, name
    # enabling a name nothing provides is refused (exit 2), nothing written, unless --force
    r = wsctl("plugins", "enable", "tool@elsewhere")
    assert r.exit_code == 2 and "no plugin 'tool@elsewhere' is known" in r.output and "--force" in r.output
    assert "did you mean 'tool'?" in r.output and f"(searched {ws}, untrusted)" in r.output
    assert "tool@elsewhere" not in (wskit_home / ".wskit/settings.json").read_text()
    r = wsctl("plugins", "enable", "tool@elsewhere", "--force")
    assert r.exit_code == 0 and "no plugin 'tool@elsewhere' is known" in r.stderr


def test_plugins_list_shows_the_enablement_diagnostics_inspect_shows(wsctl, make_tree):
    """An untrusted project's settings naming plugins: the file is not read, and the
    `settings-untrusted` warning shows in plugins list as well, not in inspect only."""
    ws = make_tree({".claude/settings.json": json.dumps({"enabledPlugins": {"hookify": False, "feature-dev": True}})})
    inspect = json.loads(wsctl("inspect", str(ws), json=True).stdout)["diagnostics"]
    wanted = [d for d in inspect if d["code"] == "settings-untrusted"]
    assert wanted and wanted[0]["path"].endswith(".claude/settings.json")
    r = wsctl("plugins", "list", str(ws), json=True)
    assert r.exit_code == 0 and json.loads(r.stdout)["diagnostics"] == wanted
    assert "settings-untrusted" in wsctl("plugins", "list", str(ws)).stdout
    assert "settings-untrusted" in wsctl("plugins", "--path", str(ws)).stdout


def _named_market(root, name, plugin_version):
    plugin(root / "plugins/a", "a", {"skills/s/SKILL.md": skill()}, version=plugin_version)
    write_tree(root, {".claude-plugin/marketplace.json": json.dumps(
        {"name": name, "owner": {"name": "Me"}, "plugins": [{"name": "a", "source": "./plugins/a"}]})})
    return root


def test_install_from_wins_over_a_folder_of_the_working_directory(tmp_path, wsctl, wskit_home, monkeypatch):
    """With ./zz holding marketplace "other", `plugins install a@zz --from A` installs
    A's a@zz, not a@other from ./zz. MARKETPLACE is a name, checked against what every
    folder holds; a folder of the cwd is never taken for it."""
    _named_market(tmp_path / "A", "zz", "1.0.0")
    _named_market(tmp_path / "zz", "other", "9.9.9")
    monkeypatch.chdir(tmp_path)
    r = wsctl("plugins", "install", "a@zz", "--from", "A", json=True)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["marketplace"] == "zz"
    manifest = json.loads((Path(data["root"]) / ".claude-plugin/plugin.json").read_text())
    assert manifest["version"] == "1.0.0"  # the copy of A's plugin, not ./zz's
    wsctl("plugins", "uninstall", "a")
    # without --from, ./zz is not read (neither for "zz" nor as the folder path "./zz")
    for spec in ("a@other", "a@zz", "a@./zz"):
        r = wsctl("plugins", "install", spec)
        assert r.exit_code == 1 and "unknown marketplace" in r.stderr, (spec, r.output)
    assert "not a folder" in wsctl("plugins", "install", "a@./zz").stderr
    assert not (wskit_home / ".wskit/plugins/a").exists()
    # a cwd folder called like the marketplace but holding no marketplace does not break --from
    (tmp_path / "B").mkdir()
    monkeypatch.chdir(tmp_path / "B")
    (tmp_path / "B/zz").mkdir()
    r = wsctl("plugins", "install", "a@zz", "--from", str(tmp_path / "A"), json=True)
    assert r.exit_code == 0 and json.loads(r.stdout)["marketplace"] == "zz", r.output


@pytest.mark.parametrize("name", ["", "Bad_Name", "a\udcff", "a@", "a@Mk", "a@\udcff", "a\n", "x" * 65, "@mk"])
def test_enable_disable_refuse_a_name_the_settings_reader_refuses(tmp_path, wsctl, wskit_home, name):
    """`plugins enable ''` (or a name with a byte that is not UTF-8) is refused as a
    usage error, nothing written: once written, every later command would report
    `settings-invalid … enabledPlugins entry ''`."""
    for verb in ("enable", "disable"):
        r = wsctl("plugins", verb, name, "--scope", "user")
        assert r.exit_code == 2 and "is not a plugin name" in r.output, (verb, r.output)
    assert not (wskit_home / ".wskit/settings.json").exists()
    r = wsctl("plugins", "enable", "good-name@some-market", "--force", json=True)
    assert r.exit_code == 0, r.output
    assert json.loads((wskit_home / ".wskit/settings.json").read_text()) == {
        "enabledPlugins": {"good-name@some-market": True}}
    listed = json.loads(wsctl("plugins", "list", str(tmp_path), json=True).stdout)
    assert not [d for d in listed["diagnostics"] if d["code"] == "settings-invalid"]


def test_plugins_list_states_a_failing_plugin_dir_once(tmp_path, wsctl, make_tree):
    """A --plugin-dir that is not a plugin is stated once in the human output, in the
    `errors:` block under the table, not again as `plugin-failed` under `diagnostics`.
    The JSON keeps the diagnostic."""
    bad = tmp_path / "notplugin"
    bad.mkdir()
    ws = make_tree({"x": "y"})
    args = ("--plugin-dir", str(bad), "plugins", "list", str(ws))
    data = json.loads(wsctl(*args, json=True).stdout)
    assert [d["code"] for d in data["diagnostics"]] == ["plugin-failed"]
    assert data["bundles"][0]["state"] == "error"
    human = wsctl(*args).stdout
    assert human.count("Not a valid plugin directory") == 1, human
    assert "errors:\n  notplugin: Not a valid plugin directory" in human
    assert "plugin-failed" not in human and "diagnostics (" not in human
    # another diagnostic is still shown
    human = wsctl("--plugin-dir", str(tmp_path / "missing"), *args).stdout
    assert human.count("Not a valid plugin directory") == 1 and "diagnostics (1)" in human
    assert "plugin-dir-missing" in human


def test_a_folder_without_a_manifest_but_with_components_loads_named_after_it(tmp_path, wsctl, make_tree):
    """Claude Code 2.1.337 loads a ``--plugin-dir`` folder that has no plugin.json but has
    components, named after the folder (conformance case ``no-manifest`` of
    tests/conformance/plugin_settings.py), and ``claude plugin validate`` accepts it."""
    p = write_tree(tmp_path / "bare-skills", {"skills/s/SKILL.md": skill(), "commands/c.md": "---\ndescription: c\n---\nb\n"})
    r = wsctl("--plugin-dir", str(p), "skills", "list", str(make_tree({"x": "y"})), json=True)
    assert [s["id"] for s in json.loads(r.stdout)["skills"]] == ["plugin:bare-skills:s"]
    r = wsctl("plugins", "validate", str(p), json=True)
    data = json.loads(r.output)
    assert r.exit_code == 0 and data["ok"] and data["name"] == "bare-skills"
    assert "manifest-from-folder" in [d["code"] for d in data["diagnostics"]]


def test_validate_a_strict_false_folder_names_the_marketplace_to_validate(tmp_path, wsctl):
    """A folder defined by a ``strict: false`` marketplace entry is invalid alone (Claude
    Code's verdict), and the messages agree on why: no manifest in the folder, the entry
    in marketplace.json defines it, validate the marketplace."""
    mk = tmp_path / "mk"
    (mk / ".claude-plugin").mkdir(parents=True)
    (mk / "plugins/ls").mkdir(parents=True)
    (mk / ".claude-plugin/marketplace.json").write_text(json.dumps({"name": "mine", "owner": {"name": "Me"}, "plugins": [
        {"name": "ls", "source": "./plugins/ls", "strict": False,
         "lspServers": {"ls": {"command": "ls-server", "extensionToLanguage": {".x": "x"}}}}]}))
    r = wsctl("plugins", "validate", str(mk / "plugins/ls"))
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[0].startswith("info: marketplace-defined: ") and "which defines it in" in lines[0]
    assert lines[1].startswith("error: plugin-no-manifest: this folder alone has no manifest")
    # the hint carries this run's --home, so it can be pasted as it is
    assert "validate the marketplace instead ('wsctl --home " in lines[1]
    assert f" plugins validate {mk.resolve()}')" in lines[1]
    assert "expected .claude-plugin/plugin.json" not in r.stdout
    assert lines[-1] == "ls: 1 error(s) (lsp_server=1 from its marketplace entry)"
    assert wsctl("plugins", "validate", str(mk)).exit_code == 0


def test_install_names_what_it_did_not_copy(tmp_path, wsctl):
    """The human output lists the links (and special files) not copied, as the JSON does."""
    mk = _market(tmp_path / "market")
    (mk / "plugins/tool/shared").symlink_to(tmp_path)
    r = wsctl("plugins", "install", "tool@mk", "--from", str(mk))
    assert r.exit_code == 0, r.output
    assert "not copied (a link or special file): shared" in r.stdout


def test_plugins_list_names_the_file_of_an_error(tmp_path, wsctl, make_tree):
    p = tmp_path / "p3"
    (p / ".claude-plugin").mkdir(parents=True)
    (p / ".claude-plugin/plugin.json").write_text("{bad")
    out = wsctl("--plugin-dir", str(p), "plugins", "list", str(make_tree({"x": "y"}))).stdout
    assert "  p3: .claude-plugin/plugin.json: invalid JSON: " in out
