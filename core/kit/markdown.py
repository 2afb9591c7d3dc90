"""A markdown resource kind in one declaration: :class:`MarkdownKind`.

A markdown kind keeps one resource per ``.md`` file: ``<default_dir>/`` of
every source (``~/.claude/prompts/``, a trusted project's ``.claude/prompts/``,
any folder a plugin adds with ``wskit_resource_sources``) and of every content
plugin, where a ``plugin.json`` may name other paths under the kind's manifest
keys (:attr:`~wskit.kinds.ResourceKind.manifest_keys`). A :class:`MarkdownKind`
gives such a kind the three things wskit calls:

- ``wskit_resource_kinds``: the :class:`~wskit.kinds.ResourceKind`, with
  ``markdown`` set and the loader attached;
- the loader: :meth:`MarkdownKind.load_markdown` (every ``.md`` file read
  through :mod:`wskit.fs`, frontmatter parsed, a
  :class:`~wskit.resources.markdown.MarkdownResource` per file) or a loader of
  the plugin's own;
- ``wskit_register_commands``: ``wsctl <plural> list`` and ``show`` (human
  output and ``--json``), built by :mod:`wskit.kit.markdown_cli` only when the
  command runs.

A plugin module exposes the hooks under their names (pluggy reads a module's
``wskit_*`` attributes)::

    from wskit.kit.markdown import MarkdownKind

    PROMPTS = MarkdownKind("prompt", help="Prompts: prompts/*.md of every source and content plugin.")
    wskit_resource_kinds = PROMPTS.wskit_resource_kinds
    wskit_register_commands = PROMPTS.wskit_register_commands

Listings are customised with constructor arguments (``columns``, ``noun``…)
and by overriding the methods the commands call (:meth:`MarkdownKind.row`,
:meth:`MarkdownKind.items`, :meth:`MarkdownKind.heading`…); the built-in
``agents``, ``commands`` and ``styles`` plugins are such subclasses.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from wskit.errors import WskitError
from wskit.kinds import ResourceKind
from wskit.plugin import hookimpl
from wskit.values import Value

if TYPE_CHECKING:
    import click

    from wskit.cli.context import WsctlContext
    from wskit.formats.frontmatter import Frontmatter
    from wskit.models import Diagnostic, LoadResult, Provenance, Resource, ResourceSource
    from wskit.workspace import WorkspaceResources

__all__ = ["Column", "MarkdownFile", "MarkdownKind"]

#: A column of ``wsctl <plural> list``: header and the cell of one resource.
Column = tuple[str, Callable[[Any], object]]

#: A name segment (a file or folder below the kind's folder): what commands allow.
_SEGMENT = r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\Z"


class MarkdownFile(Value, eq=False):
    """One markdown file :meth:`MarkdownKind.load_markdown` read, handed to
    :meth:`MarkdownKind.resource` to build the resource (read-only by convention;
    a value class compared by identity).

    :ivar source: the source it was found in.
    :ivar rel: its path relative to ``source.base`` (``/`` separators).
    :ivar path: its absolute path, as diagnostics name it.
    :ivar name: the path below the kind's folder without ``.md``, folders
        joined by ``:``.
    :ivar id: ``<scope>:<name>``, or ``plugin:<plugin>:<name>`` in a content plugin.
    :ivar description: frontmatter ``description``, else the body's first line.
    :ivar body: the text after the frontmatter (the whole file without one), stripped.
    :ivar data: the frontmatter mapping (empty without frontmatter).
    :ivar raw: the file's bytes.
    :ivar frontmatter: the parsed frontmatter (``line_of(key)`` gives a key's line).
    """

    source: ResourceSource
    rel: str
    path: str
    name: str
    id: str
    description: str
    body: str
    data: dict[str, Any]
    raw: bytes
    frontmatter: Frontmatter

    def provenance(self) -> Provenance:
        """Where the resource comes from (scope, root, path, plugin, SHA-256 of the bytes)."""
        from wskit.models import Provenance, sha256_hex

        src = self.source
        return Provenance(scope=src.scope, source_root=src.base, path=self.rel, plugin=src.plugin,
                          sha256=sha256_hex(self.raw))


class MarkdownKind:
    """A markdown resource kind: its :class:`~wskit.kinds.ResourceKind`, loader,
    hook implementations and ``wsctl`` group (see the module docstring).

    :param kind: the kind's singular name (``"prompt"``), or a whole
        :class:`~wskit.kinds.ResourceKind` (built-ins pass theirs, with a
        ``hook`` or a ``filter``). ``markdown`` is set on it, and ``loader`` when
        it has neither a hook nor a loader.
    :param plural: with a name: the plural (default ``name + "s"``), also the
        ``wsctl`` group, the JSON key of ``list`` and the default folder.
    :param default_dir: with a name: the folder under each source root (default the plural).
    :param manifest_keys: with a name: the ``plugin.json`` keys naming other
        paths in a content plugin (default the plural); they replace the default folder.
    :param load: the loader ``load(source) -> LoadResult`` (default
        :meth:`load_markdown`); for a kind with a ``hook`` it is what the hook
        implementation returned by :meth:`hook_impl` calls.
    :param help: help of the ``wsctl <plural>`` group (default: the folders it reads).
    :param noun: what the resources are called in help texts (default the plural).
    :param empty: what ``list`` prints when there is none (default ``no <noun>``).
    :param columns: the table of ``list``: ``(header, cell(resource))`` pairs
        (default ID and the description); ``list`` cuts a ``DESCRIPTION`` cell as every
        listing does (:func:`~wskit.cli.context.shorten`: 60 characters, a final "…").
    :param list_help: help of ``list`` (default ``List the <noun> of the workspace holding PATH.``).
    :param show: whether the group has ``show`` (default True).
    :param show_help: help of ``show`` (default ``Show one <name> with its text.``).
    :param show_argument: name of ``show``'s argument (default ``name``; it names
        the metavar shown in help).
    :param max_depth: deepest folder :meth:`load_markdown` reads (1: the kind's folder only).
    :param max_bytes: largest file :meth:`load_markdown` reads (a larger one is a ``too-large`` diagnostic).
    :param max_description: longest description :meth:`load_markdown` keeps
        (a longer one is the error ``<name>-description-too-long`` and the file is not loaded).
    :raises TypeError: ``plural``, ``default_dir`` or ``manifest_keys`` given with a
        :class:`~wskit.kinds.ResourceKind` (it says them itself).
    """

    def __init__(
        self,
        kind: ResourceKind | str,
        *,
        plural: str | None = None,
        default_dir: str | None = None,
        manifest_keys: Sequence[str] | None = None,
        load: Callable[[ResourceSource], LoadResult] | None = None,
        help: str | None = None,
        noun: str | None = None,
        empty: str | None = None,
        columns: Sequence[Column] | None = None,
        list_help: str | None = None,
        show: bool = True,
        show_help: str | None = None,
        show_argument: str = "name",
        max_depth: int = 8,
        max_bytes: int = 1024 * 1024,
        max_description: int = 1024,
    ) -> None:
        name = kind if isinstance(kind, str) else kind.name
        if not _is_kind_name(name):
            raise ValueError(f"kind name {name!r}: use lowercase letters, digits and '_', starting with a letter")
        if isinstance(kind, str):
            plural = plural or f"{kind}s"
            kind = ResourceKind(name=kind, plural=plural, default_dir=default_dir or plural,
                                manifest_keys=tuple(manifest_keys) if manifest_keys is not None else (plural,))
        elif plural is not None or default_dir is not None or manifest_keys is not None:
            raise TypeError("plural, default_dir and manifest_keys come from the ResourceKind given")
        self._load = load or self.load_markdown
        update: dict[str, Any] = {"markdown": True}
        if kind.hook is None and kind.loader is None:
            update["loader"] = self.load
        #: the kind registered through :meth:`wskit_resource_kinds`
        self.kind: ResourceKind = kind.model_copy(update=update)
        self.name = kind.name
        #: the ``wsctl`` group and the JSON key of ``list``
        self.plural = kind.plural_name
        self.noun = noun or self.plural
        self.help = help or f"{self.plural.capitalize()}: {kind.default_dir}/*.md of every source and content plugin."
        self.empty = empty or f"no {self.noun}"
        self.columns: tuple[Column, ...] = tuple(columns) if columns is not None else (
            ("ID", lambda r: r.id), ("DESCRIPTION", lambda r: _shorten(r.description)))
        self.list_help = list_help or f"List the {self.noun} of the workspace holding PATH."
        self.show = show
        self.show_help = show_help or f"Show one {self.name} with its text."
        self.show_argument = show_argument
        self.max_depth = max_depth
        self.max_bytes = max_bytes
        self.max_description = max_description
        self._group: click.Group | None = None

    def __repr__(self) -> str:
        return f"MarkdownKind({self.name!r})"

    # -- the hook implementations ---------------------------------------

    @hookimpl
    def wskit_resource_kinds(self) -> list[ResourceKind]:
        """``wskit_resource_kinds``: this kind (:attr:`kind`)."""
        return [self.kind]

    @hookimpl
    def wskit_register_commands(self, cli: click.Group) -> None:
        """``wskit_register_commands``: the ``wsctl <plural>`` group, built by
        :meth:`group` when it is first needed (``wsctl --help`` lists it without building it).

        :raises WskitError: ``wsctl <plural>`` already exists (a built-in's command, or another
            plugin's kind of the same name): the kind's ``list``/``show`` would take that
            command over, so none is added and the plugin is reported as failing in this hook.
        """
        from wskit.cli.lazy import add_lazy_command

        commands = getattr(cli, "commands", {})
        if self.plural in commands:
            raise WskitError(f"wsctl {self.plural} already exists; the {self.name!r} kind adds no commands "
                             "(give the kind another name or plural)")
        add_lazy_command(cli, self.plural, self.group, self.help)

    def hook_impl(self) -> Callable[[ResourceSource], LoadResult]:
        """A hook implementation ``(source) -> LoadResult`` calling :meth:`load`,
        for a kind loaded through a hook (``kind.hook``): assign it to the hook's
        name in the plugin module (``wskit_load_agents = AGENTS.hook_impl()``)."""

        def load(source: ResourceSource) -> LoadResult:
            return self.load(source)

        load.__doc__ = f"``{self.kind.hook}``: the {self.noun} of ``source``."
        return hookimpl(load)

    # -- loading ---------------------------------------------------------

    def load(self, source: ResourceSource) -> LoadResult:
        """The resources of ``source``: the ``load`` given, else :meth:`load_markdown`."""
        return self._load(source)

    def load_markdown(self, source: ResourceSource) -> LoadResult:
        """Every ``.md`` file of the kind's folders of ``source`` as a resource.

        Folders are :func:`wskit.formats.mdwalk.component_dirs` (a content
        plugin's manifest may name others); files are read through
        :mod:`wskit.fs` (links refused outside user scope, at most
        ``max_bytes``). A ``.agents`` folder holds skills only and yields nothing.
        Frontmatter is optional; ``description`` defaults to the body's first line.

        Bad content is a diagnostic, never an exception: ``<name>-too-deep`` and
        ``<name>-skipped`` (a folder below ``max_depth``, a link or special
        file: warnings), ``<name>-name-invalid`` (a file or folder name outside
        ``[A-Za-z0-9_.-]``: warning), ``hidden-characters`` (warning, the file
        still loads), ``<name>-description-too-long`` (error), the frontmatter
        parser's errors and :mod:`wskit.fs`'s refusals. Each file that passes is
        given to :meth:`resource`.

        :returns: a :class:`~wskit.models.LoadResult`.
        """
        from wskit.formats.mdwalk import is_agents_convention, walk_markdown
        from wskit.models import LoadResult

        if is_agents_convention(source):
            return LoadResult()
        entries, diags = walk_markdown(source, self.kind, max_depth=self.max_depth)
        out: list[Resource] = []
        for e in entries:
            path = f"{source.base}/{e.rel}"
            if e.type == "deep-dir":
                diags.append(self._warn("too-deep", path, source, f"folder deeper than {self.max_depth} levels is not read"))
            elif e.type != "file":
                diags.append(self._warn("skipped", path, source, f"{e.type} entry is not read as a {self.name}"))
            else:
                found = self._load_file(source, e.rel, e.segments)
                for item in found:
                    (out if not _is_diagnostic(item) else diags).append(item)
        return LoadResult(resources=tuple(out), diagnostics=tuple(diags))

    def _load_file(self, source: ResourceSource, rel: str, segments: tuple[str, ...]) -> list[Any]:
        from wskit import fs
        from wskit.formats.mdwalk import description_too_long, first_line, hidden_chars_diag, text_field

        path = f"{source.base}/{rel}"
        try:
            res = fs.read_bytes(source.base, rel, max_bytes=self.max_bytes, follow_links=source.follow_links)
            text = fs.decode_text(res.raw, res.path)
        except fs.SafeFsError as err:
            return [err.diagnostic(plugin=source.plugin)]
        fm = _parse_frontmatter()(text, path)
        out: list[Any] = [d.model_copy(update={"plugin": source.plugin}) for d in fm.diagnostics]
        hidden = hidden_chars_diag(text, path, source, f"{self.name} file")
        if hidden is not None:
            out.append(hidden)
        if fm.present and not fm.ok:
            return out
        if not all(_segment().match(s) for s in segments):
            return out + [self._warn("name-invalid", path, source, f"invalid {self.name} name {':'.join(segments)!r}")]
        body = (fm.body if fm.present else text).strip()
        data = dict(fm.data) if fm.present else {}
        description = text_field(data.get("description")) or first_line(body)
        too_long = description_too_long(description, self.max_description, f"{self.name}-description-too-long",
                                        path, source, fm.line_of("description"))
        if too_long is not None:
            return out + [too_long]
        name = ":".join(segments)
        rid = f"plugin:{source.plugin}:{name}" if source.plugin else f"{source.scope.value}:{name}"
        made = self.resource(MarkdownFile(source=source, rel=rel, path=path, name=name, id=rid,
                                          description=description, body=body, data=data, raw=res.raw,
                                          frontmatter=fm))
        return out + [made]

    def resource(self, file: MarkdownFile) -> Resource | Diagnostic:
        """The resource of one file :meth:`load_markdown` read (override to read
        more frontmatter keys or to refuse a file with a
        :class:`~wskit.models.Diagnostic`). Default: a
        :class:`~wskit.resources.markdown.MarkdownResource` with the file's
        body and its other frontmatter keys as ``extra``."""
        from wskit.resources.markdown import MarkdownResource

        return MarkdownResource(kind=self.name, id=file.id, name=file.name, description=file.description,
                                provenance=file.provenance(), body=file.body,
                                extra={k: v for k, v in file.data.items() if k != "description"})

    def _warn(self, what: str, path: str, source: ResourceSource, message: str) -> Diagnostic:
        from wskit.models import Diagnostic

        return Diagnostic(level="warning", code=f"{self.name}-{what}", path=path, message=message,
                          plugin=source.plugin)

    # -- the wsctl commands ------------------------------------------------

    def group(self) -> click.Group:
        """The ``wsctl <plural>`` group: ``list``, ``show`` (unless ``show=False``)
        and :meth:`extra_commands` (:func:`wskit.kit.markdown_cli.kind_group`).

        Built on the first call and the same object afterwards, as a group
        defined at a module's top level is (every ``wsctl`` tree of the process
        shares it)."""
        if self._group is None:
            from wskit.kit.markdown_cli import kind_group

            self._group = kind_group(self)
        return self._group

    def extra_commands(self) -> list[click.Command]:
        """More sub-commands of the group (none by default; ``commands`` adds ``render``)."""
        return []

    def items(self, obj: WsctlContext, ws: WorkspaceResources) -> list[Any]:
        """What ``list`` lists: the active resources of the kind's registry."""
        return ws.registry(self.name).active()

    def lookup(self, obj: WsctlContext, ws: WorkspaceResources, name: str) -> Any:
        """What ``show NAME`` shows: the registry's resource for ``name`` (bare,
        qualified or ``plugin:<p>:<x>``).

        :raises wskit.errors.WskitError: no resource or an ambiguous name
            (:meth:`wskit.registry.Registry.get`; wsctl prints it as an error).
        """
        return ws.registry(self.name).get(name)

    def diagnostics(self, ws: WorkspaceResources) -> list[Diagnostic]:
        """The diagnostics ``list`` shows: codes starting with the kind's name,
        or a path inside a ``/<default_dir>/`` folder."""
        folder = f"/{self.kind.default_dir}/"
        return [d for d in ws.diagnostics if d.code.startswith((self.name,)) or (d.path and folder in d.path)]

    def row(self, resource: Any, root: Any) -> dict[str, Any]:
        """The JSON object of one resource in ``list`` and ``show``: id, name,
        description, scope, path (relative to ``root`` when inside it), plugin."""
        from wskit.models import display_path

        return {"id": resource.id, "name": resource.name, "description": resource.description,
                "scope": resource.scope.value, "path": display_path(resource.provenance.absolute_str, root),
                "plugin": resource.plugin}

    def details(self, resource: Any) -> dict[str, Any]:
        """What ``show`` adds to :meth:`row`: the ``body``."""
        return {"body": getattr(resource, "body", "")}

    def heading(self, resource: Any, data: dict[str, Any]) -> list[str]:
        """The lines ``show`` prints above ``---`` (``data``: its JSON object)."""
        return [f"{resource.id} ({resource.scope.value}) — {resource.description}"]

    def body(self, resource: Any) -> str:
        """The text ``show`` prints below ``---``."""
        return getattr(resource, "body", "")


def _is_kind_name(name: str) -> bool:
    """Kind names are ``snake_case``: a lowercase ASCII letter, then letters, digits or ``_``."""
    return bool(name) and name.isascii() and name[0].isalpha() and name.islower() and \
        name.replace("_", "a").isalnum()


def _is_diagnostic(item: Any) -> bool:
    from wskit.models import Diagnostic

    return isinstance(item, Diagnostic)


@functools.cache
def _parse_frontmatter() -> Callable[..., Frontmatter]:
    """The frontmatter parser, imported by the first file read (an empty workspace
    imports no YAML parser)."""
    from wskit.formats.frontmatter import parse_frontmatter

    return parse_frontmatter


@functools.cache
def _segment():
    import re

    return re.compile(_SEGMENT)


def _shorten(text: str) -> str:
    from wskit.cli.context import shorten

    return shorten(text)
