"""``wsctl plugins list|show|validate|install|uninstall|enable|disable`` (content
plugins) and ``wsctl marketplace list|show`` (docs/plugins.md, docs/wsctl.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from wskit.builtin_plugins.bundles.active import bundle_source, find_bundles, plugin_counts
from wskit.builtin_plugins.bundles.discovery import load_bundle
from wskit.builtin_plugins.bundles.ledger import LedgerError, check_install_bounds, install, read_ledger, uninstall
from wskit.builtin_plugins.bundles.marketplace import Marketplace, MarketplaceError, load_marketplace
from wskit.cli.bodies import print_diagnostics
from wskit.cli.context import WsctlContext, json_option, progress, safe_text, shorten, table
from wskit.cli.plugins import list_command
from wskit.errors import WskitError
from wskit.fs import jsonsafe
from wskit.fs.atomic import StateFileError, locked_update
from wskit.fs.jsonfile import MAX_JSON_BYTES


def bundle_rows(obj: WsctlContext, path: str = ".", ws=None) -> list[dict[str, Any]]:
    """One row per content plugin of the workspace holding ``path`` (or of ``ws``, the
    :class:`~wskit.workspace.WorkspaceResources` already resolved for it):
    ``{"name", "version", "root", "scope", "state", "issues", "counts"}``."""
    return bundle_report(obj, ws if ws is not None else obj.resolve(path))[0]


def bundle_report(obj: WsctlContext, ws) -> tuple[list[dict[str, Any]], list]:
    """The rows of :func:`bundle_rows` for the resolved workspace ``ws`` and the
    diagnostics about its set of content plugins (:func:`~wskit.builtin_plugins.bundles.active.find_bundles`:
    discovery, settings layers such as ``settings-untrusted``,
    dependencies, ``plugin-failed``) — the ones ``wsctl inspect`` shows among all
    (:class:`~wskit.models.Diagnostic` objects)."""
    bundles, diags = find_bundles(ws.binding, obj.profile(), ws.trust, kinds=ws.kinds.values())
    return [{
        "name": b.name, "version": b.version, "root": b.root, "scope": b.origin, "state": b.state,
        "issues": [i.to_json() for i in b.issues if i.level != "info"],
        "disabled_by": next((i.message for i in b.issues if i.code == "plugin-disabled"), None),
        "counts": plugin_counts(ws, b.name) if b.state == "active" else {},
    } for b in bundles], diags


def bundle_listing(obj: WsctlContext, ws) -> tuple[list[dict[str, Any]], list[dict], list[dict], str]:
    """The content-plugin part of ``wsctl plugins list`` (see :func:`wskit.cli.plugins.list_plugins`)."""
    bundles, found = bundle_report(obj, ws)
    # the diagnostics about the plugin set, as inspect shows them: a --plugin-dir that
    # is missing or not a plugin, an untrusted project's settings file that was not read
    listed = obj.listing_diagnostics(ws, found)
    diags = [d.to_json(ws.source_root) for d in listed]
    # human output says a failure once: the `plugin-failed` of a bundle whose errors the
    # block under the table lists is not repeated among the diagnostics
    stated = {(r["name"], r["root"]) for r in bundles if any(i["level"] == "error" for i in r["issues"])}
    shown = [d.to_json(ws.source_root) for d in listed
             if not (d.code == "plugin-failed" and (d.plugin, d.path) in stated)]
    return bundles, diags, shown, human_bundles(bundles)


#: ``wsctl plugins list`` with the content plugins of the workspace
list_cmd = list_command(bundle_listing)


def _issue_text(issue: dict[str, Any], root: str) -> str:
    """An error of a bundle for the human ``errors:`` block, naming its file (relative
    to the plugin root when inside it) unless the message already does."""
    path, message = issue.get("path"), issue["message"]
    if not path or path == root or str(path) in message:
        return message
    rel = os.path.relpath(path, root) if os.path.isabs(path) and path.startswith(root.rstrip(os.sep) + os.sep) else path
    return f"{rel}: {message}" if rel not in message else message


def human_bundles(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no content plugins"
    out = []
    notes = []
    notes_disabled: list[str] = []
    for r in rows:
        counts = ", ".join(f"{k}={v}" for k, v in r["counts"].items()) or "-"
        errors = [_issue_text(i, r["root"]) for i in r["issues"] if i["level"] == "error"]
        # the reasons go under the table, whole: a long one in the STATE cell would
        # stretch every row to its width
        state = r["state"] + (f" ({len(errors)} error{'s' if len(errors) > 1 else ''}, below)" if errors else "")
        if r.get("disabled_by"):
            state += " (" + r["disabled_by"].split(" (")[0].removeprefix("disabled by ") + ")"
            notes_disabled.append(safe_text(f"  {r['name']}: {r['disabled_by']}"))
        out.append([r["name"], r["version"] or "-", r["scope"], state, counts, r["root"]])
        notes += [safe_text(f"  {r['name']}: {why}") for why in errors]
    text = table(out, ["BUNDLE", "VERSION", "SCOPE", "STATE", "RESOURCES", "ROOT"])
    text += "\n\ninactive:\n" + "\n".join(notes_disabled) if notes_disabled else ""
    return text + ("\n\nerrors:\n" + "\n".join(notes) if notes else "")


def _find(obj: WsctlContext, name: str, path: str):
    ws = obj.resolve(path)
    bundles, _ = find_bundles(ws.binding, obj.profile(), ws.trust, kinds=ws.kinds.values())
    for b in bundles:
        if b.name == name:
            return ws, b
    from wskit.errors import nearest

    names = [b.name for b in bundles]
    close = nearest(name, names)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    trust = "trusted" if ws.trust.trusted else "untrusted: its project plugins are not loaded"
    raise WskitError(f"no content plugin {name!r}{hint} (searched {ws.binding.source_root}, {trust}; "
                     f"found: {', '.join(names) or 'none'})")


@click.command("show")
@click.argument("name")
@click.option("--path", default=".", type=click.Path(exists=True), help="Workspace to look in.")
@json_option
@click.pass_obj
def show_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Show one content plugin: manifest, state, issues and resources."""
    ws, b = _find(obj, name, path)
    mine = [r for r in ws.resources() if r.provenance.plugin == name and r.provenance.scope.value == "plugin"]
    res = [r.id for r in mine]
    m = b.manifest
    data = {"name": b.name, "version": b.version, "description": b.description, "root": b.root, "scope": b.origin,
            "state": b.state, "manifest": b.manifest_path, "manifest_source": b.manifest_source,
            "marketplace": b.marketplace, "dependencies": [{"name": n, "range": r} for n, r in (m.dependencies if m else ())],
            "components": {k: list(v) for k, v in (m.components if m else {}).items()},
            "issues": [i.to_json() for i in b.issues], "counts": plugin_counts(ws, name), "resources": res}

    def human() -> None:
        click.echo(safe_text(f"{b.name} {b.version or ''}  [{b.state}]  {b.origin}  {b.root}"))
        if b.description:
            click.echo(safe_text(f"  {b.description}"))
        for i in b.issues:
            click.echo(safe_text(f"  {i.level}: {i.code}: {i.message}"))
        for r in mine:  # each resource with its kind; a hook by its event and matcher, not its hash id
            if r.kind == "hook":
                what = f"{r.event} {r.matcher or '*'}: {r.command or r.url or r.type}"
            else:
                what = r.id
            click.echo(safe_text(f"  - {r.kind:<11} {what}"))
    obj.emit(data, human)


@click.command("validate")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--strict", is_flag=True, help="Report frontmatter read leniently (as Claude Code reads it) as errors.")
@json_option
@click.pass_obj
def validate_cmd(obj: WsctlContext, directory: str, strict: bool = False) -> None:
    """Validate the plugin in DIRECTORY: manifest and every component it brings.
    Exit status 1 when an error is found. With ``--strict``, frontmatter that loads
    only leniently (:data:`wskit.formats.frontmatter.LENIENT_CODES`, a skill
    without frontmatter or description) is an error too."""
    root = str(Path(directory).resolve())
    if (os.path.isfile(os.path.join(root, ".claude-plugin", "marketplace.json"))
            and not os.path.isfile(os.path.join(root, ".claude-plugin", "plugin.json"))):
        return _validate_marketplace(obj, root)
    b, diags, counts = check_plugin(obj, root, strict)
    errors = [d for d in diags if d.level == "error"]
    data = {"path": b.root, "name": b.name, "version": b.version, "manifest_source": b.manifest_source,
            "marketplace": b.marketplace, "ok": not errors, "counts": counts,
            "diagnostics": [d.to_json() for d in diags]}

    def human() -> None:
        for d in diags:
            click.echo(safe_text(f"{d.level}: {d.code}: {d.message}" + (f" ({d.path})" if d.path else "")))
        via = " from its marketplace entry" if b.manifest_source == "marketplace" else ""
        click.echo(f"{b.name}: {'ok' if not errors else f'{len(errors)} error(s)'}"
                   + (f" ({', '.join(f'{k}={v}' for k, v in counts.items())}{via})" if counts else ""))
    obj.emit(data, human)
    if errors:
        click.get_current_context().exit(1)


def check_plugin(obj: WsctlContext, root: str, strict: bool = False) -> tuple[Any, list, dict[str, int]]:
    """What ``plugins validate`` checks of the plugin folder ``root`` (and ``plugins
    install`` before it copies one): the manifest (with the marketplace entry above it,
    if any), every component it brings, and what Claude Code's validation refuses.

    :param strict: frontmatter read only leniently is an error too.
    :returns: ``(bundle, diagnostics, counts per kind)``.
    """
    profile = obj.profile()
    hooks = obj.hooks()
    kinds, _ = hooks.resource_kinds()
    b = load_bundle(root, "cli", "cli", 35, profile, kinds=kinds)
    diags = list(b.issues)
    counts: dict[str, int] = {}
    if b.manifest is not None:
        src = bundle_source(b, profile.name)
        for kind in kinds:
            found, d = hooks.load(kind, src)
            diags.extend(d)
            if found:
                counts[kind.name] = len(found)
    diags.extend(_claude_checks(b.root, b.name, profile))
    # the verdict is Claude Code's: a manifest it rejects is an error here for every host
    diags = [d.model_copy(update={"level": "error"}) if d.code == "claude-manifest-rejected" else d for d in diags]
    if strict:
        from wskit.formats.frontmatter import LENIENT_CODES  # lazily: PyYAML

        lenient = LENIENT_CODES | {"skill-no-frontmatter", "skill-missing-description"}
        diags = [d.model_copy(update={"level": "error"}) if d.level == "warning" and d.code in lenient
                 else d for d in diags]
    return b, diags, counts


def _validate_marketplace(obj: WsctlContext, root: str) -> None:
    """``plugins validate`` of a marketplace folder (``.claude-plugin/marketplace.json``
    without ``plugin.json``), as ``claude plugin validate DIR`` 2.1.332: the file must
    read, and its name must not be a look-alike of an official Anthropic marketplace or
    one Claude Code keeps for its own plugins. An exact official name passes here, as it
    does there (validation cannot know the source; ``install`` refuses it from a folder)."""
    from wskit.builtin_plugins.bundles.marketplace import RESERVED_MARKETPLACE_NAMES
    from wskit.models import Diagnostic

    try:
        mk = load_marketplace(root)
    except MarketplaceError as err:
        mk, diags = None, [Diagnostic(level="error", code="marketplace-invalid", path=root, message=str(err))]
    else:
        diags = [d for d in mk.diagnostics
                 if not (d.code == "marketplace-name-reserved" and mk.name.lower() in RESERVED_MARKETPLACE_NAMES)]
    errors = [d for d in diags if d.level == "error"]
    name = mk.name if mk is not None else None
    data = {"path": root, "name": name, "version": None, "manifest_source": "marketplace", "marketplace": name,
            "ok": not errors, "counts": {"plugins": len(mk.plugins)} if mk is not None else {},
            "diagnostics": [d.to_json() for d in diags]}

    def human() -> None:
        for d in diags:
            click.echo(safe_text(f"{d.level}: {d.code}: {d.message}" + (f" ({d.path})" if d.path else "")))
        click.echo(safe_text(f"{name or root}: {'ok' if not errors else f'{len(errors)} error(s)'} (marketplace)"))
    obj.emit(data, human)
    if errors:
        click.get_current_context().exit(1)


#: plugin names Claude Code reserves for Anthropic's own (``claude plugin validate`` 2.1.332)
_RESERVED_PREFIXES = ("claude-", "anthropic-", "anthropics-", "cc-plugin-")
_RESERVED_NAMES = frozenset({"claude", "anthropic", "anthropics", "claude-code", "claude-mods"})


def reserved_plugin_name(name: str) -> bool:
    """Whether Claude Code refuses ``name`` for a third party's plugin: it starts with
    ``claude-``, ``anthropic-``, ``anthropics-`` or ``cc-plugin-``, is one of
    :data:`_RESERVED_NAMES`, or puts ``official`` beside ``claude`` or ``anthropic``."""
    n = name.lower()
    if n in _RESERVED_NAMES or n.startswith(_RESERVED_PREFIXES):
        return True
    parts = set(n.replace("_", "-").split("-"))
    return "official" in parts and bool(parts & {"claude", "anthropic", "anthropics"})


def _claude_checks(root: str, name: str, profile) -> list:
    """What ``claude plugin validate`` refuses beyond the manifest schema: a folder with
    neither a manifest nor any component (a folder with components but no manifest passes
    and loads named after its folder) and a reserved name."""
    from wskit.models import Diagnostic

    out = []
    dirs = {".claude-plugin", profile.plugin_manifest_dir}
    from wskit.builtin_plugins.bundles.discovery import has_components as _has

    has_components = _has(root)
    manifest = any(os.path.isfile(os.path.join(root, d, f)) for d in dirs for f in ("plugin.json", "marketplace.json"))
    if not manifest and not has_components:
        from wskit.builtin_plugins.bundles.marketplace import find_entry_for

        found = find_entry_for(root)
        if found is not None:
            # the folder loads through its marketplace entry (the marketplace-defined note), but
            # validated alone, as Claude Code validates it, it is neither a plugin nor a marketplace
            mk, _ = found
            out.append(Diagnostic(level="error", code="plugin-no-manifest", path=root,
                                  message="this folder alone has no manifest and no components, so it does not "
                                          "validate by itself (as Claude Code's validation); its entry in "
                                          f"marketplace {mk.name!r} defines it: validate the marketplace instead "
                                          f"('wsctl plugins validate {mk.root}')"))
        else:
            out.append(Diagnostic(level="error", code="plugin-no-manifest", path=root,
                                  message="no manifest and no components: expected .claude-plugin/plugin.json or "
                                          ".claude-plugin/marketplace.json (as Claude Code's validation)"))
    if manifest and name and reserved_plugin_name(name):
        out.append(Diagnostic(level="error", code="plugin-name-reserved", path=root, plugin=name,
                              message=f"plugin name {name!r} is reserved for Anthropic's own plugins by Claude "
                                      "Code (claude-*, anthropic-*, cc-plugin-*, 'official' beside claude)"))
    return out


def _marketplace_for(obj: WsctlContext, market: str, from_dirs: tuple[str, ...]) -> Marketplace:
    """The marketplace called ``market``: the first ``--from`` folder holding it, else
    a known one (``extraKnownMarketplaces`` directory sources, or one installed from
    before). Every candidate's ``marketplace.json`` name is checked against
    ``market``; MARKETPLACE is a name, never a path, so a folder of the working
    directory that happens to be called ``market`` is never read (``./zz`` holding
    marketplace "other" must not take over ``install a@zz --from A``).

    :raises MarketplaceError: none of them is called ``market``; when ``--from``
        folders were given, the message names the marketplace each of them holds
        (not "pass its folder with --from" when --from was passed).
    """
    seen: dict[str, str] = {}
    for c in list(from_dirs) + _known_marketplace_dirs(obj, market):
        mk = load_marketplace(c)
        if mk.name == market:
            return mk
        seen[c] = mk.name
    given = [d for d in dict.fromkeys(from_dirs) if d in seen]
    if given:
        held = (f"the folder given with --from ({given[0]}) holds marketplace {seen[given[0]]!r}" if len(given) == 1
                else "the folders given with --from hold " + ", ".join(f"{seen[d]!r} ({d})" for d in given))
        raise MarketplaceError(f"{held}, not {market!r}: install NAME@{seen[given[0]]}, "
                               f"or pass the folder of marketplace {market!r}")
    raise MarketplaceError(f"unknown marketplace {market!r}: pass its folder with --from DIR"
                           + (" (MARKETPLACE is the name in its marketplace.json, not a folder)"
                              if os.sep in market or market.startswith(".") else ""))


def _known_marketplace_dirs(obj: WsctlContext, market: str | None = None, ledger: dict | None = None) -> list[str]:
    """Folders of the marketplaces wskit knows by name (all, or those called
    ``market``): ``extraKnownMarketplaces`` directory sources of the user settings,
    then the marketplaces of earlier installs (``ledger``, read when not given).

    :raises LedgerError: the ledger is unreadable.
    """
    profile = obj.profile()
    from wskit.formats.settings import settings_layers
    layers, _ = settings_layers(None, profile, None)
    out: list[str] = []
    for layer in layers:
        known = layer.data.get("extraKnownMarketplaces")
        if not isinstance(known, dict):
            continue
        for key, spec in known.items():
            src = spec.get("source") if isinstance(spec, dict) and market in (None, key) else None
            if isinstance(src, dict) and isinstance(src.get("path"), str):
                out.append(os.path.expanduser(src["path"]))
    out += [r.get("marketplace_root") for r in (read_ledger(profile) if ledger is None else ledger).values()
            if market in (None, r.get("marketplace")) and r.get("marketplace_root")]
    return out


@click.command("install")
@click.argument("spec", metavar="NAME@MARKETPLACE")
@click.option("--from", "from_dirs", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="Folder of a local marketplace (holding .claude-plugin/marketplace.json).")
@click.option("--force", is_flag=True, help="Install even when validation finds errors (as 'plugins validate').")
@json_option
@click.pass_obj
def install_cmd(obj: WsctlContext, spec: str, from_dirs: tuple[str, ...], force: bool) -> None:
    """Install NAME from a local MARKETPLACE into the user plugin folder. The plugin is
    validated first, as 'wsctl plugins validate' does: one with errors is refused (exit 1,
    nothing installed) unless --force."""
    name, sep, market = spec.partition("@")
    if not sep or not name or not market:
        raise click.BadParameter("expected NAME@MARKETPLACE", param_hint="NAME@MARKETPLACE")
    mk = _marketplace_for(obj, market, from_dirs)
    if mk.name_refusal is not None:
        # a local folder must not pass its plugins off as Anthropic's own (Claude Code 2.1.332
        # refuses `claude plugin marketplace add DIR` for it): nothing is installed
        raise MarketplaceError(f"{os.path.join(mk.root, '.claude-plugin', 'marketplace.json')}: {mk.name_refusal}; "
                               f"nothing installed")
    entry = mk.entry(name)  # an unknown name: the names it has
    if entry.installable and entry.path is not None:
        # bounds first: validating a 100,000-file folder would index every file (--force or not)
        check_install_bounds(entry.path)
    if entry.installable and entry.path is not None and not force:
        b, diags, counts = check_plugin(obj, entry.path)
        # a folder without plugin.json or component folders is what Claude Code's folder
        # validation refuses; one its marketplace entry defines (inline lspServers…) installs
        defined = b.manifest_source == "marketplace" and bool(counts)
        # a name Claude Code's validator reserves (claude-*, …) is its validator's verdict, not an
        # install blocker: Claude Code 2.1.337 loads such a plugin from a marketplace the user added
        errors = [d for d in diags if d.level == "error" and not (defined and d.code == "plugin-no-manifest")
                  and d.code != "plugin-name-reserved"]
        if errors:
            listed = "".join(f"\n  {d.code}: {d.message}" + (f" ({d.path})" if d.path else "") for d in errors)
            raise WskitError(f"plugin {name}@{mk.name} ({entry.path}) has {len(errors)} error(s); nothing installed "
                             f"(see 'wsctl plugins validate {entry.path}'; --force installs it anyway):{listed}")
    with progress(f"installing {name} from {mk.root}"):
        rec = install(obj.profile(), mk, name)
    data = {k: rec[k] for k in ("name", "version", "marketplace", "source", "root", "digest", "skipped")}

    def human() -> None:
        click.echo(safe_text(f"installed {name}@{mk.name} into {rec['root']} ({rec['digest']})"))
        # what was not copied is said here too, not only in the JSON (nothing silently dropped)
        for skipped in rec["skipped"]:
            click.echo(safe_text(f"not copied (a link or special file): {skipped}"))

    obj.emit(data, human)


@click.command("migrate")
@json_option
@click.pass_obj
def migrate_cmd(obj: WsctlContext) -> None:
    """Move plugins installed by earlier versions (into ~/.<host>/plugins) to wskit's own
    state (~/.wskit/installs/<host>); every install and uninstall does it too."""
    from wskit.builtin_plugins.bundles.ledger import migrate_installs

    moved = migrate_installs(obj.profile())

    def human() -> None:
        if not moved:
            click.echo("nothing to move")
        for m in moved:
            click.echo(safe_text(f"{m['name']}: {m['status']} ({m['from']} -> {m['to']})"
                                 + (f": {m['detail']}" if m.get("detail") else "")))

    obj.emit({"migrated": moved}, human)


@click.command("uninstall")
@click.argument("name")
@json_option
@click.pass_obj
def uninstall_cmd(obj: WsctlContext, name: str) -> None:
    """Remove a managed plugin: its files and its ledger entry."""
    data = uninstall(obj.profile(), name)
    obj.emit(data, lambda: click.echo(f"uninstalled {name} ({data['root']})"))


def _set_enabled(obj: WsctlContext, name: str, value: bool, scope: str, path: str, force: bool = False) -> None:
    from wskit.builtin_plugins.bundles.enablement import valid_enable_name

    if not valid_enable_name(name):  # what the settings reader refuses is never written
        raise click.BadParameter(
            safe_text(f"{name!r} is not a plugin name: expected kebab-case (a-z, 0-9, '-', at most 64 "
                      "characters), optionally followed by @marketplace (the same)"), param_hint="NAME")
    profile = obj.profile()
    known = _plugin_known(obj, name, path)
    if value and not known and not force:
        # enabling a name nothing provides is most likely a typo: refused before anything is written
        raise click.UsageError(safe_text(
            f"no plugin {name!r} is known (installed, in a known marketplace, or in a user or project plugin "
            f"folder){_enable_hint(obj, name, path)}; nothing written. Pass --force to name it anyway "
            "(e.g. a plugin your team installs later)"))
    if scope == "user":
        anchor = profile.require_home()
        target = anchor / profile.host_dir / "settings.json"
    else:
        from wskit.binding import Binding
        anchor = Binding.discover(path).source_root
        target = anchor / profile.host_dir / ("settings.json" if scope == "project" else "settings.local.json")

    def update(raw: bytes | None) -> bytes:
        data: dict[str, Any] = {}
        if raw is not None:
            try:
                data = jsonsafe.loads(raw, path=str(target))
            except (ValueError, WskitError) as err:
                raise WskitError(f"{target} is not valid JSON ({err}); not changed") from None
            if not isinstance(data, dict):
                raise WskitError(f"{target} does not hold a JSON object; not changed")
        emap = data.get("enabledPlugins")
        emap = dict(emap) if isinstance(emap, dict) else {}
        emap[name] = value
        data["enabledPlugins"] = emap  # every other key is kept as it was
        return (json.dumps(data, indent=2) + "\n").encode("utf-8")

    # locked read-modify-write below the project root or home, no link followed (a
    # '.claude' of an untrusted repository linked into the user's own files is refused);
    # a new file gets 0600 (0644 in the project, where it is meant to be shared),
    # an existing one keeps its mode
    default_mode = 0o600 if scope != "project" else 0o644
    try:
        locked_update(target, update, anchor=anchor, max_bytes=MAX_JSON_BYTES, dir_mode=0o755,
                      mode=lambda old: default_mode if old is None else old)
    except StateFileError as err:
        raise WskitError(f"{err}; not changed") from None
    # an entry for a plugin not installed yet is valid (Claude Code's project settings list
    # the plugins a team uses before each member installs them): written, but a name that
    # matches nothing is most likely a typo, so it is said
    if not known:
        click.echo(safe_text(f"warning: no plugin {name!r} is known (installed, in a known marketplace, or in a "
                             f"user or project plugin folder); {target} names it anyway"), err=True)
    out = {"name": name, "enabled": value, "scope": scope, "settings": str(target), "known": known}
    obj.emit(out, lambda: click.echo(f"{'enabled' if value else 'disabled'} {name} in {target}"))


def _enable_hint(obj: WsctlContext, key: str, path: str) -> str:
    """``"; did you mean 'x'?"`` from the content plugins of the workspace and the
    installed plugins, with the folder searched and its trust."""
    from wskit.errors import nearest

    try:
        ws = obj.resolve(path)
        bundles, _ = find_bundles(ws.binding, obj.profile(), ws.trust, kinds=ws.kinds.values())
    except (WskitError, OSError):
        return ""
    try:
        installed = list(read_ledger(obj.profile()))
    except LedgerError:
        installed = []
    names = {b.name for b in bundles} | set(installed)
    bare = key.partition("@")[0]
    close = [bare] if bare in names and bare != key else nearest(bare, names)
    trust = "trusted" if ws.trust.trusted else "untrusted"
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return f"{hint} (searched {ws.binding.source_root}, {trust})"


def _plugin_known(obj: WsctlContext, key: str, path: str) -> bool:
    """Whether the ``enabledPlugins`` key ``key`` (``name`` or ``name@marketplace``)
    names a plugin wskit can find: a content plugin of the workspace holding ``path``
    (user, managed, trusted project or ``--plugin-dir``), a managed install (ledger),
    a plugin folder of that project even when it is untrusted (folder names only;
    nothing in it is read), or an entry of a known marketplace
    (:func:`_known_marketplace_dirs`). Unreadable sources count as not knowing it.
    """
    name, _, market = key.partition("@")
    try:
        ws = obj.resolve(path)
        bundles, _ = find_bundles(ws.binding, obj.profile(), ws.trust, kinds=ws.kinds.values())
    except (WskitError, OSError):
        ws, bundles = None, []
    if any(b.name == name and (not market or b.marketplace in (None, market)) for b in bundles):
        return True
    try:
        ledger = read_ledger(obj.profile())
        dirs = _known_marketplace_dirs(obj, market or None, ledger)  # the ledger read once
    except LedgerError:
        ledger, dirs = {}, []
    if any(k == name and (not market or r.get("marketplace") == market) for k, r in ledger.items()):
        return True
    if ws is not None and not ws.trust.trusted and not market:
        from wskit.formats.settings import config_dirs

        for d in config_dirs(obj.profile()):
            folder = os.path.join(ws.binding.source_root, d, "plugins", name)
            if os.path.isdir(folder) and not os.path.islink(folder):
                return True
    for d in dirs:
        try:
            mk = load_marketplace(d)
        except (MarketplaceError, OSError):
            continue
        if (not market or mk.name == market) and any(e.name == name for e in mk.plugins):
            return True
    return False


_scope = click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user", show_default=True,
                      help="Settings layer to write (project/local: the .<host>/ folder of the project at --path).")
_path = click.option("--path", default=".", type=click.Path(exists=True), help="Project for --scope project/local.")


@click.command("enable")
@click.argument("name")
@_scope
@_path
@click.option("--force", is_flag=True, help="Write the entry even when no plugin of that name is known.")
@json_option
@click.pass_obj
def enable_cmd(obj: WsctlContext, name: str, scope: str, path: str, force: bool) -> None:
    """Enable plugin NAME (enabledPlugins[NAME] = true). A name wskit cannot find is
    refused (exit status 2) unless --force."""
    _set_enabled(obj, name, True, scope, path, force)


@click.command("disable")
@click.argument("name")
@_scope
@_path
@json_option
@click.pass_obj
def disable_cmd(obj: WsctlContext, name: str, scope: str, path: str) -> None:
    """Disable plugin NAME (enabledPlugins[NAME] = false)."""
    _set_enabled(obj, name, False, scope, path)


PLUGIN_SUBCOMMANDS = (list_cmd, show_cmd, validate_cmd, install_cmd, uninstall_cmd, migrate_cmd, enable_cmd,
                      disable_cmd)


@click.group("marketplace")
def marketplace_group() -> None:
    """Local plugin marketplaces (.claude-plugin/marketplace.json)."""


@marketplace_group.command("list")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--installable", is_flag=True, help="Only the plugins wskit can install from this folder.")
@json_option
@click.pass_obj
def marketplace_list_cmd(obj: WsctlContext, directory: str, installable: bool) -> None:
    """List the plugins of the marketplace in DIRECTORY: description and whether each can
    be installed (a short reason code when not, explained once under the table)."""
    from wskit.builtin_plugins.bundles.marketplace import REASON_CODES

    mk = load_marketplace(directory)
    entries = [e for e in mk.plugins if e.installable or not installable]
    data = {"name": mk.name, "owner": mk.owner, "plugins": [
        {"name": e.name, "description": e.description, "source": e.source, "installable": e.installable,
         "reason_code": e.reason_code, "reason": e.reason} for e in entries],
        "diagnostics": [d.to_json(mk.root) for d in mk.diagnostics]}

    def human() -> None:
        shown = f"{len(entries)} of {len(mk.plugins)} plugins installable" if installable else \
            f"{len(mk.plugins)} plugins, {sum(e.installable for e in mk.plugins)} installable"
        click.echo(safe_text(f"{mk.name} ({mk.owner.get('name', '?')}): {shown}"))
        if entries:
            click.echo(table([[e.name, "yes" if e.installable else f"no: {e.reason_code}",
                               e.source if isinstance(e.source, str) else e.source_kind, shorten(e.description, 50)]
                              for e in entries], ["PLUGIN", "INSTALLABLE", "SOURCE", "DESCRIPTION"]))
        codes = sorted({e.reason_code for e in entries if e.reason_code})
        if codes:
            click.echo("\n" + safe_text("; ".join(f"{c}: {REASON_CODES[c]}" for c in codes)
                                         + " ('wsctl marketplace show DIR NAME': the whole reason)"))
        print_diagnostics(mk.diagnostics, mk.root)
    obj.emit(data, human)


@marketplace_group.command("show")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.argument("name")
@json_option
@click.pass_obj
def marketplace_show_cmd(obj: WsctlContext, directory: str, name: str) -> None:
    """Show the entry NAME of the marketplace in DIRECTORY."""
    mk = load_marketplace(directory)
    e = mk.entry(name)
    data = {"marketplace": mk.name, "name": e.name, "source": e.source, "source_kind": e.source_kind,
            "path": e.path, "strict": e.strict, "installable": e.installable, "reason": e.reason, "entry": e.entry}

    def human() -> None:  # the entry itself stays JSON (it is the marketplace's own text)
        click.echo(safe_text(f"{e.name} in {mk.name}: {e.source_kind} source" + (f" {e.path}" if e.path else "")))
        click.echo("installable" if e.installable else safe_text(f"not installable: {e.reason}"))
        click.echo("strict" if e.strict else "not strict (the marketplace entry defines the plugin)")
        click.echo("entry:")
        click.echo("\n".join(safe_text("  " + line) for line in json.dumps(e.entry, indent=2).splitlines()))

    obj.emit(data, human)


