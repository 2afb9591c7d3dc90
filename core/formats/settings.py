"""Settings layers read for plugin enablement, hooks and server definitions.

Layers, lowest first (Claude Code §1.8, Blade §8.4): ``user``
(``~/.claude/settings.json``, ``~/.<host>/settings.json``), ``project``
(``<ws>/.claude/settings.json``, ``<ws>/.<host>/settings.json``), ``local``
(the ``settings.local.json`` files), ``invocation`` (the host's
``profile.settings["enabled_plugins"]`` and ``["permissions"]``), ``managed`` (the
administrator's file the host names, ``profile.settings["managed_settings"]``, as
Claude Code's managed settings: read first, applied last, so it wins every
"later wins" merge and no other layer overrides it). Project and local layers of an
untrusted project are *not read*: nothing in them applies (hooks,
``disableAllHooks``, plugin enablement, models, servers, permissions), since
switching a user's guard or plugin off is as much a change as switching one on.
Each such file that exists is named in a ``settings-untrusted`` warning.
"""


import os
from typing import Any

from wskit.binding import Binding
from wskit.fs.jsonfile import read_json
from wskit.host import HostProfile
from wskit.models import Diagnostic, Frozen
from wskit.trust import TrustDecision

__all__ = ["all_hooks_disabled", "hooks_switched_off_by", "config_dirs", "managed_layer", "read_layers", "settings_layers", "SettingsLayer"]


class SettingsLayer(Frozen):
    """One settings file (or the invocation settings).

    :ivar scope: ``user``, ``project``, ``local``, ``invocation`` or ``managed``.
    :ivar path: absolute file path (None for the invocation layer).
    :ivar data: the JSON object read.
    :ivar trusted: always True for layers :func:`settings_layers` returns (an untrusted
        project's layers are not returned); kept for callers that build layers themselves.
    """

    scope: str
    path: str | None
    data: dict[str, Any]
    trusted: bool = True


def config_dirs(profile: HostProfile) -> list[str]:
    """Config folder names read, lowest precedence first: ``.claude`` (if on) then ``.<host>``."""
    out = [".claude"] if profile.claude_conventions else []
    if profile.host_dir not in out:
        out.append(profile.host_dir)
    return out


def managed_layer(profile: HostProfile) -> tuple[SettingsLayer | None, list[Diagnostic]]:
    """The managed (administrator) settings the host names in
    ``profile.settings["managed_settings"]`` (an absolute path; Claude Code's
    ``managed-settings.json``), or None when none is named.

    :returns: ``(layer, diagnostics)``; a named file that does not exist, cannot be read
        or is not a JSON object gives no layer and a ``managed-settings-invalid`` error
        naming it, and every caller fails closed on it: a typo in the path an
        administrator's policy is read from is not taken as "no policy".
    """
    import os

    named = profile.settings.get("managed_settings")
    if not named:
        return None, []
    path = os.path.abspath(os.path.expanduser(str(named)))
    data, diags = read_json(os.path.dirname(path), os.path.basename(path), follow_links=True,
                            missing_ok=False)
    if diags or not isinstance(data, dict):
        why = diags[0].message if diags else "must hold a JSON object"
        return None, [Diagnostic(level="error", code="managed-settings-invalid", path=path,
                                 message=f"managed settings cannot be used: {why}")]
    return SettingsLayer(scope="managed", path=path, data=data), []


def read_layers(plan: "list[tuple[str, str, str]]", *, trusted: bool) -> tuple[list[SettingsLayer], list[Diagnostic]]:
    """The settings files of ``plan`` that exist, in plan order: the one reader of settings
    layers (plugin enablement, hooks, servers and permissions through :func:`settings_layers`,
    model resources through :func:`wskit.session.providers.resolve_model_resources`).

    :param plan: ``(base, rel, scope)`` per file, lowest precedence first; a ``user``
        file's links are followed (the user's own folder), any other scope's are refused.
    :param trusted: the project's trust decision; when false, files of every scope but
        ``user`` are not read and each that exists is named in a ``settings-untrusted``
        warning.
    :returns: ``(layers, diagnostics)``: a file that is unreadable or not JSON gives its
        safe-file-access code or ``invalid-json``, one that holds no object
        ``settings-invalid``; the other files still count.
    """
    layers: list[SettingsLayer] = []
    diags: list[Diagnostic] = []
    for base, rel, scope in plan:
        path = f"{base}/{rel}"
        if scope != "user" and not trusted:
            if os.path.lexists(path):
                diags.append(Diagnostic(level="warning", code="settings-untrusted", path=path,
                                        message="project is not trusted: this settings file is not read and "
                                                "nothing in it applies"))
            continue
        data, d = read_json(base, rel, follow_links=scope == "user")
        diags.extend(d)
        if data is None:
            continue
        if not isinstance(data, dict):
            diags.append(Diagnostic(level="error", code="settings-invalid", path=path,
                                    message="settings file must hold a JSON object"))
            continue
        layers.append(SettingsLayer(scope=scope, path=path, data=data))
    return layers, diags


def settings_layers(binding: Binding | None, profile: HostProfile, trust: TrustDecision | None
                    ) -> tuple[list[SettingsLayer], list[Diagnostic]]:
    """Every settings layer that exists, lowest precedence first.

    :param binding: the workspace (None: user and invocation layers only).
    """
    home = str(profile.require_home())
    diags: list[Diagnostic] = []
    managed, d = managed_layer(profile)  # read before the user's settings, applied after all
    diags.extend(d)
    plan: list[tuple[str, str, str]] = [(home, f"{d}/settings.json", "user") for d in config_dirs(profile)]
    if binding is not None:
        root = str(binding.source_root)
        plan += [(root, f"{d}/settings.json", "project") for d in config_dirs(profile)]
        plan += [(root, f"{d}/settings.local.json", "local") for d in config_dirs(profile)]
    layers, d = read_layers(plan, trusted=bool(trust and trust.trusted))
    diags.extend(d)
    inv = {key: profile.settings.get(name) for key, name in (("enabledPlugins", "enabled_plugins"),
                                                               ("permissions", "permissions"))}
    inv = {k: v for k, v in inv.items() if isinstance(v, dict)}
    if inv:
        layers.append(SettingsLayer(scope="invocation", path=None, data=inv))
    if managed is not None:
        layers.append(managed)
    return layers, diags


def all_hooks_disabled(layers: "list[SettingsLayer]") -> bool:
    """Whether ``disableAllHooks: true`` is set by a trusted layer of ``layers``: the one
    reading of that switch (the hooks built-in for a workspace's layers, model resources
    for theirs). Any layer switches hooks off and a later ``false`` does not switch them
    back on (Claude Code, Blade §11.2); an untrusted project's layers are never read."""
    return any(layer.trusted and layer.data.get("disableAllHooks") is True for layer in layers)


#: Settings scopes above a project's: their hooks are the user's (or an administrator's) guards.
HIGHER_SCOPES = frozenset({"user", "managed", "invocation"})


def hooks_switched_off_by(layers: "list[SettingsLayer]") -> str | None:
    """The file of the project or local layer that sets ``disableAllHooks: true`` while no
    layer above it (user, managed, invocation) does, or None. Claude Code 2.1.337 lets such
    a layer switch the user's own hooks off (recorded case ``project-disable-all-hooks``);
    wskit does too, but a guard never switches off silently: the runner reports each
    higher-layer guard it switched off as not decided, naming this file (docs/hooks.md)."""
    on = [layer for layer in layers if layer.trusted and layer.data.get("disableAllHooks") is True]
    if not on or any(layer.scope in HIGHER_SCOPES for layer in on):
        return None
    return str(on[0].path)
