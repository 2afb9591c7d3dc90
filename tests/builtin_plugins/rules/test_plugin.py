"""The built-in ``rules`` plugin: registration, the discovery hook as an extension point,
and the workspace/session wiring."""

from __future__ import annotations

from wskit.binding import Binding
from wskit.builtin_plugins.rules.model import RuleFile, rule_digest, rule_id
from wskit.host import HostProfile
from wskit.models import Provenance, Scope
from wskit.plugin import hookimpl
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import DEFAULT_PLUGINS
from wskit.session import snapshot
from wskit.testing import register_plugin, write_tree
from wskit.trust import TrustStore
from wskit.workspace import load_workspace


def test_rules_is_a_default_plugin(wskit_pm):
    assert ("rules", "wskit.builtin_plugins.rules") in DEFAULT_PLUGINS
    assert wskit_pm.has_plugin("rules")


class GeminiMd:
    """A third-party plugin adding ``GEMINI.md`` files of the project root."""

    @hookimpl
    def wskit_discover_rules(self, source, catalog_root, profile):
        if source.scope != Scope.PROJECT or not (catalog_root / "GEMINI.md").is_file():
            return None
        body = (catalog_root / "GEMINI.md").read_text().strip()
        return [RuleFile(id=rule_id("project", "GEMINI.md"), name="GEMINI.md", source="project", priority=65,
                         body=body, bytes=len(body.encode()),
                         provenance=Provenance(scope=Scope.PROJECT, source_root=str(catalog_root), path="GEMINI.md",
                                               sha256=rule_digest("GEMINI.md", (), body))),
                "not a rule"]


def test_third_party_rules_join_the_catalog(tmp_path, wskit_home, wskit_pm):
    root = write_tree(tmp_path / "p", {".git/HEAD": "ref: x\n", "GEMINI.md": "gemini", "AGENTS.md": "agents"})
    TrustStore.for_home(wskit_home).set(root, "trusted")
    with register_plugin(wskit_pm, GeminiMd(), "gemini-md"):
        ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(root), HostProfile(home=wskit_home))
    cat = ws.catalog("rules")
    assert [r.path for r in cat.static_rules(root).files] == ["AGENTS.md", "GEMINI.md"]
    bad = [d for d in ws.diagnostics if d.code == "bad-contribution"]
    assert bad and bad[0].plugin == "gemini-md"


def test_catalog_diagnostics_reach_the_workspace_and_sessions_share_the_catalog(tmp_path, wskit_home, wskit_pm):
    root = write_tree(tmp_path / "p", {".git/HEAD": "ref: x\n", "AGENTS.md": "   "})
    TrustStore.for_home(wskit_home).set(root, "trusted")
    ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(root), HostProfile(home=wskit_home))
    assert any(d.code == "rule-empty" for d in ws.diagnostics)
    s = snapshot(ws)
    assert s.catalogs["rules"] is ws.catalog("rules")
    assert snapshot(s).catalogs["rules"] is ws.catalog("rules")


def test_wsctl_lists_the_rules_command(wsctl):
    res = wsctl("--help")
    assert res.exit_code == 0 and "rules" in res.output


def test_rule_kind_and_sources_agree_with_the_resource_module() -> None:
    """The rules engine spells the rule kind and its sources again (importing the
    resource module builds its model class); both spellings must stay equal."""
    from typing import get_args

    from wskit.builtin_plugins.rules import model
    from wskit.resources import rule

    assert model.KIND == rule.KIND == rule.RuleFile.model_fields["kind"].default
    assert get_args(model.RuleSource) == get_args(rule.RuleSource)
