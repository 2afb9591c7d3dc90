"""Model resources per source project (reference/blade.md §2, WorkspaceModelResources):
what a host resolves and passes to the session runtime (``RuntimeOptions.models``).

:func:`resolve_model_resources` reads the settings layers through the one settings reader
(:func:`wskit.formats.settings.read_layers`), lowest first::

    <home>/.<host>/config.json, <home>/.<host>/settings.json          (user: always)
    <project>/.<host>/config.json, settings.json, settings.local.json (only when trusted)

- ``models`` (a list) is replaced wholesale by a later layer that sets it;
- ``modelProviders`` (an object) is merged by provider id (a later layer's entry wins);
- ``model`` (the current model id) and other scalars overwrite;
- an *untrusted* project's files are not read at all: nothing in them applies, not
  even ``disableAllHooks`` (switching the user's guard hooks off is a change too);
  each file that exists is named in a ``settings-untrusted`` warning;
- ``<HOST>_MODEL`` in ``env`` selects a model by id, ``model`` or ``alias``; a current id
  that names no model falls back to the first model's id (or ``""``).

The result holds a *session-private* :class:`ModelCatalog`; the only object
shared between catalogs (and snapshots) is the :class:`CredentialStore` the host
passes, so two projects can define the same provider id with different base
URLs in one process. Bad files become diagnostics, never exceptions.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wskit.errors import UnknownResourceError
from wskit.formats.settings import SettingsLayer, all_hooks_disabled, hooks_switched_off_by, read_layers
from wskit.models import Diagnostic
from wskit.values import FrozenValue, field

__all__ = [
    "CredentialStore", "ModelCatalog", "ModelResources", "models_for",
    "resolve_model_resources"
]


class CredentialStore:
    """API keys by provider id, owned by the host and shared by every catalog.

    Thread-safe; the host may subclass it (keyring, vault…) overriding :meth:`get`.
    """

    def __init__(self, initial: Mapping[str, str] | None = None) -> None:
        self._data = dict(initial or {})
        self._lock = threading.Lock()

    def get(self, provider_id: str) -> str | None:
        """The secret for ``provider_id`` or None."""
        with self._lock:
            return self._data.get(provider_id)

    def set(self, provider_id: str, secret: str) -> None:
        """Store ``secret`` for ``provider_id``."""
        with self._lock:
            self._data[provider_id] = secret


class ModelCatalog(FrozenValue):
    """A session-private view of models and providers.

    :ivar models: model entries (dicts with at least ``id`` and ``provider``).
    :ivar providers: provider id → provider entry (``baseUrl``…).
    :ivar current: the selected model id (may be ``""``).
    :ivar credentials: the shared :class:`CredentialStore`.
    """

    models: tuple[dict[str, Any], ...]
    providers: Mapping[str, dict[str, Any]]
    current: str
    credentials: CredentialStore

    def model(self, name: str | None = None) -> dict[str, Any]:
        """The model named by id, ``model`` or ``alias`` (default: the current one).

        :raises UnknownResourceError: no model answers.
        """
        name = name or self.current
        for m in self.models:
            if name in (m.get("id"), m.get("model"), m.get("alias")):
                return copy.deepcopy(m)
        raise UnknownResourceError("model", name or "<none>", [m.get("id", "") for m in self.models])

    def provider(self, provider_id: str) -> dict[str, Any]:
        """The provider entry. :raises UnknownResourceError: unknown id."""
        if provider_id not in self.providers:
            raise UnknownResourceError("model provider", provider_id, self.providers)
        return copy.deepcopy(self.providers[provider_id])

    def endpoint(self, name: str | None = None) -> dict[str, Any]:
        """``{"model", "provider", "base_url", "api_key"}`` for a model (api_key from the credential store)."""
        m = self.model(name)
        pid = m.get("provider", "")
        prov = self.providers.get(pid, {})
        return {"model": m.get("model", m.get("id")), "provider": pid,
                "base_url": prov.get("baseUrl") or prov.get("base_url"), "api_key": self.credentials.get(pid)}


class ModelResources(FrozenValue):
    """Model resources of one source project.

    :ivar project_root: the source project. :ivar config: the merged settings
        (``models``, ``modelProviders``, ``model``, ``disableAllHooks``…; deep copies).
    :ivar catalog: the session-private :class:`ModelCatalog`.
    :ivar layers: files read, in order. :ivar diagnostics: bad or ignored layers.
    :ivar hooks_disabled: a layer sets ``disableAllHooks: true``.
    :ivar hooks_switched_off_by: the project or local file that did so while no higher layer
        did (:func:`wskit.formats.settings.hooks_switched_off_by`), else None.
    """

    project_root: str
    config: Mapping[str, Any]
    catalog: ModelCatalog
    layers: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)
    hooks_disabled: bool = False
    hooks_switched_off_by: str | None = None

    @property
    def disable_all_hooks(self) -> bool:
        """Whether a layer read (or the invocation settings) sets ``disableAllHooks: true``
        (:func:`wskit.formats.settings.all_hooks_disabled`, the one reading of the switch)."""
        return self.hooks_disabled

    def snapshot(self) -> "ModelResources":
        """A copy with its own config and catalog, sharing only the credential store (Blade)."""
        return _build(self.project_root, copy.deepcopy(dict(self.config)), self.catalog.credentials,
                      self.layers, self.diagnostics, self.hooks_disabled, self.hooks_switched_off_by)


def _check(data: dict[str, Any], path: str) -> list[Diagnostic]:
    out = []
    if "models" in data and (not isinstance(data["models"], list) or
                             not all(isinstance(m, dict) and isinstance(m.get("id"), str) for m in data["models"])):
        out.append(Diagnostic(level="error", code="settings-invalid-models", path=path,
                              message="'models' must be a list of objects with a string 'id'; layer's models ignored"))
        data.pop("models")
    if "modelProviders" in data and (not isinstance(data["modelProviders"], dict) or
                                     not all(isinstance(v, dict) for v in data["modelProviders"].values())):
        out.append(Diagnostic(level="error", code="settings-invalid-providers", path=path,
                              message="'modelProviders' must map ids to objects; layer's providers ignored"))
        data.pop("modelProviders")
    return out


def resolve_model_resources(home: str | Path, project_root: str | Path, *, host: str = "wskit", trusted: bool,
                            credentials: CredentialStore, env: Mapping[str, str] | None = None,
                            extra: Mapping[str, Any] | None = None) -> ModelResources:
    """Resolve the model resources of ``project_root`` (see the module docstring).

    :param home: the user home (never read implicitly). :param host: host name (``.<host>/`` folders).
    :param trusted: the project's trust decision. :param credentials: the shared store.
    :param env: variables for ``<HOST>_MODEL`` (default: none). :param extra: invocation settings, last layer.
    """
    home, root = Path(home), Path(project_root)
    hd = f".{host}"
    config: dict[str, Any] = {"models": [], "modelProviders": {}, "model": ""}
    plan = [(str(home), f"{hd}/{n}", "user") for n in ("config.json", "settings.json")]
    plan += [(str(root), f"{hd}/{n}", "project") for n in ("config.json", "settings.json")]
    plan.append((str(root), f"{hd}/settings.local.json", "local"))
    found, diags = read_layers(plan, trusted=trusted)
    layers: list[str] = []
    for layer in found:
        data = copy.deepcopy(layer.data)
        layers.append(str(layer.path))
        diags.extend(_check(data, str(layer.path)))
        _overlay(config, data)
    if extra:
        _overlay(config, copy.deepcopy(dict(extra)))
    want = (env or {}).get(f"{host.upper().replace('-', '_')}_MODEL")
    if want:
        hit = next((m for m in config["models"] if want in (m.get("id"), m.get("model"), m.get("alias"))), None)
        if hit is not None:
            config["model"] = hit["id"]
    invocation = [SettingsLayer(scope="invocation", path=None, data=dict(extra))] if extra else []
    return _build(str(root), config, credentials, tuple(layers), tuple(diags),
                  all_hooks_disabled([*found, *invocation]), hooks_switched_off_by([*found, *invocation]))


def _overlay(config: dict[str, Any], data: dict[str, Any]) -> None:
    for k, v in data.items():
        if k == "modelProviders" and isinstance(v, dict):
            config["modelProviders"] = {**config.get("modelProviders", {}), **copy.deepcopy(v)}
        else:
            config[k] = copy.deepcopy(v)


def _build(root: str, config: dict[str, Any], credentials: CredentialStore, layers, diags,
           hooks_disabled: bool = False, switched_off_by: str | None = None) -> ModelResources:
    models = tuple(copy.deepcopy(m) for m in config.get("models", []))
    ids = [m["id"] for m in models]
    if config.get("model") not in ids:
        config["model"] = ids[0] if ids else ""
    catalog = ModelCatalog(models=models, providers=copy.deepcopy(config.get("modelProviders", {})),
                           current=config["model"], credentials=credentials)
    return ModelResources(project_root=root, config=config, catalog=catalog, layers=layers, diagnostics=diags,
                          hooks_disabled=hooks_disabled, hooks_switched_off_by=switched_off_by)


def models_for(workspace: Any, credentials: CredentialStore, *, env: Mapping[str, str] | None = None,
               extra: Mapping[str, Any] | None = None) -> ModelResources:
    """:func:`resolve_model_resources` for a :class:`~wskit.workspace.WorkspaceResources`:
    its user home, host name, source project and trust decision."""
    profile = workspace.profile
    return resolve_model_resources(profile.require_home(), workspace.binding.source_root, host=profile.name,
                                   trusted=workspace.trust.trusted, credentials=credentials, env=env, extra=extra)
