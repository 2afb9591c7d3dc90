"""Local marketplaces: ``<dir>/.claude-plugin/marketplace.json`` (Claude Code,
reference/conventions.md §1.11).

A marketplace lists plugins with a ``source``: a relative path inside the
marketplace (installable here) or an object (``github``, ``git``, ``url``,
``git-subdir``, ``npm``…) that needs a fetch the host must do (listed, never
installed). ``strict: false`` entries carry their whole definition (component
fields such as ``lspServers``) and need no ``plugin.json``.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made.

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError
from wskit.fs.jsonfile import read_json
from wskit.models import Diagnostic, Frozen

if TYPE_CHECKING:
    from wskit.kinds import ResourceKind


MARKETPLACE_FILE = ".claude-plugin/marketplace.json"


class MarketplaceError(WskitError):
    """A marketplace cannot be read, or an operation on one cannot be done."""


#: The reason codes of :attr:`MarketplaceEntry.reason_code`, as ``marketplace list`` explains them.
REASON_CODES = {
    "needs-fetch": "source is remote (github, url, npm…): the host must fetch it",
    "missing": "source folder does not exist",
    "escapes": "source leaves the marketplace folder",
    "not-portable": "source is not a portable relative path",
    "bad-name": "plugin name is not kebab-case",
    "name-reserved": "the marketplace's name is reserved by Claude Code for Anthropic's own marketplaces: "
                     "install refuses it from a local folder",
    "duplicate": "two or more entries have this name: which one is meant is ambiguous",
}

#: what to do with a local copy of a marketplace whose name is refused (the end of the
#: ``marketplace-name-reserved`` message)
RESERVED_NAME_HINT = ("To install its plugins from this folder, copy it and give the copy a name of your own "
                      "(\"name\" in .claude-plugin/marketplace.json), then 'wsctl plugins install "
                      "NAME@<that name> --from <the copy>'; or load one plugin folder that has its own "
                      ".claude-plugin/plugin.json with --plugin-dir")


#: marketplace names Claude Code 2.1.332 keeps for Anthropic's own marketplaces (its
#: bundle's official, community and plugin-directory sets): usable only from a GitHub
#: source of the ``anthropics`` organization, never from a local folder
RESERVED_MARKETPLACE_NAMES = frozenset({
    "claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace",
    "anthropic-plugins", "agent-skills", "anthropic-agent-skills", "life-sciences", "knowledge-work-plugins",
    "claude-for-legal", "claude-for-financial-services", "financial-services-plugins", "first-party-plugins",
    "claude-tag-plugins", "claude-community", "claude-plugins-community", "healthcare",
    "anthropic-plugin-directory", "claude-plugin-directory"})
#: names Claude Code keeps for its own kinds of plugins (``Marketplace name "x" is reserved for …``)
_INTERNAL_MARKETPLACE_NAMES = {"inline": "--plugin-dir session plugins", "builtin": "built-in plugins",
                               "skills-dir": "plugins auto-loaded from .claude/skills/",
                               "synced": "plugins synced from your claude.ai account",
                               "claude-plugin-test": "plugins loaded by claude plugin test"}
_OFFICIAL = r"official[^a-z0-9]*(anthropic|claude)|(?:anthropic|claude)[^a-z0-9]*official"
_WORDS = ("marketplace", "plugins", "official")
_WORDS_ALL = (*_WORDS, "directory", "directories")
_LOOKALIKE = re.compile(rf"(?:{_OFFICIAL}|^(?:anthropic|claude)[^a-z0-9]*({'|'.join(_WORDS_ALL)}))", re.I)
_LOOKALIKE_SHORT = re.compile(rf"(?:{_OFFICIAL}|^(?:anthropic|claude)[^a-z0-9]*({'|'.join(_WORDS)}))", re.I)
_JOINED = re.compile(rf"^(?:anthropic|claude)(?:{'|'.join(_WORDS_ALL)})s?$", re.I)
_NOT_PRINTABLE_ASCII = re.compile(r"[^\x20-\x7e]")


def lookalike_marketplace_name(name: str) -> bool:
    """Whether Claude Code 2.1.332 refuses ``name`` as one that "impersonates an official
    Anthropic/Claude marketplace" (its bundle's look-alike check, transcribed): not one of
    :data:`RESERVED_MARKETPLACE_NAMES` itself, and a character outside printable ASCII,
    ``official`` beside ``claude``/``anthropic`` (any separators), or ``claude``/``anthropic``
    at the start followed by ``marketplace``, ``plugins``, ``official``, ``directory`` or
    ``directories`` (the words also read with their separators dropped, a trailing ``s``)."""
    if name.lower() in RESERVED_MARKETPLACE_NAMES:
        return False
    if _NOT_PRINTABLE_ASCII.search(name) or _LOOKALIKE_SHORT.search(name) or _LOOKALIKE.search(name):
        return True
    if _LOOKALIKE.search(re.sub(r"^[^a-z0-9]+", "", name, flags=re.I)):
        return True
    if re.search(r"official(?:anthropic|claude)|(?:anthropic|claude)official", re.sub(r"[^a-z0-9]+", "", name, flags=re.I),
                 re.I):
        return True
    limit = 9 + max(len(w) for w in _WORDS_ALL) + 1
    joined = ""
    for token in (t for t in re.split(r"[^a-z0-9]+", name, flags=re.I) if t):
        joined += token
        if _JOINED.search(joined):
            return True
        if len(joined) > limit:
            break
    return False


def _anthropics_source(source: Any) -> bool:
    """A GitHub source of the ``anthropics`` organization (``{"source": "github", "repo":
    "anthropics/x"}`` or a ``git`` URL on github.com/anthropics/)."""
    if not isinstance(source, dict):
        return False
    if source.get("source") == "github":
        repo = source.get("repo")
        return isinstance(repo, str) and ":" not in repo and repo.lower().startswith("anthropics/")
    url = source.get("url")
    if source.get("source") == "git" and isinstance(url, str):
        m = re.match(r"^(?:https?://|git@|ssh://git@)(?:www\.)?github\.com[/:]([^/]+)/", url.strip(), re.I)
        return m is not None and m.group(1).lower() == "anthropics"
    return False


def marketplace_name_verdict(name: str, source: Any = None) -> str | None:
    """Why Claude Code 2.1.332 refuses a marketplace called ``name`` with ``source``
    (a ``known_marketplaces.json`` / ``extraKnownMarketplaces`` source object; None: a
    local folder), or None when it accepts it. The rules, in its words: a look-alike
    of an official name (:func:`lookalike_marketplace_name`), a name kept for its own
    kinds of plugins, and a name of :data:`RESERVED_MARKETPLACE_NAMES` from anything but
    a GitHub source of the ``anthropics`` organization."""
    low = name.lower()
    if lookalike_marketplace_name(name):
        return "Marketplace name impersonates an official Anthropic/Claude marketplace"
    if low in _INTERNAL_MARKETPLACE_NAMES:
        return f'Marketplace name "{low}" is reserved for {_INTERNAL_MARKETPLACE_NAMES[low]}'
    if low in RESERVED_MARKETPLACE_NAMES and not _anthropics_source(source):
        if isinstance(source, dict) and source.get("source") in ("github", "git"):
            return (f"The name '{name}' is reserved for official Anthropic marketplaces. Only repositories from "
                    "'github.com/anthropics/' can use this name.")
        return (f"The name '{name}' is reserved for official Anthropic marketplaces and can only be used with "
                "GitHub sources from the 'anthropics' organization.")
    return None


class MarketplaceEntry(Frozen):
    """One plugin of a marketplace.

    :ivar source: ``source`` as written (a string or an object).
    :ivar source_kind: ``path`` or the object's ``source`` value (``github``, ``url``…).
    :ivar path: absolute folder of a ``path`` source (None for network sources).
    :ivar strict: default True: ``plugin.json`` is authoritative; False: the entry is the definition.
    :ivar installable: a local path that exists inside the marketplace, of a marketplace whose
        name install accepts from a local folder.
    :ivar reason: why it is not installable (None when it is).
    :ivar entry: the entry object as read.
    """

    name: str
    source: Any
    source_kind: str
    path: str | None = None
    strict: bool = True
    installable: bool = False
    reason: str | None = None
    entry: dict[str, Any] = {}

    @property
    def reason_code(self) -> str | None:
        """A short code of :attr:`reason` for listings (:data:`REASON_CODES` explains each):
        ``needs-fetch``, ``missing``, ``escapes``, ``not-portable``, ``bad-name``,
        ``name-reserved``; None when installable."""
        r = self.reason
        if r is None:
            return None
        if r.startswith("plugin name"):
            return "bad-name"
        if r.startswith("marketplace name"):
            return "name-reserved"
        if r.startswith("the marketplace has"):
            return "duplicate"
        if r.startswith("source type"):
            return "needs-fetch"
        if r.startswith("source folder"):
            return "missing"
        if "leaves the marketplace" in r:
            return "escapes"
        return "not-portable"

    @property
    def description(self) -> str:
        """The entry's ``description`` (empty when absent or not a string)."""
        d = self.entry.get("description")
        return d if isinstance(d, str) else ""


class Marketplace(Frozen):
    """A marketplace read from ``root/.claude-plugin/marketplace.json``."""

    name: str
    owner: dict[str, Any] = {}
    root: str
    plugins: tuple[MarketplaceEntry, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def name_refusal(self) -> str | None:
        """The ``marketplace-name-reserved`` message when its name is one Claude Code
        refuses from a local folder (:func:`marketplace_name_verdict`), else None."""
        return next((d.message for d in self.diagnostics if d.code == "marketplace-name-reserved"), None)

    def entry(self, name: str) -> MarketplaceEntry:
        """The entry called ``name`` (``renames`` are not followed).

        :raises MarketplaceError: no such entry; lists the names.
        """
        for e in self.plugins:
            if e.name == name:
                return e
        from wskit.errors import nearest

        names = sorted(e.name for e in self.plugins)
        close = nearest(name, names)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        listing = ", ".join(names[:20]) + ("…" if len(names) > 20 else "")
        raise MarketplaceError(f"marketplace {self.name!r} (in {self.root}) has no plugin {name!r}{hint} "
                               f"(has: {listing})")


def load_marketplace(root: str | os.PathLike[str]) -> Marketplace:
    """Read the marketplace at ``root`` (the folder holding ``.claude-plugin/``).

    :raises MarketplaceError: no marketplace file, invalid JSON, or missing ``name``/``plugins``.
    """
    base = os.path.realpath(os.fspath(root))
    data, diags = read_json(base, MARKETPLACE_FILE, missing_ok=False)
    if data is None:
        msg = diags[0].message if diags else "unreadable"
        raise MarketplaceError(f"{os.path.join(base, MARKETPLACE_FILE)}: {msg}")
    path = os.path.join(base, MARKETPLACE_FILE)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise MarketplaceError(f"{path}: required key 'name' is missing or not a string")
    if not isinstance(data.get("plugins"), list):
        raise MarketplaceError(f"{path}: required key 'plugins' must be an array")
    owner = data.get("owner") if isinstance(data.get("owner"), dict) else {}
    if not isinstance(data.get("owner"), dict):
        diags.append(Diagnostic(level="warning", code="marketplace-owner", path=path,
                                message="'owner' should be an object with 'name'"))
    plugin_root = (data.get("metadata") or {}).get("pluginRoot") if isinstance(data.get("metadata"), dict) else None
    entries: list[MarketplaceEntry] = []
    indices: list[int] = []  # each entry's place in "plugins", for messages
    for i, raw in enumerate(data["plugins"]):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or "source" not in raw:
            diags.append(Diagnostic(level="error", code="marketplace-entry", path=path,
                                    message=f"plugin entry {i + 1} needs 'name' and 'source'"))
            continue
        entry = _entry(base, raw, plugin_root)
        entries.append(entry)
        indices.append(i)
        if (entry.reason and entry.path is None and isinstance(entry.source, str)
                and entry.reason.startswith("source ")):
            # a hostile path source ('../..', '/etc', NUL, '\\', 'c:'): named, never followed
            diags.append(Diagnostic(level="warning", code="marketplace-source-invalid", path=path,
                                    message=f"plugin {entry.name!r}: {entry.reason}"))
    entries = _refuse_duplicates(entries, indices, diags, path)
    why = marketplace_name_verdict(data["name"])
    if why is not None:
        # Claude Code refuses to add this folder (claude plugin marketplace add DIR): its
        # plugins must not pass for Anthropic's own (install refuses them, see :func:`name_refusal`)
        diags.append(Diagnostic(level="error", code="marketplace-name-reserved", path=path,
                                message=f"marketplace name {data['name']!r} is refused from a local folder, as "
                                        f"Claude Code refuses it: {why}{'' if why.endswith('.') else '.'} "
                                        f"{RESERVED_NAME_HINT}"))
        # no entry is installable from here: listings must not say otherwise (install refuses)
        refused = (f"marketplace name {data['name']!r} is refused from a local folder (see the "
                   f"marketplace-name-reserved error): install refuses its plugins")
        entries = [e.model_copy(update={"installable": False, "reason": refused}) if e.installable else e
                   for e in entries]
    return Marketplace(name=data["name"], owner=owner, root=base, plugins=tuple(entries), diagnostics=tuple(diags))


def _refuse_duplicates(entries: list[MarketplaceEntry], indices: list[int], diags: list[Diagnostic],
                       path: str) -> list[MarketplaceEntry]:
    """Entries sharing a name (Claude Code's validation: ``Duplicate plugin name``) are
    each a ``marketplace-duplicate-name`` error and none of them is installable: an
    install of that name could take either folder."""
    positions: dict[str, list[int]] = {}
    for i, e in enumerate(entries):
        positions.setdefault(e.name, []).append(i)
    out = list(entries)
    for name, where in positions.items():
        if len(where) < 2:
            continue
        shown = ", ".join(f"plugins[{indices[i]}]" for i in where)
        why = f"the marketplace has {len(where)} entries named {name!r} ({shown}): which one is meant is ambiguous"
        diags.append(Diagnostic(level="error", code="marketplace-duplicate-name", path=path,
                                message=f"duplicate plugin name {name!r}: {why}"))
        for i in where:
            out[i] = out[i].model_copy(update={"installable": False, "reason": why})
    return out


def _entry(base: str, raw: dict[str, Any], plugin_root: Any) -> MarketplaceEntry:
    src = raw["source"]
    strict = raw.get("strict", True) is not False
    common = dict(name=raw["name"], source=src, strict=strict, entry=raw)
    from wskit.builtin_plugins.bundles.manifest import NAME_RE
    from wskit.fs.names import not_utf8, shown_path

    if not NAME_RE.match(raw["name"]):  # the name becomes a folder name on install
        return MarketplaceEntry(source_kind="path" if isinstance(src, str) else "unknown",
                                reason=f"plugin name {raw['name']!r} is not kebab-case; it cannot be installed",
                                **common)
    if isinstance(src, str):
        rel = src
        if not rel.startswith(("./", "../")) and isinstance(plugin_root, str):
            rel = f"{plugin_root.rstrip('/')}/{rel}"
        if "\0" in rel or "\\" in rel or "\n" in rel or re.match(r"^[A-Za-z]:|^[a-z][a-z0-9+.-]*://", rel):
            # checked on the path as joined with metadata.pluginRoot: NUL made
            # os.path.realpath raise ValueError (a crash); a backslash or a drive
            # names another path on Windows than on POSIX
            shown = repr(src) if rel == src else f"{src!r} (under pluginRoot {plugin_root!r})"
            return MarketplaceEntry(source_kind="path", reason=f"source {shown} is not a portable relative path",
                                    **common)
        why = not_utf8(rel)
        if why is not None:
            # a JSON "\udcff" escape names a folder whose name is not UTF-8: its plugin
            # could not be named in a ledger, a session file or JSON output
            return MarketplaceEntry(source_kind="path", reason=f"source '{shown_path(rel)}' {why}; "
                                    "it cannot be installed", **common)
        target = os.path.realpath(os.path.join(base, rel))
        if os.path.commonpath([target, base]) != base:
            return MarketplaceEntry(source_kind="path", reason=f"source {src!r} leaves the marketplace folder", **common)
        if not os.path.isdir(target):
            return MarketplaceEntry(source_kind="path", path=target, reason=f"source folder {src!r} does not exist",
                                    **common)
        return MarketplaceEntry(source_kind="path", path=target, installable=True, **common)
    kind = src.get("source") if isinstance(src, dict) else None
    kind = kind if isinstance(kind, str) else "unknown"
    reason = (f"source type {kind!r} needs a fetch (network) that the host must do; "
              "wskit installs only plugins whose source is a path inside a local marketplace")
    return MarketplaceEntry(source_kind=kind, reason=reason, **common)


def find_entry_for(plugin_dir: str | os.PathLike[str], max_up: int = 4) -> tuple[Marketplace, MarketplaceEntry] | None:
    """The marketplace entry whose local source is ``plugin_dir``, looking in
    up to ``max_up`` enclosing folders for a marketplace file (how a
    ``strict: false`` plugin folder without ``plugin.json`` finds its definition)."""
    target = os.path.realpath(os.fspath(plugin_dir))
    cur = Path(target)
    for _ in range(max_up + 1):
        if (cur / MARKETPLACE_FILE).is_file():
            try:
                mk = load_marketplace(cur)
            except MarketplaceError:
                mk = None
            if mk is not None:
                for e in mk.plugins:
                    if e.path == target:
                        return mk, e
        if cur.parent == cur:
            break
        cur = cur.parent
    return None


def entry_manifest(entry: MarketplaceEntry, plugin_json: dict[str, Any] | None,
                   kinds: "Iterable[ResourceKind] | None" = None) -> dict[str, Any]:
    """The manifest object a plugin of this entry loads with.

    ``strict: false``: the entry is the definition (marketplace-only keys dropped).
    ``strict: true``: ``plugin.json`` is authoritative, entry component fields are
    added to it (paths merged), and the entry name wins (the name
    ``enabledPlugins`` keys use, Claude Code §1.10).

    :param kinds: the registered resource kinds; their manifest keys are the
        component fields (default :func:`wskit.plugin.facade.builtin_kinds`).
    """
    from wskit.builtin_plugins.bundles.manifest import component_table

    skip = {"source", "strict", "category", "tags", "relevance"}
    from_entry = {k: v for k, v in entry.entry.items() if k not in skip}
    if not entry.strict or plugin_json is None:
        return from_entry
    merged = dict(plugin_json)
    for key in component_table(kinds):
        if key in from_entry and key not in merged:
            merged[key] = from_entry[key]
        elif key in from_entry and isinstance(merged[key], (str, list)) and isinstance(from_entry[key], (str, list)):
            a = merged[key] if isinstance(merged[key], list) else [merged[key]]
            b = from_entry[key] if isinstance(from_entry[key], list) else [from_entry[key]]
            merged[key] = a + [x for x in b if x not in a]
    merged["name"] = entry.name
    return merged
