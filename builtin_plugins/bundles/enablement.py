"""Plugin enablement and dependencies (Blade reference/blade.md §8.4–8.5).

``enabledPlugins`` maps (``{"name": true}`` or ``{"name@marketplace": false}``)
are applied layer by layer, later wins: user < project < local < invocation < managed
(an administrator's ``false`` also switches off a plugin named on the command line).
A layer of an untrusted project changes nothing (settings_layers does not
read one; a layer flagged ``trusted=False`` is skipped). Explicit (``cli``) plugins are
always active. A plugin Claude Code installed (``Bundle.needs_enable``) is off
until a layer enables it, as in Claude Code. Then dependencies are resolved to a fixed point: a missing
dependency (``dependency-missing``), one whose version does not satisfy the
npm-style range (``dependency-version``, via node-semver) or one that is not
active (``dependency-inactive``) puts the dependent plugin in state
``error``; this cascades transitively.

A plugin of the user (or an administrator) that only a project or local layer switches
off — a layer above enables it, or it is on by default — is ``inactive`` as in Claude Code
(recorded case ``plugin-guard-off``), and :attr:`Bundle.switched_off_by` names that file:
its guards are the user's, so they are still loaded and reported ``switched-off`` (not
decided) rather than vanishing silently (docs/hooks.md).
"""

from __future__ import annotations

from wskit.builtin_plugins.bundles.discovery import Bundle
from wskit.builtin_plugins.bundles.manifest import NAME_RE, satisfies
from wskit.formats.settings import SettingsLayer
from wskit.models import Diagnostic


def valid_enable_key(key: object) -> bool:
    """Whether ``key`` is an ``enabledPlugins`` key this reader accepts: a plugin name
    (kebab-case, :data:`~wskit.builtin_plugins.bundles.manifest.NAME_RE`), optionally followed by
    ``@marketplace``. The marketplace part is not checked here (a plugin without a
    marketplace matches any); ``wsctl plugins enable|disable`` checks it too
    (:func:`valid_enable_name`). A trailing newline, which ``NAME_RE``'s ``$``
    lets through, is refused."""
    name = str(key).partition("@")[0]
    return NAME_RE.match(name) is not None and not name.endswith("\n")


def valid_enable_name(key: str) -> bool:
    """Whether ``wsctl plugins enable|disable`` may write ``key``: accepted by
    :func:`valid_enable_key`, and when it has ``@marketplace``, a marketplace part
    that is a valid marketplace name (kebab-case, as ``marketplace.json`` names
    must be), so what is written is never reported ``settings-invalid`` later and
    can match a marketplace."""
    if not valid_enable_key(key):
        return False
    _, sep, market = key.partition("@")
    return not sep or (NAME_RE.match(market) is not None and not market.endswith("\n"))


def _matches(key: str, bundle: Bundle) -> bool:
    name, _, market = key.partition("@")
    return name == bundle.name and (not market or bundle.marketplace in (None, market))


#: Layer scopes below the user's: a plugin of the user they switch off keeps its guards visible.
LOWER_SCOPES = frozenset({"project", "local"})


def _decided(bundle: Bundle, layer: SettingsLayer | None, guards: bool = False) -> Diagnostic:
    """The ``plugin-disabled`` note of an inactive bundle: which layer switched it off
    (``guards``: a project or local layer switched off a plugin of the user's, whose hooks
    are then reported ``switched-off``)."""
    if layer is None:
        why = "its manifest sets defaultEnabled: false"
    else:
        why = f"disabled by {layer.scope} settings" + (f" ({layer.path})" if layer.path else "")
    if guards:
        why += "; its hooks are the user's guards: reported switched-off (not decided), not dropped"
    return Diagnostic(level="info", code="plugin-disabled", path=layer.path if layer else bundle.root,
                      plugin=bundle.name, message=why)


def _as_map(value) -> dict:
    return value if isinstance(value, dict) else {}


def apply_enablement(bundles: list[Bundle], layers: list[SettingsLayer]) -> tuple[list[Bundle], list[Diagnostic]]:
    """Decide ``active``/``inactive`` for bundles not already in ``error``.

    :returns: ``(bundles, diagnostics)`` in the same order.
    """
    diags: list[Diagnostic] = []
    wanted: list[tuple[str, bool, SettingsLayer]] = []  # in layer order: the last match wins
    for layer in layers:
        if not layer.trusted:  # disabling a user's plugin is a change too: an untrusted layer makes none
            continue
        emap = layer.data.get("enabledPlugins")
        if emap is None:
            continue
        if not isinstance(emap, dict):
            diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                    message="'enabledPlugins' must be an object of name -> boolean"))
            continue
        for key, value in emap.items():
            if not isinstance(value, bool) or not valid_enable_key(key):
                diags.append(Diagnostic(level="error", code="settings-invalid", path=layer.path,
                                        message=f"enabledPlugins entry {key!r}: invalid plugin name or non-boolean value"))
                continue
            wanted.append((key, value, layer))
    managed_off = [(key, layer) for layer in layers if layer.scope == "managed"
                   for key, value in _as_map(layer.data.get("enabledPlugins")).items() if value is False]
    out: list[Bundle] = []
    for b in bundles:
        if b.origin == "cli" and b.state != "error" and any(_matches(k, b) for k, _ in managed_off):
            # an administrator's "off" holds even for a folder named on the command line
            out.append(b.with_state("inactive", _decided(b, managed_off[0][1])))
            continue
        if b.state == "error" or b.origin == "cli":
            out.append(b)
            continue
        enabled = False if b.needs_enable else (b.manifest.default_enabled if b.manifest else True)
        decided = None
        above = enabled  # what the layers above the project's say, alone
        for key, value, layer in wanted:
            if _matches(key, b):
                enabled, decided = value, layer
                if layer.scope not in LOWER_SCOPES:
                    above = value
        if not enabled and decided is None and b.needs_enable:
            out.append(b.with_state("inactive", Diagnostic(
                level="info", code="plugin-disabled", path=b.root, plugin=b.name,
                message=f"installed by Claude Code but enabled by no settings file "
                        f"(enabledPlugins[\"{b.name}@{b.marketplace}\"]), as Claude Code leaves it off")))
            continue
        if not enabled and above and decided is not None and decided.scope in LOWER_SCOPES \
                and b.origin in ("user", "managed"):
            # the user's plugin, switched off by the project: off as in Claude Code, never silently
            out.append(b.with_state("inactive", _decided(b, decided, guards=True)).model_copy(
                update={"switched_off_by": str(decided.path)}))
            continue
        out.append(b if enabled else b.with_state("inactive", _decided(b, decided)))
    return out, diags


def resolve_dependencies(bundles: list[Bundle]) -> list[Bundle]:
    """Put active bundles with unmet dependencies in state ``error``, to a fixed point."""
    by_name = {b.name: b for b in bundles}
    changed = True
    while changed:
        changed = False
        for name, b in list(by_name.items()):
            if b.state != "active" or b.manifest is None:
                continue
            for dep, rng in b.manifest.dependencies:
                other = by_name.get(dep)
                if other is None:
                    code, msg = "dependency-missing", f"Missing dependency {dep}@{rng}"
                elif not satisfies(other.version, rng):
                    code, msg = "dependency-version", f"dependency {dep} is version {other.version or 'unknown'}, " \
                                                      f"which does not satisfy {rng}"
                elif other.state != "active":
                    code, msg = "dependency-inactive", f"dependency {dep} is {other.state}"
                else:
                    continue
                by_name[name] = b.with_state("error", Diagnostic(level="error", code=code, path=b.root,
                                                                  plugin=name, message=msg))
                changed = True
                break
    return [by_name[b.name] for b in bundles]
