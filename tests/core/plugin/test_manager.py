import sys
import textwrap
from pathlib import Path

import pytest

import wskit
from wskit.errors import PluginLoadError
from wskit.models import ResourceSource
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import DEFAULT_PLUGINS, make_plugin_manager


def fake_dist(site: Path, dist: str, module: str, code: str, ep_name: str) -> None:
    """A real installed distribution (dist-info + module) on a sys.path folder."""
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{dist.replace('-', '_')}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[wskit]\n{ep_name} = {module}\n")
    (site / f"{module}.py").write_text(textwrap.dedent(code))


@pytest.fixture
def site(tmp_path, monkeypatch):
    path = tmp_path / "site"
    path.mkdir()
    monkeypatch.syspath_prepend(str(path))
    yield path
    for name in list(sys.modules):
        if name.startswith("wskit_fake_"):
            del sys.modules[name]


GOOD = """
import wskit

@wskit.hookimpl
def wskit_resource_sources(binding, profile, trust):
    return []
"""


def test_builtins_are_ordinary_named_plugins():
    pm = make_plugin_manager(load_entrypoints=False, env={})
    names = {n for n, _ in DEFAULT_PLUGINS}
    assert names <= {n for n, p in pm.list_name_plugin() if p is not None}
    assert all(pm.info[n].builtin for n in names)


def test_disable_plugins_blocks_builtins_by_name():
    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "skills, trust"})
    assert pm.get_plugin("skills") is None and pm.is_blocked("skills") and pm.is_blocked("trust")
    assert pm.get_plugin("sources") is not None


def test_broken_entry_point_is_recorded_and_others_load(site, capsys):
    fake_dist(site, "wskit-fake-broken", "wskit_fake_broken", "raise RuntimeError('boom at import')\n", "broken")
    fake_dist(site, "wskit-fake-good", "wskit_fake_good", GOOD, "good")
    pm = make_plugin_manager(env={})
    assert pm.get_plugin("good") is not None
    assert pm.info["good"].distribution == "wskit-fake-good" and pm.info["good"].version == "1.2.3"
    (failure,) = [f for f in pm.load_failures if f.name == "broken"]
    assert failure.distribution == "wskit-fake-broken" and "boom at import" in failure.error
    assert "wskit-fake-broken" in capsys.readouterr().err


def test_unknown_hook_name_is_a_load_failure(site):
    fake_dist(site, "wskit-fake-typo", "wskit_fake_typo",
              "import wskit\n@wskit.hookimpl\ndef wskit_resource_sourcez():\n    return []\n", "typo")
    pm = make_plugin_manager(env={})
    assert pm.get_plugin("typo") is None
    assert any(f.name == "typo" and "unknown hook" in f.error for f in pm.load_failures)


def test_strict_plugins_reraises(site):
    fake_dist(site, "wskit-fake-broken2", "wskit_fake_broken2", "raise ImportError('nope')\n", "broken2")
    with pytest.raises(PluginLoadError, match="wskit-fake-broken2"):
        make_plugin_manager(env={"WSKIT_STRICT_PLUGINS": "1"})


def test_load_plugins_env_selects(site):
    fake_dist(site, "wskit-fake-a", "wskit_fake_a", GOOD, "a")
    fake_dist(site, "wskit-fake-b", "wskit_fake_b", GOOD, "b")
    pm = make_plugin_manager(env={"WSKIT_LOAD_PLUGINS": "a"})
    assert pm.get_plugin("a") is not None and pm.get_plugin("b") is None
    pm = make_plugin_manager(env={"WSKIT_LOAD_PLUGINS": ""})
    assert pm.get_plugin("a") is None and pm.get_plugin("b") is None
    assert pm.get_plugin("skills") is not None  # built-ins are not entry points


def test_entry_point_can_replace_a_builtin_by_name(site):
    fake_dist(site, "wskit-fake-skills", "wskit_fake_skills", GOOD, "skills")
    pm = make_plugin_manager(env={})
    assert pm.info["skills"].distribution == "wskit-fake-skills" and not pm.info["skills"].builtin


def test_hook_that_raises_becomes_diagnostic_and_others_stand(wskit_profile, tmp_path):
    class Bad:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            raise ValueError("kaput")

    class Good:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            return [ResourceSource(scope="cli", root=str(tmp_path), base=str(tmp_path), label="good")]

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(Bad(), name="bad")
    pm.register(Good(), name="good")
    hooks = WskitHooks(pm)
    from wskit.binding import Binding
    from wskit.trust import TrustDecision

    sources, diags = hooks.resource_sources(Binding.discover(tmp_path), wskit_profile,
                                            TrustDecision(path=str(tmp_path), state="unknown"))
    assert any(s.label == "good" for s in sources)
    assert any(s.label.startswith("user:") for s in sources)  # the built-in still answered
    (d,) = diags
    assert d.code == "hook-failed" and d.plugin == "bad" and d.hook == "wskit_resource_sources"
    assert "kaput" in d.message
    assert pm.hook_failures["bad"]


def test_bad_contribution_is_a_diagnostic(wskit_profile, tmp_path):
    class Wrong:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            return ["not a source"]

    pm = make_plugin_manager(load_entrypoints=False, env={}, plugins=[])
    pm.register(Wrong(), name="wrong")
    from wskit.binding import Binding
    from wskit.trust import TrustDecision

    _, diags = WskitHooks(pm).resource_sources(Binding.discover(tmp_path), wskit_profile,
                                               TrustDecision(path="/", state="unknown"))
    assert [d.code for d in diags] == ["bad-contribution"]


def test_strict_mode_reraises_hook_errors(wskit_profile, tmp_path):
    class Bad:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            raise ValueError("kaput")

    pm = make_plugin_manager(load_entrypoints=False, env={"WSKIT_STRICT_PLUGINS": "1"})
    pm.register(Bad(), name="bad")
    from wskit.binding import Binding
    from wskit.trust import TrustDecision

    with pytest.raises(ValueError):
        WskitHooks(pm).resource_sources(Binding.discover(tmp_path), wskit_profile,
                                        TrustDecision(path="/", state="unknown"))


def test_every_hookspec_has_a_facade_method_or_generic_call():
    from wskit.plugin import spec

    specs = [n for n in dir(spec) if n.startswith("wskit_")]
    assert len(specs) >= 16
    for name in specs:
        assert (getattr(spec, name).__doc__ or "").strip(), f"{name} has no docstring"


def test_importing_wskit_is_lazy():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", "import sys, wskit, wskit.cli; print(sorted(m for m in ('pluggy','pydantic','yaml') if m in sys.modules))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert out == "[]"


def test_strict_plugins_failure_in_wsctl_is_one_error_line_for_help_too(site, monkeypatch, capsys):
    """Under WSKIT_STRICT_PLUGINS a plugin that fails to load is a one-line error for
    ``wsctl --help`` as for ``wsctl inspect``, not a traceback."""
    from wskit.cli import main

    fake_dist(site, "wskit-fake-broken3", "wskit_fake_broken3", "raise ImportError('nope')\n", "broken3")
    monkeypatch.setenv("WSKIT_STRICT_PLUGINS", "1")
    for argv in (["--help"], ["inspect", str(site)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "wskit-fake-broken3" in err and "Traceback" not in err


def test_disable_plugins_warns_once_about_names_that_match_no_plugin(site, capsys):
    """WSKIT_DISABLE_PLUGINS=nosuch is not accepted in silence: a typo leaves the
    plugin loaded. Built-ins and entry-point names are known (a
    blocked entry point too); a distribution name is not a plugin name."""
    fake_dist(site, "wskit-fake-good", "wskit_fake_good", GOOD, "good")
    pm = make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "nosuch, skills,good,wskit-fake-good,nosuch"})
    assert pm.is_blocked("nosuch") and pm.get_plugin("skills") is None and pm.get_plugin("good") is None
    err = capsys.readouterr().err
    assert err.count("WSKIT_DISABLE_PLUGINS") == 1
    assert "no plugin called 'nosuch', 'wskit-fake-good'" in err
    make_plugin_manager(env={"WSKIT_DISABLE_PLUGINS": "skills,good"})
    assert "WSKIT_DISABLE_PLUGINS" not in capsys.readouterr().err
    # without the entry-point scan nothing can be said about a name
    make_plugin_manager(load_entrypoints=False, env={"WSKIT_DISABLE_PLUGINS": "nosuch"})
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("marker", [{"wrapper": True}, {"hookwrapper": True}])
def test_hook_wrappers_are_refused_not_dropped(marker, site):
    """The facade calls implementations one by one and could never run a wrapper: a
    plugin holding one is refused at registration (rolled back), and as an entry point
    it is a load failure, not a plugin that silently does nothing."""
    import pluggy

    class Wrapping:
        @wskit.hookimpl(**marker)
        def wskit_resource_sources(self, binding, profile, trust):
            yield

    pm = make_plugin_manager(load_entrypoints=False)
    plugin = Wrapping()
    with pytest.raises(pluggy.PluginValidationError, match="wrapper"):
        pm.register_checked(plugin, "wrapping")
    assert not pm.is_registered(plugin)
    flag = "wrapper=True" if "wrapper" in marker else "hookwrapper=True"
    fake_dist(site, "wrap-dist", "wrapmod", f"""
        import wskit

        @wskit.hookimpl({flag})
        def wskit_resource_sources(binding, profile, trust):
            yield
        """, "wrapping")
    pm = make_plugin_manager(env={"WSKIT_LOAD_PLUGINS": "wrapping"})
    assert [f.name for f in pm.load_failures] == ["wrapping"]
    assert "wrapper" in pm.load_failures[0].error


ODD = '''
import functools

import wskit

marker = wskit.hookimpl


@wskit.hookimpl
def wskit_resource_sources(binding, profile, trust):
    return []


@wskit.hookimpl(specname="wskit_resource_kinds")
def wskit_kinds_by_another_name():
    return []


def wskit_host_profiles():  # no marker: not an implementation
    return []


def wskit_trust_decision(source_root, store, profile):
    return None


wskit_trust_decision.wskit_impl = "not a dict"  # a marker that is not a dict: not an implementation


@wskit.hookimpl
def wskit_builtin_styles():
    return []


wskit_builtin_styles.__func__ = None  # an attribute pluggy's lookup may read: left to pluggy


wskit_partial = functools.partial(print)  # callable, not a function
wskit_number = 3


class Holder:
    @staticmethod
    @wskit.hookimpl
    def wskit_load_skills(source):
        return None


wskit_holder = Holder


def __getattr__(name):  # a lazily exported name: never looked up by the registration
    if name == "wskit_lazy":
        raise AssertionError("registration evaluated a lazy export")
    raise AttributeError(name)


def __dir__():
    return sorted(list(globals()) + ["wskit_lazy"])
'''


def test_the_fast_hookimpl_lookup_answers_as_pluggy_for_every_attribute_of_every_plugin(site):
    """``WskitPluginManager.parse_hookimpl_opts`` reads a module function's marker itself;
    for every attribute of every plugin (built-ins, the installed first-party plugins, a
    module of odd attributes, an instance and a class) it answers what pluggy's own lookup
    answers, and the hook callers ``register_checked`` checks are pluggy's
    ``get_hookcallers``."""
    import importlib

    import pluggy

    from wskit.plugin.manager import WskitPluginManager

    (site / "wskit_fake_odd.py").write_text(ODD)
    odd = importlib.import_module("wskit_fake_odd")

    class Instance:
        @wskit.hookimpl
        def wskit_resource_sources(self, binding, profile, trust):
            return []

        @staticmethod
        @wskit.hookimpl
        def wskit_load_skills(source):
            return None

    pm = make_plugin_manager()
    plugins = [p for _, p in pm.list_name_plugin()] + [odd, Instance(), Instance]
    plain = pluggy.PluginManager("wskit")
    checked = 0
    for plugin in plugins:
        for name in dir(plugin):
            if not name.startswith("wskit_") or name == "wskit_lazy":
                continue
            ours = WskitPluginManager().parse_hookimpl_opts(plugin, name)
            assert ours == plain.parse_hookimpl_opts(plugin, name), (plugin, name)
            checked += ours is not None
    assert checked > 60  # the built-ins' implementations were among them
    assert WskitPluginManager().parse_hookimpl_opts(odd, "wskit_kinds_by_another_name")["specname"] == \
        "wskit_resource_kinds"
    assert WskitPluginManager().parse_hookimpl_opts(odd, "wskit_trust_decision") is None
    assert WskitPluginManager().parse_hookimpl_opts(odd, "wskit_builtin_styles") == \
        plain.parse_hookimpl_opts(odd, "wskit_builtin_styles")
    for plugin in (odd, Instance()):
        pm.register_checked(plugin, f"extra-{id(plugin)}")
    for _, plugin in pm.list_name_plugin():
        mine = {hc.name for hc in pm.get_hookcallers(plugin)}
        assert mine == {hc.name for hc in vars(pm.hook).values()
                        if any(i.plugin is plugin for i in hc.get_hookimpls())}
    assert {hc.name for hc in pm.get_hookcallers(odd)} == {"wskit_resource_sources", "wskit_resource_kinds",
                                                           "wskit_builtin_styles"}


def test_an_unknown_hook_under_another_spec_name_is_refused_and_rolled_back():
    import pluggy

    class Unknown:
        @wskit.hookimpl(specname="wskit_no_such_hook")
        def wskit_something(self):
            return None

    pm = make_plugin_manager(load_entrypoints=False)
    plugin = Unknown()
    with pytest.raises(pluggy.PluginValidationError, match="unknown hook 'wskit_no_such_hook'"):
        pm.register_checked(plugin, "unknown")
    assert not pm.is_registered(plugin)
