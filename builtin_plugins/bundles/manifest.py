"""Plugin manifests: ``.<host>-plugin/plugin.json`` (preferred) or
``.claude-plugin/plugin.json`` (Claude Code reference/conventions.md §1.10,
Blade reference/blade.md §8.1–8.2).

:func:`parse_manifest` validates a manifest object (from a file or a
``strict: false`` marketplace entry) into a :class:`Manifest`; wrong types are
``manifest-invalid`` errors naming the key, unknown keys are ignored.

The component keys (``skills``, ``commands``, ``outputStyles``, ``hooks``…) are
those the registered resource kinds declare
(:attr:`~wskit.kinds.ResourceKind.manifest_keys`, read through
:func:`wskit.kinds.manifest_table`): a kind a plugin adds is located in content
plugins the same way as the built-in ones.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model classes are made.

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.models import Diagnostic, Frozen
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.kinds import ResourceKind


#: Claude Code's kebab-case plugin name (Blade: 1–64 chars, lowercase, digits, hyphens).
NAME_RE = lazy_pattern(globals(), "NAME_RE", r"^(?=.{1,64}\Z)[a-z0-9]([a-z0-9-]*[a-z0-9])?\Z")

_STRINGS = ("version", "description", "homepage", "license", "displayName", "$schema")


class Manifest(Frozen):
    """A validated manifest.

    :ivar name: plugin name (namespace of everything it brings).
    :ivar components: kind -> sub-paths relative to the plugin root, for every
        kind with manifest keys; defaults included, duplicates removed (a
        manifest entry naming a default file is loaded once).
    :ivar inline: kind -> inline definition object (``mcpServers``, ``lspServers``,
        ``hooks``: kinds with :attr:`~wskit.kinds.ResourceKind.manifest_inline`).
    :ivar dependencies: ``(name, npm-style range)`` pairs (``"*"`` when none given).
    :ivar raw: the manifest object as read.
    """

    name: str
    version: str | None = None
    description: str = ""
    author: dict[str, Any] | None = None
    default_enabled: bool = True
    components: dict[str, tuple[str, ...]] = {}
    inline: dict[str, Any] = {}
    dependencies: tuple[tuple[str, str], ...] = ()
    raw: dict[str, Any] = {}


def _norm(path: str) -> str:
    parts = fs.split_written(path[2:] if path.startswith("./") else path)
    return "/".join(parts)


def parse_manifest(data: Any, path: str | None, *, plugin_hint: str | None = None,
                   kinds: "Iterable[ResourceKind] | None" = None) -> tuple[Manifest | None, list[Diagnostic]]:
    """Validate ``data`` (a manifest object).

    :param path: file shown in diagnostics (``marketplace.json`` for an entry).
    :param plugin_hint: plugin name used in diagnostics before the name is known.
    :param kinds: the registered resource kinds, whose manifest keys are the
        component keys read (default :func:`wskit.plugin.facade.builtin_kinds`).
    :returns: ``(manifest, diagnostics)``; manifest is None when an error makes
        the plugin unusable (missing/invalid name, a wrong type of a known key,
        a component path escaping the root, an invalid dependency range).
    """
    diags: list[Diagnostic] = []
    who = plugin_hint

    def err(code: str, msg: str) -> None:
        diags.append(Diagnostic(level="error", code=code, path=path, message=msg, plugin=who))

    def warn(code: str, msg: str) -> None:
        diags.append(Diagnostic(level="warning", code=code, path=path, message=msg, plugin=who))

    if not isinstance(data, dict):
        err("manifest-invalid", "manifest must be a JSON object")
        return None, diags
    name = data.get("name")
    if not isinstance(name, str) or not name:
        err("manifest-missing-name", "required key 'name' is missing or not a string")
        return None, diags
    who = name
    if not NAME_RE.match(name):
        err("manifest-invalid-name", f"'name' {name!r} must be kebab-case: lowercase letters, digits and hyphens (1-64)")
    for key in _STRINGS:
        if key in data and not isinstance(data[key], str):
            err("manifest-invalid", f"key {key!r} must be a string, not {type(data[key]).__name__}")
    version = data.get("version") if isinstance(data.get("version"), str) else None
    import nodesemver  # imported on first use: not on start-up

    if version is not None and nodesemver.valid(version, False) is None:
        warn("manifest-version", f"'version' {version!r} is not a semantic version")
    author = data.get("author")
    if isinstance(author, str):
        warn("manifest-author-string", "'author' should be an object {name, email, url}; a string is accepted")
        author = {"name": author}
    elif author is not None and not isinstance(author, dict):
        err("manifest-invalid", f"key 'author' must be an object, not {type(author).__name__}")
        author = None
    if "repository" in data and not isinstance(data["repository"], (str, dict)):
        err("manifest-invalid", "key 'repository' must be a string")
    kw = data.get("keywords")
    if kw is not None and not (isinstance(kw, list) and all(isinstance(k, str) for k in kw)):
        err("manifest-invalid", "key 'keywords' must be an array of strings")
    default_enabled = data.get("defaultEnabled", True)
    if not isinstance(default_enabled, bool):
        err("manifest-invalid", "key 'defaultEnabled' must be a boolean")
        default_enabled = True
    components, inline = _components(data, component_table(kinds), err)
    deps = _dependencies(data.get("dependencies"), name, err)
    if any(d.level == "error" for d in diags):
        return None, diags
    return Manifest(
        name=name, version=version, description=data.get("description") or "", author=author,
        default_enabled=default_enabled, components=components,
        inline=inline, dependencies=deps, raw=data,
    ), diags


def claude_manifest_rejections(data: Any) -> list[str]:
    """Why Claude Code's manifest schema refuses the ``plugin.json`` object ``data``, in its
    words, or ``[]``: an ``agents`` path (or one of an array of paths) that does not end with
    ``.md``, e.g. ``"agents": "./agents/"`` naming a folder. Claude Code 2.1.337 then loads
    nothing of the plugin (its ``system/init`` line lists neither the plugin nor its commands
    or agents) and ``claude plugin validate`` fails with ``agents: Invalid string: must end
    with ".md"``; wskit reads the folder, so it says the host will not."""
    if not isinstance(data, dict):
        return []
    value = data.get("agents")
    if isinstance(value, str):
        return [] if value.endswith(".md") else ['agents: Invalid string: must end with ".md"']
    if isinstance(value, list):
        return [f'agents.{i}: Invalid string: must end with ".md"' for i, v in enumerate(value)
                if isinstance(v, str) and not v.endswith(".md")]
    return []


def component_table(kinds: "Iterable[ResourceKind] | None" = None) -> "dict[str, tuple[ResourceKind, ...]]":
    """Manifest key -> the kinds it names paths for (:func:`wskit.kinds.manifest_table`
    of ``kinds``, default :func:`wskit.plugin.facade.builtin_kinds`)."""
    from wskit.kinds import manifest_table
    from wskit.plugin.facade import builtin_kinds

    return manifest_table(builtin_kinds() if kinds is None else kinds)


def _components(data: dict, table: "dict[str, tuple[ResourceKind, ...]]", err
                ) -> tuple[dict[str, tuple[str, ...]], dict[str, Any]]:
    """``(components, inline)`` of a manifest: for each kind of ``table``, the
    paths its keys name (added to its ``default_dir`` or replacing it, see
    :attr:`~wskit.kinds.ResourceKind.manifest_adds`) and an inline object under
    a key of a kind that allows one."""
    kinds: dict[str, ResourceKind] = {}
    keys_of: dict[str, list[str]] = {}
    for key, owners in table.items():
        for kind in owners:
            kinds.setdefault(kind.name, kind)
            keys_of.setdefault(kind.name, []).append(key)
    read: dict[str, list[str]] = {}  # key -> paths, each key checked (and reported) once
    components: dict[str, tuple[str, ...]] = {}
    inline: dict[str, Any] = {}
    for name, kind in kinds.items():
        paths: list[str] = []
        for key in keys_of[name]:
            if key not in read:
                value = data.get(key)
                inline_ok = any(k.manifest_inline for k in table[key])
                read[key] = [] if inline_ok and isinstance(value, dict) else _paths(data, key, inline_ok, err)
            value = data.get(key)
            if kind.manifest_inline and isinstance(value, dict):
                inline.setdefault(name, value)
            paths += read[key]
        default = [kind.default_dir] if kind.default_dir else []
        chosen = (default + paths) if (kind.manifest_adds or not paths) else paths
        components[name] = tuple(_dedup(chosen, err))
    return components, inline


def _paths(data: dict, key: str, inline_ok: bool, err) -> list[str]:
    value = data.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    allowed = "a path, an array of paths or an object" if inline_ok else "a path or an array of paths"
    err("manifest-invalid", f"key {key!r} must be {allowed}, not {type(value).__name__}")
    return []


def _dedup(paths: list[str], err) -> list[str]:
    out: list[str] = []
    for p in paths:
        try:
            n = _norm(p)
        except fs.SafeFsError as exc:
            if p in (".", "./"):
                n = "."
            else:
                err("manifest-path", f"component path {p!r} is refused: {exc.args[0]}")
                continue
        if n not in out:
            out.append(n)
    return out


def _dependencies(value: Any, name: str, err) -> tuple[tuple[str, str], ...]:
    """Claude Code's list of names or ``{name, version}``, or Blade's ``{name: range}``."""
    if value is None:
        return ()
    pairs: list[tuple[str, str]] = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for v in value:
            if isinstance(v, str):
                items.append((v, "*"))
            elif isinstance(v, dict) and isinstance(v.get("name"), str):
                items.append((v["name"], v.get("version", "*")))
            else:
                err("manifest-invalid", "each entry of 'dependencies' must be a name or {name, version}")
    else:
        err("manifest-invalid", "key 'dependencies' must be an object or an array")
        return ()
    for dep, rng in items:
        dep_name = dep.split("@", 1)[0] if isinstance(dep, str) else dep
        if not isinstance(dep_name, str) or not NAME_RE.match(dep_name):
            err("manifest-dependency", f"invalid dependency name {dep!r}")
            continue
        if dep_name == name:
            err("manifest-dependency", f"plugin {name!r} cannot depend on itself")
            continue
        import nodesemver

        if not isinstance(rng, str) or nodesemver.valid_range(rng, False) is None:
            err("manifest-dependency", f"invalid dependency range for {dep_name}: {rng!r}")
            continue
        pairs.append((dep_name, rng))
    return tuple(pairs)


def satisfies(version: str | None, rng: str) -> bool:
    """Whether ``version`` satisfies the npm-style range ``rng`` (node-semver).
    A missing version satisfies only ``*`` / empty ranges."""
    if rng.strip() in ("", "*", "x"):
        return True
    if version is None:
        return False
    import nodesemver

    try:
        return bool(nodesemver.satisfies(version, rng, False))
    except Exception:  # node-semver raises ValueError/TypeError on junk
        return False
