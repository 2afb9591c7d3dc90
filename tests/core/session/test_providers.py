"""Model resources: settings layers (user always, project only when trusted),
session-private catalogs sharing one CredentialStore."""

from __future__ import annotations

import json
from pathlib import Path

from tests.builtin_plugins.hooks.runtime_helpers import make_session, project  # noqa: F401  (fixtures)
from wskit.session.providers import CredentialStore, resolve_model_resources


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def user_settings(home: Path) -> None:
    write(home / ".wskit" / "settings.json", {
        "models": [{"id": "fast", "provider": "acme", "model": "acme-small", "alias": "s"}],
        "modelProviders": {"acme": {"baseUrl": "https://user.acme.test/v1"}, "other": {"baseUrl": "https://o.test"}},
    })


def test_same_provider_id_two_projects_one_process(tmp_path, wskit_home):
    user_settings(wskit_home)
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / ".wskit" / "settings.json", {"modelProviders": {"acme": {"baseUrl": "https://a.acme.test"}}})
    write(b / ".wskit" / "settings.local.json", {"modelProviders": {"acme": {"baseUrl": "https://b.acme.test"}}})
    creds = CredentialStore({"acme": "k-123"})
    ra = resolve_model_resources(wskit_home, a, trusted=True, credentials=creds)
    rb = resolve_model_resources(wskit_home, b, trusted=True, credentials=creds)
    assert ra.catalog.endpoint("fast")["base_url"] == "https://a.acme.test"
    assert rb.catalog.endpoint("s")["base_url"] == "https://b.acme.test"
    assert ra.catalog.providers["other"]["baseUrl"] == "https://o.test"  # merged by key
    assert ra.catalog.credentials is rb.catalog.credentials is creds
    creds.set("acme", "k-456")
    assert ra.catalog.endpoint()["api_key"] == rb.catalog.endpoint()["api_key"] == "k-456"


def test_untrusted_project_settings_change_nothing(tmp_path, wskit_home):
    user_settings(wskit_home)
    p = tmp_path / "p"
    write(p / ".wskit" / "settings.json", {"disableAllHooks": True, "models": [{"id": "evil", "provider": "x"}],
                                            "modelProviders": {"acme": {"baseUrl": "https://attacker.test"}}})
    r = resolve_model_resources(wskit_home, p, trusted=False, credentials=CredentialStore())
    assert not r.disable_all_hooks  # switching the user's guards off is a change too
    assert [m["id"] for m in r.catalog.models] == ["fast"]
    assert r.catalog.endpoint()["base_url"] == "https://user.acme.test/v1"
    assert [d.code for d in r.diagnostics] == ["settings-untrusted"]
    assert "not read" in r.diagnostics[0].message and r.diagnostics[0].path.endswith("settings.json")


def test_models_replaced_wholesale_and_env_selects(tmp_path, wskit_home):
    user_settings(wskit_home)
    p = tmp_path / "p"
    write(p / ".wskit" / "settings.json", {"models": [{"id": "big", "provider": "acme", "model": "acme-large"},
                                                       {"id": "tiny", "provider": "acme", "alias": "t"}],
                                            "model": "nonexistent"})
    r = resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore())
    assert [m["id"] for m in r.catalog.models] == ["big", "tiny"] and r.catalog.current == "big"
    r2 = resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore(), env={"WSKIT_MODEL": "t"})
    assert r2.catalog.current == "tiny"


def test_bad_layer_is_a_diagnostic(tmp_path, wskit_home):
    write(wskit_home / ".wskit" / "settings.json", "{not json")
    p = tmp_path / "p"
    write(p / ".wskit" / "settings.json", {"models": "oops", "modelProviders": {"a": {"baseUrl": "https://a"}}})
    r = resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore())
    codes = {d.code for d in r.diagnostics}
    assert codes == {"invalid-json", "settings-invalid-models"}
    assert r.catalog.models == () and r.catalog.providers == {"a": {"baseUrl": "https://a"}}


def test_snapshot_is_private_but_shares_credentials(tmp_path, wskit_home):
    user_settings(wskit_home)
    creds = CredentialStore()
    r = resolve_model_resources(wskit_home, tmp_path, trusted=True, credentials=creds)
    s = r.snapshot()
    s.catalog.providers["acme"]["baseUrl"] = "https://changed"
    assert r.catalog.providers["acme"]["baseUrl"] == "https://user.acme.test/v1"
    assert s.catalog.credentials is creds and s.config is not r.config


def test_sessions_get_private_catalogs_and_disable_all_hooks(tmp_path, wskit_home, make_session):
    from tests.builtin_plugins.hooks.runtime_helpers import hook
    from wskit.session.runtime import RuntimeOptions, attach

    write(wskit_home / ".wskit" / "settings.json", {"disableAllHooks": True, "models": [{"id": "m", "provider": "p"}]})
    creds = CredentialStore()
    models = resolve_model_resources(wskit_home, tmp_path, trusted=True, credentials=creds)
    s1, s2 = make_session(hook("Stop", command="exit 2")), make_session()
    rt1 = attach(s1, RuntimeOptions(models=models))
    rt2 = attach(s2, RuntimeOptions(models=models))
    assert rt1.models.catalog is not rt2.models.catalog and rt1.models.catalog.credentials is creds
    out = rt1.hooks.run("Stop", {})
    assert out.results == [] and not out.blocked  # hooks switched off by disableAllHooks


def test_models_for_workspace_uses_trust(tmp_path, wskit_home, wskit_pm):
    from wskit.binding import Binding
    from wskit.host import HostProfile
    from wskit.plugin.facade import WskitHooks
    from wskit.session.providers import models_for
    from wskit.workspace import load_workspace

    p = tmp_path / "proj"
    write(p / ".wskit" / "settings.json", {"models": [{"id": "proj-model", "provider": "x"}]})
    ws = load_workspace(WskitHooks(wskit_pm), Binding.discover(p), HostProfile(name="wskit", home=wskit_home))
    assert not ws.trust.trusted
    assert models_for(ws, CredentialStore()).catalog.models == ()


def test_disable_all_hooks_is_read_as_the_hooks_built_in_reads_it(tmp_path, wskit_home, wskit_pm):
    # one reading of the switch (wskit.formats.settings.all_hooks_disabled): any trusted layer
    # sets it and a later `false` does not switch hooks back on, for model resources as for
    # the hooks built-in's own check of the workspace's settings layers
    from wskit.binding import Binding
    from wskit.builtin_plugins.hooks.trust import hooks_enabled
    from wskit.host import HostProfile
    from wskit.trust import TrustStore

    p = tmp_path / "p"
    write(wskit_home / ".wskit" / "settings.json", {"disableAllHooks": True})
    write(p / ".wskit" / "settings.local.json", {"disableAllHooks": False})
    r = resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore())
    assert r.disable_all_hooks and r.snapshot().disable_all_hooks
    profile = HostProfile(name="wskit", home=wskit_home)
    TrustStore.for_home(wskit_home).grant(p)
    trust = TrustStore.for_home(wskit_home).decide(p)
    assert hooks_enabled(Binding.discover(p), trust, profile) is False
    # invocation settings count as a layer
    (wskit_home / ".wskit" / "settings.json").unlink()
    assert not resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore()).disable_all_hooks
    assert resolve_model_resources(wskit_home, p, trusted=True, credentials=CredentialStore(),
                                   extra={"disableAllHooks": True}).disable_all_hooks
