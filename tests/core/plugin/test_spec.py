"""One test per hookspec (``test_hook_<name>``): a small plugin implements the
hook and the test checks the effect through wskit's real pipeline.
``tests/docs/test_hooks_reference.py`` fails when a hookspec has no such test."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import click
import pytest

import wskit
from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.kinds import ResourceKind
from wskit.models import Diagnostic, LoadResult, Provenance, Resource, ResourceSource, Scope
from wskit.plugin.facade import WskitHooks
from wskit.session import snapshot
from wskit.testing import register_plugin, write_tree
from wskit.trust import TrustDecision, TrustStore
from wskit.workspace import load_workspace

TEMPLATE = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".claude/skills/tmpl/SKILL.md": "---\nname: tmpl\ndescription: A template skill.\n---\nbody\n",
    # not named tmpl: a skill hides the command of its name in its scope
    ".claude/commands/tmplcmd.md": "---\ndescription: tmpl\n---\nDo it\n",
    ".claude/agents/tmpl.md": "---\nname: tmpl\ndescription: An agent.\n---\nprompt\n",
    ".claude/output-styles/tmpl.md": "---\nname: tmpl\ndescription: A style.\n---\nBe terse.\n",
    ".mcp.json": json.dumps({"mcpServers": {"tmpl": {"command": "srv"}}}),
    ".lsp.json": json.dumps({"tmpl": {"command": "pyright-langserver", "args": ["--stdio"],
                                      "extensionToLanguage": {".py": "python"}}}),
    ".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo"}]}]}}),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "proj", TEMPLATE)


@pytest.fixture
def home(tmp_path: Path, project: Path) -> Path:
    h = write_tree(tmp_path / "home", {})
    TrustStore.for_home(h).grant(project)
    return h


def load(pm, project: Path, home: Path, **profile):
    return load_workspace(WskitHooks(pm), Binding.discover(project), HostProfile(home=home, **profile))


def _clone_plugin(hook: str, template: Resource, label: str = "project:.claude"):
    """A plugin whose ``hook`` returns a copy of ``template`` named ``…-from-hook`` for one source."""
    clone = template.model_copy(update={"id": template.id + "-from-hook", "name": template.name + "-from-hook"})

    def impl(source):
        return LoadResult(resources=(clone,)) if source.label == label else None

    impl.__name__ = hook
    return SimpleNamespace(**{hook: wskit.hookimpl(impl)}), clone


def _check_loader_hook(wskit_pm, project, home, hook: str, kind: str) -> None:
    base = load(wskit_pm, project, home)
    template = base.registry(kind).active()[0]
    plugin, clone = _clone_plugin(hook, template)
    with register_plugin(wskit_pm, plugin, name="clone"):
        ws = load(wskit_pm, project, home)
    ids = {r.id for r in ws.registry(kind).active()}
    assert clone.id in ids and template.id in ids
    assert clone.id not in {r.id for r in load(wskit_pm, project, home).registry(kind).active()}


def test_hook_wskit_host_profiles(wsctl, wskit_pm, wskit_home, make_tree):
    class Profiles:
        @wskit.hookimpl
        def wskit_host_profiles(self):
            return [HostProfile(name="acme", claude_conventions=False), "not a profile"]

    root = make_tree({".git/HEAD": "x", ".acme/skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\nx\n",
                      ".claude/skills/c/SKILL.md": "---\nname: c\ndescription: d\n---\nx\n"})
    TrustStore.for_home(wskit_home).grant(root)
    with register_plugin(wskit_pm, Profiles(), name="profiles"):
        profiles, diags = WskitHooks(wskit_pm).host_profiles()
        assert [p.name for p in profiles] == ["acme"] and [d.code for d in diags] == ["bad-contribution"]
        data = json.loads(wsctl("--host", "acme", "inspect", str(root), json=True).stdout)
    ids = {r["id"] for r in data["resources"]}
    assert "project:a" in ids and "project:c" not in ids  # the plugin's profile switched .claude off


def test_hook_wskit_trust_decision(wskit_pm, project, tmp_path):
    home = write_tree(tmp_path / "fresh-home", {})
    seen = []

    class TrustAll:
        @wskit.hookimpl
        def wskit_trust_decision(self, source_root, store, profile):
            seen.append((source_root, profile.name))
            if profile.settings.get("trust_everything"):
                return TrustDecision(path=str(source_root), state="trusted", source="trust-all")
            return None

    with register_plugin(wskit_pm, TrustAll(), name="trust-all"):
        assert not load(wskit_pm, project, home).trust.trusted
        ws = load(wskit_pm, project, home, settings={"trust_everything": True})
    assert ws.trust.trusted and ws.trust.source == "trust-all"
    assert "project:tmpl" in {r.id for r in ws.registry("skill").active()}
    assert seen[0] == (project, "wskit")


def test_hook_wskit_resource_sources(wskit_pm, project, home):
    write_tree(project, {".acme/skills/extra/SKILL.md": "---\nname: extra\ndescription: d\n---\nx\n"})

    class Acme:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, trust):
            root = binding.source_root
            return [ResourceSource(scope=Scope.PROJECT, root=str(root / ".acme"), base=str(root), rank=23,
                                   label="project:.acme")] if trust.trusted else []

    with register_plugin(wskit_pm, Acme(), name="acme"):
        ws = load(wskit_pm, project, home)
    skill = ws.registry("skill").get("extra")
    assert skill.id == "project:extra" and skill.provenance.path == ".acme/skills/extra/SKILL.md"


def test_hook_wskit_plugin_bundles(wskit_pm, project, home, tmp_path):
    bundle = write_tree(tmp_path / "bundle", {"skills/tmpl/SKILL.md": "---\nname: tmpl\ndescription: d\n---\nx\n"})

    class Bundles:
        @wskit.hookimpl
        def wskit_plugin_bundles(self):
            return [ResourceSource(scope=Scope.PLUGIN, root=str(bundle), base=str(bundle), rank=30,
                                   plugin="acme", label="plugin:acme"),
                    Diagnostic(level="error", code="plugin-failed", message="broken bundle")]

    with register_plugin(wskit_pm, Bundles(), name="bundles-test"):
        ws = load(wskit_pm, project, home)
    reg = ws.registry("skill")
    assert reg.get("plugin:acme:tmpl").provenance.plugin == "acme"
    assert reg.get("tmpl").id == "project:tmpl"  # the native skill wins the bare name
    assert any(d.code == "plugin-failed" and d.message == "broken bundle" for d in ws.diagnostics)


def test_hook_wskit_discover_rules(wskit_pm, project, home):
    from wskit.builtin_plugins.rules.discovery import load_rule_file
    from wskit.builtin_plugins.rules.model import RuleSettings

    write_tree(project, {"ACME.md": "Acme rules.\n", "pkg/ACME.md": "Pkg rules.\n"})
    calls = []

    class Rules:
        @wskit.hookimpl
        def wskit_discover_rules(self, source, catalog_root, profile):
            calls.append(source.scope)
            if source.scope != Scope.PROJECT:
                return None
            out = [load_rule_file(str(catalog_root), rel, source="project", scope_dir=d, priority=65,
                                  file_kind="instruction", follow_links=False, settings=RuleSettings())[0]
                   for d, rel in (("", "ACME.md"), ("pkg", "pkg/ACME.md"))]
            return [*out, "junk"]

    with register_plugin(wskit_pm, Rules(), name="acme-rules"):
        ws = load(wskit_pm, project, home)
    cat = ws.catalog("rules")
    assert calls == [Scope.USER, Scope.PROJECT]
    assert [r.path for r in cat.static_rules(str(project)).files] == ["ACME.md"]
    assert [r.path for r in cat.contextual_rules(str(project), [str(project / "pkg/x.py")]).files] == ["pkg/ACME.md"]
    assert any(d.code == "bad-contribution" for d in cat.diagnostics)


def test_hook_wskit_load_skills(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_load_skills", "skill")


def test_hook_wskit_load_commands(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_load_commands", "command")


def test_hook_wskit_expand_command(wskit_pm, project, home):
    """A plugin expands the commands of its own format; the others keep wskit's
    markdown expansion; a plugin that raises is a diagnostic of the expansion."""
    from wskit.builtin_plugins.commands.expand import Expansion

    ws = load(wskit_pm, project, home)
    cmd = ws.registry("command").get("tmplcmd")
    hooks = WskitHooks(wskit_pm)
    # nobody owns it: markdown (Claude Code's rules: a body without placeholders gets the arguments appended)
    assert hooks.expand_command(cmd, ["x"], str(project)).text == "Do it\n\nARGUMENTS: x\n"

    class Owner:
        @wskit.hookimpl
        def wskit_expand_command(self, command, args):
            return Expansion(f"owned {command.name} {' '.join(args)}") if command.name == "tmplcmd" else None

    with register_plugin(wskit_pm, Owner(), "owner"):
        assert hooks.expand_command(cmd, ["a", "b"], str(project)).text == "owned tmplcmd a b"

    class Broken:
        @wskit.hookimpl
        def wskit_expand_command(self, command):
            raise RuntimeError("boom")

    with register_plugin(wskit_pm, Broken(), "broken-expander"):
        out = hooks.expand_command(cmd, [], str(project))
    assert out.text == "Do it\n"
    assert [(d.code, d.plugin) for d in out.diagnostics] == [("hook-failed", "broken-expander")]


def test_hook_wskit_load_agents(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_load_agents", "agent")


def test_hook_wskit_load_styles(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_load_styles", "style")


def test_hook_wskit_mcp_servers(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_mcp_servers", "mcp_server")


def test_hook_wskit_lsp_servers(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_lsp_servers", "lsp_server")


def test_hook_wskit_hook_definitions(wskit_pm, project, home):
    _check_loader_hook(wskit_pm, project, home, "wskit_hook_definitions", "hook")


class Snippet(Resource):
    kind: str = "snippet"


def test_hook_wskit_resource_kinds(wskit_pm, project, home):
    write_tree(project, {".claude/snippets/a.txt": "A", ".claude/snippets/b.txt": "B"})

    def load_snippets(source):
        folder = Path(source.root) / "snippets"
        if source.plugin or not folder.is_dir():
            return LoadResult()
        res = [Snippet(id=f"{source.scope.value}:{p.stem}", name=p.stem,
                             provenance=Provenance(scope=source.scope, source_root=source.base,
                                                   path=f"x/{p.name}", sha256="0" * 64))
               for p in sorted(folder.iterdir())]
        return LoadResult(resources=tuple(res))

    class Kinds:
        @wskit.hookimpl
        def wskit_resource_kinds(self):
            return [ResourceKind(name="snippet", loader=load_snippets), ResourceKind(name="snippet", hook="x")]

    with register_plugin(wskit_pm, Kinds(), name="kinds"):
        ws = load(wskit_pm, project, home)
    assert sorted(r.name for r in ws.registry("snippet").active()) == ["a", "b"]
    assert ws.kinds["snippet"].loader is load_snippets  # the first registration of a name is kept
    assert ws.kinds["skill"].hook == "wskit_load_skills"
    assert any(d.code == "duplicate-kind" for d in ws.diagnostics)


def test_hook_wskit_session_created(wskit_pm, project, home):
    seen = []

    class Listener:
        @wskit.hookimpl
        def wskit_session_created(self, session):
            seen.append((session.session_id, session.parent_id, len(session.resources())))

    with register_plugin(wskit_pm, Listener(), name="listener"):
        session = snapshot(load(wskit_pm, project, home))
        kid = session.child()
    assert seen[0][0] == session.session_id and seen[0][2] == len(session.resources()) > 0
    assert seen[1][:2] == (kid.session_id, session.session_id)


def test_hook_wskit_register_commands(wsctl, wskit_pm):
    @click.command("hello")
    @click.argument("who")
    def hello(who):
        click.echo(f"hello {who}")

    class Cmds:
        @wskit.hookimpl
        def wskit_register_commands(self, cli):
            cli.add_command(hello)

    with register_plugin(wskit_pm, Cmds(), name="cmds"):
        res = wsctl("hello", "world")
    assert res.exit_code == 0 and res.stdout == "hello world\n"
    assert wsctl("hello", "world").exit_code == 2  # unknown without the plugin


def test_hook_wskit_builtin_styles(wskit_pm, project, home):
    from wskit.builtin_plugins.styles.catalog import StyleCatalog
    from wskit.resources.style import builtin_style

    class Styles:
        @wskit.hookimpl
        def wskit_builtin_styles(self):
            return [builtin_style("pragmatic", "Be brief."), builtin_style("pragmatic", "dup")]

    with register_plugin(wskit_pm, Styles(), name="styles-test"):
        ws = load(wskit_pm, project, home)
        cat = StyleCatalog.for_resources(ws)
        _, diags = WskitHooks(wskit_pm).builtin_styles()
    assert cat.styles["pragmatic"].prompt == "Be brief." and cat.styles["pragmatic"].builtin
    assert [d.code for d in diags] == ["duplicate-id"]


def test_hook_wskit_workspace_catalogs(wskit_pm, project, home):
    class Index:
        def __init__(self, names):
            self.names = names
            self.diagnostics = (Diagnostic(level="info", code="acme-index", message="indexed"),)

    class Catalogs:
        @wskit.hookimpl
        def wskit_workspace_catalogs(self, workspace):
            return {"acme": Index(sorted(r.name for r in workspace.registry("skill").active()))}

    with register_plugin(wskit_pm, Catalogs(), name="catalogs"):
        ws = load(wskit_pm, project, home)
    assert ws.catalog("acme").names == ["tmpl"]
    assert ws.catalog("rules") is not None  # the built-in catalog stands beside it
    assert any(d.code == "acme-index" for d in ws.diagnostics)


def test_hook_wskit_session_services(wskit_pm, project, home):
    from wskit.session.runtime import SessionRuntime, UnknownServiceError

    started, closed = [], []

    class Echo:
        def __init__(self, runtime):
            self.root = runtime.execution_root
            started.append(self)

        def close(self):
            closed.append(self)

    class Services:
        @wskit.hookimpl
        def wskit_session_services(self):
            return [("echo", Echo), ("mcp", lambda rt: "shadowed?")]

    with register_plugin(wskit_pm, Services(), name="services"):
        runtime = SessionRuntime(snapshot(load(wskit_pm, project, home)))
        echo = runtime.service("echo")
        assert runtime.service("echo") is echo and started == [echo]
        assert echo.root == str(project)
        with pytest.raises(UnknownServiceError):
            runtime.service("nobody-provides-this")
        runtime.close()
    assert closed == [echo]


def test_hook_wskit_session_components(wskit_pm, project, home):
    from wskit.errors import SessionStateError
    from wskit.session.components import SessionComponent, UnknownComponentError
    from wskit.session.resume import restore

    made, resumed = [], []

    class Pad:
        def __init__(self, session):
            self.notes = ["n1"]
            made.append(session.session_id)

        def to_extension(self):
            return {"notes": list(self.notes)}

    def check(value):
        if not isinstance(value, dict) or not isinstance(value.get("notes"), list):
            raise SessionStateError("'notes' must be a list")

    def resume(session, value, policy):
        resumed.append(value)
        session.component("pad").notes = list(value["notes"])
        return []

    class Components:
        @wskit.hookimpl
        def wskit_session_components(self):
            return [SessionComponent(name="pad", create=Pad, check_extension=check, resume=resume,
                                     pinned=lambda s: True)]

    with register_plugin(wskit_pm, Components(), name="components"):
        ws = load(wskit_pm, project, home)
        s = snapshot(ws)
        pad = s.component("pad")
        assert s.component("pad") is pad and made == [s.session_id]
        with pytest.raises(UnknownComponentError):
            s.component("nobody-provides-this")
        pad.notes.append("n2")
        state = s.state()
        assert state.extensions["pad"] == {"notes": ["n1", "n2"]}
        back = restore(state, ws)
        assert resumed == [{"notes": ["n1", "n2"]}] and back.session.component("pad").notes == ["n1", "n2"]
        bad = state.model_copy(update={"extensions": {**state.extensions, "pad": {"notes": 3}}})
        with pytest.raises(SessionStateError, match="extensions.pad"):
            restore(bad, ws)
        fresh = snapshot(ws)
        assert fresh.state().extensions["pad"] == {"notes": ["n1"]}  # pinned: made for the state


def test_hook_wskit_hook_trust(wskit_pm, project, home):
    from wskit.session.runtime import SessionRuntime

    asked = []
    DIGEST = "sha256:" + "ab" * 32

    class Trust:
        def state(self, hook):
            asked.append(hook.id)
            return "trusted"

        def digest(self):
            return DIGEST

    class HookTrust:
        @wskit.hookimpl
        def wskit_hook_trust(self, session):
            return Trust() if session.binding.source_root == project else None

    with register_plugin(wskit_pm, HookTrust(), name="hook-trust"):
        runtime = SessionRuntime(snapshot(load(wskit_pm, project, home)))
    assert isinstance(runtime.trust, Trust) and runtime.hook_trust_digest == DIGEST
    assert runtime.state().extensions["hook_trust"] == {"digest": DIGEST}
    default = SessionRuntime(snapshot(load(wskit_pm, project, home)))
    assert not isinstance(default.trust, Trust)  # the built-in answers without the plugin
    runtime.close()
    default.close()
