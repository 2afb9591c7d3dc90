"""Finding content plugins and reading their manifests (Blade reference/blade.md
§8.1, §8.3; Claude Code reference/conventions.md §1.10).

Ranking, lowest first (a later bundle of the same name replaces an earlier
one, reported as ``plugin-shadowed``): user ``~/.claude/plugins/*`` and the plugins
Claude Code installed (``~/.claude/plugins/installed_plugins.json``) <
user ``~/.<host>/plugins/*`` < managed installs < project
``<ws>/.claude/plugins/*`` < project ``<ws>/.<host>/plugins/*`` (trusted
only) < explicit directories (``profile.settings["plugin_dirs"]``,
``wsctl --plugin-dir``), which are never overridden.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made.

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wskit import fs
from wskit.binding import Binding
from wskit.builtin_plugins.bundles.ledger import CLAUDE_BOOKKEEPING, LedgerError, read_ledger, tree_digest
from wskit.builtin_plugins.bundles.manifest import Manifest, component_table, parse_manifest
from wskit.fs.jsonfile import read_json
from wskit.fs.names import not_utf8, shown_path, undecodable
from wskit.host import HostProfile
from wskit.models import Diagnostic, Frozen
from wskit.trust import TrustDecision

if TYPE_CHECKING:  # imported where a plugin folder is read (none in an empty workspace)
    from wskit.builtin_plugins.bundles.marketplace import MarketplaceEntry
    from wskit.kinds import ResourceKind
from wskit.formats.settings import SettingsLayer, config_dirs

BundleState = Literal["active", "inactive", "error"]
#: Source ranks of plugin bundles (above native project folders 20-22, below admin 40).
RANKS = {"user:.claude": 30, "user:host": 31, "managed": 32, "project:.claude": 33, "project:host": 34, "cli": 35}


class Bundle(Frozen):
    """One content plugin found for a workspace.

    :ivar origin: ``cli``, ``project``, ``managed`` or ``user``.
    :ivar manifest_source: ``host`` (``.<host>-plugin``), ``claude``, ``marketplace``
        (a ``strict: false`` entry) or None when no manifest was found.
    :ivar state: ``active``, ``inactive`` or ``error`` (``issues`` say why).
    :ivar issues: diagnostics about this plugin (errors explain ``error``).
    :ivar needs_enable: active only when a settings layer enables it
        (``enabledPlugins``): a plugin Claude Code installed, which Claude Code 2.1.332
        loads only while some user, project or local settings file enables it.
    :ivar switched_off_by: for a plugin of the user or an administrator (``origin``
        ``user`` or ``managed``) that a lower-trust source switched off: the project or local
        settings file whose ``enabledPlugins`` switched it (``inactive``) or a plugin it
        depends on (``error``) off, or the project's plugin folder that replaced it or a
        plugin it depends on. Its hooks are still loaded and reported ``switched-off``
        (:func:`~wskit.builtin_plugins.bundles.enablement.apply_enablement`,
        :func:`~wskit.builtin_plugins.bundles.active.find_bundles`).
    """

    name: str
    root: str
    origin: str
    label: str
    rank: int
    version: str | None = None
    description: str = ""
    manifest_path: str | None = None
    manifest_source: str | None = None
    marketplace: str | None = None
    manifest: Manifest | None = None
    state: BundleState = "active"
    issues: tuple[Diagnostic, ...] = ()
    needs_enable: bool = False
    switched_off_by: str | None = None

    def with_state(self, state: BundleState, issue: Diagnostic | None = None) -> "Bundle":
        """A copy in ``state`` with ``issue`` appended."""
        issues = self.issues + ((issue,) if issue is not None else ())
        return self.model_copy(update={"state": state, "issues": issues})


def read_manifest(root: str, profile: HostProfile | None = None, *, entry: "MarketplaceEntry | None" = None,
                  search_marketplace: bool = True, kinds: "Iterable[ResourceKind] | None" = None
                  ) -> tuple[Manifest | None, dict[str, Any], list[Diagnostic]]:
    """Read the manifest of the plugin folder ``root``.

    Looks for ``.<host>-plugin/plugin.json`` then ``.claude-plugin/plugin.json``;
    with a marketplace ``entry`` (or one found above ``root``) merges it per
    :func:`~wskit.builtin_plugins.bundles.marketplace.entry_manifest`.

    :param kinds: the registered resource kinds; their manifest keys are the
        component keys (default :func:`wskit.plugin.facade.builtin_kinds`).

    :returns: ``(manifest, info, diagnostics)``; ``info`` has ``manifest_path``,
        ``manifest_source`` and ``marketplace``.
    """
    dirs = []
    if profile is not None and profile.plugin_manifest_dir != ".claude-plugin":
        dirs.append((profile.plugin_manifest_dir, "host"))
    if profile is None or profile.claude_conventions or not dirs:
        dirs.append((".claude-plugin", "claude"))
    diags: list[Diagnostic] = []
    data = None
    info: dict[str, Any] = {"manifest_path": None, "manifest_source": None, "marketplace": None}
    for folder, kind in dirs:
        data, d = read_json(root, f"{folder}/plugin.json")
        diags.extend(d)
        if data is not None or d:
            info.update(manifest_path=os.path.join(root, folder, "plugin.json"), manifest_source=kind)
            break
    if data is None and diags:
        return None, info, diags
    from wskit.builtin_plugins.bundles.marketplace import entry_manifest, find_entry_for

    found = None
    if entry is None and search_marketplace:
        found = find_entry_for(root)
        if found is not None and (data is None or found[1].strict):
            mk, entry = found
            info["marketplace"] = mk.name
    if entry is not None:
        if data is not None and not entry.strict:
            comp = [k for k in component_table(kinds) if k in data]
            if comp:
                diags.append(Diagnostic(level="warning", code="manifest-conflict", path=info["manifest_path"],
                                        message=f"marketplace entry is strict: false but plugin.json declares {comp}; "
                                        "the entry is used"))
        if data is None or not entry.strict:
            info["manifest_source"] = "marketplace"
        if data is None and info["marketplace"] is not None:
            what = "a strict: false entry" if not entry.strict else "an entry"
            diags.append(Diagnostic(level="info", code="marketplace-defined", path=root,
                                    message=f"no plugin.json here: this plugin is {what} of marketplace "
                                    f"{info['marketplace']!r}, which defines it in {found[0].root}/"
                                    ".claude-plugin/marketplace.json"))
        data = entry_manifest(entry, data if isinstance(data, dict) else None, kinds)
    if data is None and has_components(root):
        # Claude Code 2.1.337 loads such a folder given with --plugin-dir, named after it
        diags.append(Diagnostic(level="info", code="manifest-from-folder", path=root,
                                message="no plugin.json: loaded named after its folder, as Claude Code loads a "
                                        "plugin folder without a manifest"))
        data = {"name": os.path.basename(root)}
    if data is None:
        diags.append(Diagnostic(level="error", code="no-manifest", path=root,
                                message=f"Not a valid plugin directory: {root} (no "
                                + " or ".join(f"{f}/plugin.json" for f, _ in dirs)
                                + " and no marketplace entry defines it)"))
        return None, info, diags
    manifest, d = parse_manifest(data, info["manifest_path"] or root, plugin_hint=os.path.basename(root), kinds=kinds)
    diags.extend(d)
    return manifest, info, diags


#: entries whose presence makes a folder without a manifest a plugin (``claude plugin
#: validate`` 2.1.337 accepts it; ``--plugin-dir`` loads it named after the folder)
COMPONENT_ENTRIES = ("skills", "commands", "agents", "hooks", "output-styles", ".mcp.json", ".lsp.json", "SKILL.md")


def has_components(root: str) -> bool:
    """Whether the folder ``root`` holds any of :data:`COMPONENT_ENTRIES` (files or folders
    a plugin brings without a manifest)."""
    return any(os.path.lexists(os.path.join(root, e)) for e in COMPONENT_ENTRIES)


def load_bundle(root: str, origin: str, label: str, rank: int, profile: HostProfile, *,
                ledger_record: dict[str, Any] | None = None, kinds: "Iterable[ResourceKind] | None" = None) -> Bundle:
    """Read one plugin folder into a :class:`Bundle` (state ``error`` when it cannot load).

    :param kinds: the registered resource kinds (see :func:`read_manifest`).
    """
    root = os.path.abspath(root)
    entry = None
    issues: list[Diagnostic] = []
    if ledger_record is not None:
        from wskit.builtin_plugins.bundles.marketplace import MarketplaceEntry

        raw = ledger_record.get("entry") or {"name": ledger_record.get("name"), "source": "./"}
        entry = MarketplaceEntry(name=str(raw.get("name")), source=raw.get("source"), source_kind="path",
                                 path=root, strict=raw.get("strict", True) is not False, installable=True, entry=raw)
    manifest, info, diags = read_manifest(root, profile, entry=entry, search_marketplace=ledger_record is None,
                                          kinds=kinds)
    issues.extend(diags)
    name = manifest.name if manifest else os.path.basename(root)
    if manifest is not None and info["manifest_path"] is not None and profile.claude_conventions:
        from wskit.builtin_plugins.bundles.manifest import claude_manifest_rejections

        claude = getattr(profile, "family", None) == "claude"
        for why in claude_manifest_rejections(manifest.raw):
            # Claude Code 2.1.337 loads none of such a plugin: host claude does the same, others load it
            # and warn (``plugins validate`` reports it an error, as ``claude plugin validate``)
            issues.append(Diagnostic(
                level="error" if claude else "warning", code="claude-manifest-rejected", path=info["manifest_path"],
                plugin=name, message=f"Claude Code rejects this manifest ({why}) and does not load the plugin"
                + ("" if claude else "; wskit loads it for this host")))
    if ledger_record is not None:
        info["marketplace"] = ledger_record.get("marketplace")
        try:
            actual = tree_digest(root)
        except OSError as err:
            actual = f"unreadable ({err})"
        if actual != ledger_record.get("digest"):
            issues.append(Diagnostic(level="error", code="managed-modified", path=root, plugin=name,
                                     message=f"managed plugin files do not match the ledger digest "
                                     f"{ledger_record.get('digest')} (now {actual}); reinstall it"))
        if manifest and manifest.name != ledger_record.get("name"):
            issues.append(Diagnostic(level="error", code="managed-identity", path=root, plugin=name,
                                     message=f"Managed plugin identity mismatch: {ledger_record.get('name')}"))
    failed = manifest is None or any(d.level == "error" for d in issues)
    return Bundle(
        name=name, root=root, origin=origin, label=label, rank=rank,
        version=manifest.version if manifest else None, description=manifest.description if manifest else "",
        manifest_path=info["manifest_path"], manifest_source=info["manifest_source"],
        marketplace=info["marketplace"], manifest=manifest, state="error" if failed else "active",
        issues=tuple(d.model_copy(update={"plugin": d.plugin or name}) for d in issues),
    )


def _subdirs(base: str, rel: str, follow: bool) -> tuple[list[str], list[Diagnostic]]:
    if undecodable(base) is not None:  # a home or project folder not UTF-8: reported once by the loader
        return [], []
    try:
        entries = fs.scan_dir(base, rel, follow_links=follow)
    except fs.SafeFsError as err:
        return [], ([] if err.code == "not-found" else [err.diagnostic()])
    out, diags = [], []
    for e in entries:
        full = os.path.join(base, rel, e.name)
        why = not_utf8(e.name)
        if why is not None and e.type in ("dir", "link"):
            diags.append(_not_utf8(full, why))
        elif e.type == "dir" and not e.name.startswith("."):
            out.append(full)
        elif e.type == "link":
            diags.append(Diagnostic(level="warning", code="symlink", path=full,
                                    message="plugin folder is a symbolic link; not followed here"))
    return out, diags


def _not_utf8(path: str, why: str) -> Diagnostic:
    # a plugin folder named so could not be named in JSON, a ledger or a session file
    return Diagnostic(level="error", code="name-not-utf8", path=shown_path(path),
                      message=f"plugin folder name {why}; not loaded")


#: Claude Code's install record, ``~/.claude/plugins/installed_plugins.json``
CLAUDE_INSTALLED = ".claude/plugins/installed_plugins.json"
#: Claude Code's record of the marketplaces it added, ``~/.claude/plugins/known_marketplaces.json``
#: (``{name: {"source": {...}, "installLocation", …}}``)
CLAUDE_KNOWN_MARKETPLACES = ".claude/plugins/known_marketplaces.json"


def _claude_installed(home: str, profile: HostProfile, kinds, managed_roots: set[str]
                      ) -> tuple[list[Bundle], list[Diagnostic]]:
    """The plugins ``claude plugin install`` installed: every record of
    ``installed_plugins.json`` (version 2: ``{"plugins": {"name@market": [{"scope",
    "projectPath", "installPath", "version", …}]}}``; version 1: one record per key), of
    any scope (``user``, ``project``, ``local``), loaded once per ``installPath`` when that
    is a folder below ``~/.claude/plugins`` (resolved path), with the marketplace of its
    key and :attr:`Bundle.needs_enable` set: as in Claude Code 2.1.332, the record says
    where the plugin is, and ``enabledPlugins["name@market"]`` in user, project or local
    settings whether it loads (a project-scope install is enabled by that project's
    ``.claude/settings.json``, which wskit reads only for a trusted project). Anything
    malformed is a ``claude-installed-invalid`` warning naming the entry."""
    data, diags = read_json(home, CLAUDE_INSTALLED, follow_links=True)
    out: list[Bundle] = []
    if data is None:
        return out, list(diags)
    diags = list(diags)
    path = os.path.join(home, CLAUDE_INSTALLED)

    def warn(msg: str) -> None:
        diags.append(Diagnostic(level="warning", code="claude-installed-invalid", path=path, message=msg))

    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        warn("'plugins' must be an object of name@marketplace -> install records")
        return out, diags
    base = os.path.realpath(os.path.join(home, ".claude", "plugins"))
    loaded: set[str] = set()
    known, _ = read_json(home, CLAUDE_KNOWN_MARKETPLACES, follow_links=True)
    known = known if isinstance(known, dict) else {}
    refused: dict[str, str] = {}
    for key, records in plugins.items():
        if not isinstance(key, str) or "@" not in key:
            warn(f"entry {key!r}: the key must be name@marketplace")
            continue
        market = key.rsplit("@", 1)[1]
        if market not in refused:
            from wskit.builtin_plugins.bundles.marketplace import marketplace_name_verdict

            spec = known.get(market)
            why = marketplace_name_verdict(market, spec.get("source") if isinstance(spec, dict) else None)
            refused[market] = why or ""
            if why:
                # a look-alike, or an official name whose recorded source is not a GitHub repository of
                # the anthropics organization: Claude Code 2.1.332 fails to load the marketplace, so none
                # of its plugins passes for Anthropic's own
                diags.append(Diagnostic(level="warning", code="marketplace-name-reserved",
                                        path=os.path.join(home, CLAUDE_KNOWN_MARKETPLACES),
                                        message=f"marketplace {market!r} of {key!r} ({path}) is not loaded, as "
                                                f"Claude Code refuses it: {why}"))
        if refused[market]:
            continue
        for rec in records if isinstance(records, list) else [records]:
            if not isinstance(rec, dict):
                warn(f"entry {key!r}: an install record must be an object")
                continue
            where = rec.get("installPath")
            real = os.path.realpath(where) if isinstance(where, str) and os.path.isabs(where) else None
            if real is None or not real.startswith(base + os.sep) or not os.path.isdir(real):
                warn(f"entry {key!r}: installPath {where!r} is not a folder below {base}")
                continue
            if real in managed_roots or real in loaded:
                continue  # one plugin per install folder, however many projects installed it
            loaded.add(real)
            b = load_bundle(real, "user", "user:.claude/plugins/installed_plugins.json", RANKS["user:.claude"],
                            profile, kinds=kinds)
            out.append(b.model_copy(update={"needs_enable": True, "marketplace": b.marketplace or market}))
    return out, diags


#: settings scopes whose ``extraKnownMarketplaces`` wskit reads: the user's own file and the
#: administrator's; a project's (``.claude/settings.json``, ``settings.local.json``) is not read
_MARKETPLACE_SCOPES = ("user", "managed")


def claude_known_marketplaces(home: str, layers: "Iterable[SettingsLayer]" = ()
                              ) -> tuple[dict[str, tuple[str, str]], list[Diagnostic]]:
    """The marketplaces Claude Code knows with a folder on this machine: ``{name: (folder,
    where)}``. Read from ``~/.claude/plugins/known_marketplaces.json`` (Claude Code's record
    of the marketplaces it added: ``{name: {"source": {"source": "directory", "path"},
    "installLocation", …}}``) and the ``extraKnownMarketplaces`` of the user and managed
    settings ``layers`` (``{name: {"source": {"source": "directory", "path"}}}``); only
    ``directory`` sources with an absolute path (``~`` expanded), as Claude Code 2.1.337
    loads them offline (a ``github`` source needs a clone, which wskit never makes). A
    project's or local settings' ``extraKnownMarketplaces`` is reported
    (``marketplace-project-declared``) and not read: a cloned repository must not declare a
    marketplace inside itself and enable its own plugins (docs/compatibility.md)."""
    known: dict[str, tuple[str, str]] = {}
    diags: list[Diagnostic] = []
    data, d = read_json(home, CLAUDE_KNOWN_MARKETPLACES, follow_links=True)
    diags.extend(d)
    sources: list[tuple[Any, str]] = [(data, os.path.join(home, CLAUDE_KNOWN_MARKETPLACES))]
    for layer in layers:
        extra = layer.data.get("extraKnownMarketplaces")
        if extra is None:
            continue
        if layer.scope not in _MARKETPLACE_SCOPES:
            diags.append(Diagnostic(level="warning", code="marketplace-project-declared", path=layer.path,
                                    message=f"extraKnownMarketplaces in {layer.scope} settings is not read (Claude "
                                            "Code reads it in a trusted project): a repository must not add a "
                                            "marketplace and enable its own plugins; add it to ~/.claude/settings.json"))
            continue
        sources.append((extra, layer.path or layer.scope))
    for obj, where in sources:
        if not isinstance(obj, dict):
            continue
        for name, spec in obj.items():
            src = spec.get("source") if isinstance(spec, dict) else None
            if not (isinstance(name, str) and isinstance(src, dict) and src.get("source") == "directory"):
                continue
            path = src.get("path")
            path = os.path.expanduser(path) if isinstance(path, str) else None
            if path is None or not os.path.isabs(path):
                diags.append(Diagnostic(level="warning", code="marketplace-source-invalid", path=where,
                                        message=f"marketplace {name!r}: a directory source needs an absolute "
                                                f"'path', not {src.get('path')!r}"))
                continue
            known[name] = (path, where)  # a later source (the settings) wins a name
    return known, diags


def _claude_marketplace_plugins(home: str, profile: HostProfile, layers: list[SettingsLayer], taken: set[str],
                                kinds) -> tuple[list[Bundle], list[Diagnostic]]:
    """The plugins ``enabledPlugins["name@market"]: true`` names in some settings layer when
    ``market`` is a marketplace Claude Code knows with a folder
    (:func:`claude_known_marketplaces`) and ``name`` is not otherwise found (an install record
    wins: its copy is what was installed). As Claude Code 2.1.337 does without
    ``claude plugin install``, the plugin is read from the marketplace's own folder (its
    entry's ``source``); it is :attr:`Bundle.needs_enable`, so the settings layers decide."""
    wanted: dict[str, set[str]] = {}
    for layer in layers:
        emap = layer.data.get("enabledPlugins")
        if not (layer.trusted and isinstance(emap, dict)):
            continue
        for key, value in emap.items():
            if value is True and isinstance(key, str) and "@" in key:
                name, _, market = key.rpartition("@")
                if name not in taken:
                    wanted.setdefault(market, set()).add(name)
    if not wanted:
        return [], []
    known, diags = claude_known_marketplaces(home, layers)
    out: list[Bundle] = []
    from wskit.builtin_plugins.bundles.marketplace import MarketplaceError, load_marketplace

    for market, names in sorted(wanted.items()):
        if market not in known:
            continue
        folder, where = known[market]
        try:
            mk = load_marketplace(folder)
        except MarketplaceError as err:
            diags.append(Diagnostic(level="warning", code="marketplace-invalid", path=where,
                                    message=f"marketplace {market!r}: {err}"))
            continue
        if mk.name_refusal is not None:
            diags.append(Diagnostic(level="warning", code="marketplace-name-reserved", path=where,
                                    message=f"marketplace {market!r} ({folder}) is not loaded: {mk.name_refusal}"))
            continue
        for name in sorted(names):
            try:
                entry = mk.entry(name)
            except MarketplaceError as err:
                diags.append(Diagnostic(level="warning", code="plugin-not-in-marketplace", path=where,
                                        plugin=name, message=str(err)))
                continue
            if entry.path is None or not entry.installable:
                diags.append(Diagnostic(level="warning", code="plugin-not-local", path=where, plugin=name,
                                        message=f"plugin {name!r} of marketplace {market!r} is not loaded: "
                                                f"{entry.reason or 'its source is not a folder of the marketplace'}"))
                continue
            b = load_bundle(entry.path, "user", f"user:marketplace:{market}", RANKS["user:.claude"], profile,
                            kinds=kinds)
            out.append(b.model_copy(update={"needs_enable": True, "marketplace": market}))
    return out, diags


def discover(binding: Binding | None, profile: HostProfile, trust: TrustDecision | None,
             explicit: tuple[str, ...] | list[str] = (), kinds: "Iterable[ResourceKind] | None" = None,
             layers: "Iterable[SettingsLayer] | None" = None, replaced: list[Bundle] | None = None
             ) -> tuple[list[Bundle], list[Diagnostic]]:
    """Every plugin found, highest rank last, one per name (see the module ranking).

    :param explicit: extra plugin folders (default ``profile.settings["plugin_dirs"]``).
    :param kinds: the registered resource kinds (see :func:`read_manifest`).
    :param layers: the settings layers of the workspace; with them (and Claude's conventions)
        the plugins they enable from a marketplace Claude Code knows are found too
        (:func:`_claude_marketplace_plugins`).
    :param replaced: when given, each plugin of the user or an administrator that a project's
        plugin folder of the same name replaces is appended to it, ``switched_off_by`` that
        folder: a lower-trust source replaced it, so its hooks (the user's guards) are
        reported ``switched-off``, never dropped silently
        (:func:`~wskit.builtin_plugins.bundles.active.find_bundles`).
    :returns: ``(bundles, diagnostics)``; bundles that fail to load are included in state ``error``.
    """
    home = str(profile.require_home())
    kinds = None if kinds is None else tuple(kinds)  # read once per plugin folder
    explicit = list(explicit) or [str(p) for p in profile.settings.get("plugin_dirs", ()) or ()]
    diags: list[Diagnostic] = []
    found: list[Bundle] = []
    try:
        ledger = read_ledger(profile)
    except LedgerError as err:
        ledger = {}
        diags.append(Diagnostic(level="error", code="ledger-error", message=str(err)))
    managed_roots = {os.path.abspath(r["root"]) for r in ledger.values()}
    for d in config_dirs(profile):
        key = "user:host" if d == profile.host_dir else "user:.claude"
        if d == ".claude" and getattr(profile, "family", None) == "claude":
            # Claude Code 2.1.337 loads no folder dropped in ~/.claude/plugins (recorded case
            # dropped-plugin-folder; its installs are installed_plugins.json's, read below)
            continue
        dirs, dd = _subdirs(home, f"{d}/plugins", True)
        diags.extend(dd)
        for sub in dirs:
            if d == ".claude" and os.path.basename(sub) in CLAUDE_BOOKKEEPING:
                continue  # Claude Code's own install records and caches, not a plugin
            if os.path.abspath(sub) not in managed_roots:
                found.append(load_bundle(sub, "user", f"user:{d}/plugins", RANKS[key], profile, kinds=kinds))
    if ".claude" in config_dirs(profile):
        got, dd = _claude_installed(home, profile, kinds, managed_roots)
        found.extend(got)
        diags.extend(dd)
        if layers is not None:
            taken = {b.name for b in found} | {str(r.get("name")) for r in ledger.values()}
            got, dd = _claude_marketplace_plugins(home, profile, list(layers), taken, kinds)
            found.extend(got)
            diags.extend(dd)
    for name, rec in sorted(ledger.items()):
        if not os.path.isdir(rec["root"]):
            diags.append(Diagnostic(level="error", code="managed-missing", path=rec["root"], plugin=name,
                                    message=f"managed plugin {name!r} is in the ledger but its folder is gone"))
            continue
        found.append(load_bundle(rec["root"], "managed", f"managed:{rec.get('marketplace')}", RANKS["managed"],
                                 profile, ledger_record=rec, kinds=kinds))
    if binding is not None:
        root = str(binding.source_root)
        for d in config_dirs(profile):
            if d == ".claude" and getattr(profile, "family", None) == "claude":
                continue  # Claude Code knows no project .claude/plugins source: a clone must not enable its own
            key = "project:host" if d == profile.host_dir else "project:.claude"
            if not (trust and trust.trusted):
                if os.path.isdir(os.path.join(root, d, "plugins")):
                    diags.append(Diagnostic(level="warning", code="plugin-dir-untrusted", path=os.path.join(root, d, "plugins"),
                                            message="project plugins ignored: project is not trusted"))
                continue
            dirs, dd = _subdirs(root, f"{d}/plugins", False)
            diags.extend(dd)
            found.extend(load_bundle(sub, "project", f"project:{d}/plugins", RANKS[key], profile, kinds=kinds)
                         for sub in dirs)
    for p in explicit:
        why = not_utf8(str(p))
        if why is not None:
            diags.append(_not_utf8(str(p), why))
            continue
        if not os.path.isdir(p):
            diags.append(Diagnostic(level="error", code="plugin-dir-missing", path=str(p),
                                    message=f"plugin directory {p} does not exist"))
            continue
        found.append(load_bundle(str(Path(p).resolve()), "cli", "cli", RANKS["cli"], profile, kinds=kinds))
    winners: dict[str, Bundle] = {}
    for b in found:
        prev = winners.get(b.name)
        if prev is not None:
            if prev.origin == "cli" and b.origin == "cli":
                diags.append(Diagnostic(level="warning", code="plugin-shadowed", path=b.root, plugin=b.name,
                                        message=f"plugin {b.name!r} given twice; {prev.root} is used"))
                continue
            if prev.origin in ("user", "managed") and b.origin == "project":
                # a lower-trust source replaces the user's plugin: its guards are kept, switched off
                if replaced is not None:
                    replaced.append(prev.model_copy(update={"switched_off_by": b.root}))
                diags.append(Diagnostic(level="warning", code="plugin-shadowed", path=prev.root, plugin=b.name,
                                        message=f"plugin {b.name!r} at {prev.root} ({prev.label}) is replaced by the "
                                        f"project's {b.root}: its hooks, the user's guards, are reported "
                                        "switched-off (not decided)"))
            else:
                diags.append(Diagnostic(level="info", code="plugin-shadowed", path=prev.root, plugin=b.name,
                                        message=f"plugin {b.name!r} at {prev.root} ({prev.label}) is overridden by "
                                        f"{b.root} ({b.label})"))
        winners[b.name] = b
    return sorted(winners.values(), key=lambda b: b.rank), diags
