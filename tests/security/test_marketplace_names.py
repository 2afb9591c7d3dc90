"""A marketplace that is not Anthropic's cannot pass for one (wskit issue 18).

Claude Code 2.1.332 refuses a local folder named like an official Anthropic marketplace
(``claude-plugins-official`` and the other reserved names, any case) and every look-alike
(``official-claude``, a Cyrillic ``а`` in ``clаude-plugins-official``…): ``claude plugin
marketplace add DIR`` fails and an install record under such a marketplace "failed to
load" unless ``known_marketplaces.json`` names a GitHub repository of the ``anthropics``
organization (tests/conformance/marketplace_names_recorded.json). wskit refuses the same:
nothing is installed from such a folder, and no install record loads under its name."""

from __future__ import annotations

import json

import pytest

from tests.builtin_plugins.bundles.test_claude_installed import _home, _load, pm  # noqa: F401
from tests.conformance.marketplace_names import lay_out
from wskit.builtin_plugins.bundles.marketplace import load_marketplace, marketplace_name_verdict

HOSTILE = ("claude-plugins-official", "CLAUDE-PLUGINS-OFFICIAL", "cl\u0430ude-plugins-official",
           "claude-plugins-official\u200b", "claude_plugins_official", "claude.plugins.official",
           "-claude-plugins-official", "anthropic-official", "Official_Claude", "claudeofficial", "agent-skills",
           "claude plugins", "claude-marketplaces")


@pytest.mark.parametrize("name", HOSTILE)
def test_no_local_folder_installs_under_an_official_looking_name(name, wsctl, tmp_path, wskit_home):
    d = lay_out(tmp_path, name)
    assert marketplace_name_verdict(name) is not None
    assert load_marketplace(d).name_refusal is not None
    r = wsctl("plugins", "install", f"p1@{name}", "--from", str(d))
    assert r.exit_code != 0 and "nothing installed" in r.output
    assert not list(wskit_home.rglob("p1"))


@pytest.mark.parametrize("source", [{"source": "directory", "path": "/x"}, {"source": "github", "repo": "evil/claude-plugins-official"},
                                    {"source": "github", "repo": "anthropics:evil/x"},
                                    {"source": "git", "url": "https://github.com.evil.example/anthropics/x.git"},
                                    {"source": "git", "url": "https://evil.example/github.com/anthropics/x.git"},
                                    {"source": "url", "url": "https://github.com/anthropics/x"}, None])
def test_an_official_name_needs_a_github_source_of_anthropics(source):
    assert marketplace_name_verdict("claude-plugins-official", source) is not None
    assert marketplace_name_verdict("claude-plugins-official", {"source": "github",
                                                                "repo": "anthropics/claude-plugins-official"}) is None


def _rename(home, market: str, source) -> None:
    pl = home / ".claude/plugins"
    inst = json.loads((pl / "installed_plugins.json").read_text())
    inst["plugins"] = {f"hello@{market}": inst["plugins"]["hello@localmkt"]}
    (pl / "installed_plugins.json").write_text(json.dumps(inst))
    known = json.loads((pl / "known_marketplaces.json").read_text())["localmkt"]
    known["source"] = source
    (pl / "known_marketplaces.json").write_text(json.dumps({market: known}))
    s = json.loads((home / ".claude/settings.json").read_text())
    s["enabledPlugins"] = {f"hello@{market}": True}
    (home / ".claude/settings.json").write_text(json.dumps(s))


@pytest.mark.parametrize(("market", "source", "loads"), [
    ("claude-plugins-official", {"source": "directory", "path": "/tmp/mkt"}, False),
    ("claude-plugins-official", {"source": "github", "repo": "evil/claude-plugins-official"}, False),
    ("claude-plugins-official", {"source": "github", "repo": "anthropics/claude-plugins-official"}, True),
    ("agent-skills", {"source": "directory", "path": "/tmp/mkt"}, False),
    ("official-claude", {"source": "directory", "path": "/tmp/mkt"}, False),
    ("my-market", {"source": "directory", "path": "/tmp/mkt"}, True),
])
def test_an_install_record_under_a_refused_marketplace_does_not_load(pm, tmp_path, market, source, loads):  # noqa: F811
    """As Claude Code 2.1.332 answered for the same home (``claude plugin list``: "failed to
    load: The name 'claude-plugins-official' is reserved …"; the init line lists no plugin)."""
    home, proj = _home(tmp_path)
    _rename(home, market, source)
    ws = _load(pm, home, proj)
    assert ("plugin:hello:sk-hello" in {s.id for s in ws.registry("skill").active()}) is loads
    refused = [d for d in ws.diagnostics if d.code == "marketplace-name-reserved"]
    assert bool(refused) is not loads
    if refused:
        assert "known_marketplaces.json" in refused[0].path and market in refused[0].message


@pytest.mark.parametrize("name", ["claude-plugins-official", "official-claude"])
def test_marketplace_list_does_not_call_a_refused_marketplace_installable(name, wsctl, tmp_path):
    """``marketplace list`` must not say ``installable``/``yes`` for plugins ``install``
    refuses; the refusal says what to do instead (a copy under a name of one's own)."""
    d = lay_out(tmp_path, name)
    data = json.loads(wsctl("marketplace", "list", str(d), json=True).stdout)
    assert [(p["name"], p["installable"], p["reason_code"]) for p in data["plugins"]] == [("p1", False, "name-reserved")]
    human = wsctl("marketplace", "list", str(d)).stdout
    assert ": 1 plugins, 0 installable" in human and "no: name-reserved" in human and " yes " not in human
    assert "name-reserved: the marketplace's name is reserved" in human
    assert wsctl("marketplace", "list", str(d), "--installable", json=True).exit_code == 0
    assert json.loads(wsctl("marketplace", "list", str(d), "--installable", json=True).stdout)["plugins"] == []
    r = wsctl("plugins", "install", f"p1@{name}", "--from", str(d))
    assert "give the copy a name of your own" in r.stderr and "--plugin-dir" in r.stderr


def test_a_renamed_copy_installs(wsctl, tmp_path, wskit_home):
    """The way out the refusal names: the same folder under a name of one's own installs."""
    d = lay_out(tmp_path, "claude-plugins-official")
    mfile = d / ".claude-plugin/marketplace.json"
    mfile.write_text(json.dumps({**json.loads(mfile.read_text()), "name": "my-mirror"}))
    rows = json.loads(wsctl("marketplace", "list", str(d), json=True).stdout)["plugins"]
    assert rows[0]["installable"] is True
    r = wsctl("plugins", "install", "p1@my-mirror", "--from", str(d))
    assert r.exit_code == 0, r.output
    assert (wskit_home / ".wskit/installs/wskit/p1/commands/hello.md").is_file()
