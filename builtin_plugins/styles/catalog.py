"""The style catalog of a session and the selected style's provenance (blade.md §3.5, §3.6).

- :meth:`StyleCatalog.build` fails the whole resolution with
  :class:`StyleCatalogError` when a source reported a scan violation
  (``style-catalog-invalid``), when there are more than
  :attr:`~wskit.builtin_plugins.styles.loader.StyleLimits.max_styles` custom styles, or when their
  prompts total more than :attr:`~wskit.builtin_plugins.styles.loader.StyleLimits.max_total_bytes`;
- built-in styles come from the host through the ``wskit_builtin_styles`` hook;
  a custom style cannot take a built-in's id;
- a selection is a built-in id or ``user|project:<seg>(:<seg>){0,3}`` or
  ``plugin:<seg>:<seg>(:<seg>){0,3}`` (≤ 300 characters);
- :func:`select_style` returns the record a session stores in
  ``SessionState.extensions["output_style"]`` (``{"id", "sha256"}``, the shape
  :func:`wskit.session.resume.restore` verifies, with the digest it compares);
  :func:`restore_style` refuses a custom style whose file changed
  (``Communication style provenance mismatch: <id>``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from wskit.builtin_plugins.styles.loader import BLADE_LIMITS, FATAL, StyleLimits
from wskit.errors import ProvenanceMismatchError, WskitError
from wskit.models import Diagnostic
from wskit.resources.style import Style

EXTENSION_KEY = "output_style"
MAX_SELECTION = 300
_SEG = r"[a-z0-9][a-z0-9._-]{0,63}"
_SELECTION = re.compile(rf"^(?:(?:user|project):{_SEG}(?::{_SEG}){{0,3}}|plugin:{_SEG}:{_SEG}(?::{_SEG}){{0,3}})\Z")


class StyleCatalogError(WskitError):
    """The style resolution failed as a whole (a catalog limit or scan violation)."""


class StyleUnavailableError(WskitError, LookupError):
    """The selected style is invalid or not in the catalog."""

    #: wsctl adds the folder searched and its trust to the message
    searched_hint = True


class StyleProvenanceError(ProvenanceMismatchError):
    """A resumed session's custom style changed since it was selected (a
    :class:`~wskit.errors.ProvenanceMismatchError`; the message names the style's file)."""

    def __init__(self, message: str, drift: list[dict[str, Any]] | None = None) -> None:
        super().__init__(drift or [], message)


class StyleCatalog:
    """Built-in and custom styles of one session, checked against the limits.

    A user style with the same name (:attr:`~wskit.resources.style.Style.title`, compared
    exactly) as a project style is shadowed: Claude Code 2.1.337 offers one style of that
    name, the project's, whichever file is read first (case ``style-same-name``). Plugin
    styles are named ``<plugin>:<name>`` by Claude Code and shadow nothing.

    :ivar styles: id -> :class:`~wskit.resources.style.Style` (shadowed styles left out).
    :ivar shadowed: id of a shadowed user style -> id of the project style that shadows it.
    """

    def __init__(self, styles: Mapping[str, Style]) -> None:
        styles = dict(styles)
        project = {}
        for s in sorted(styles.values(), key=lambda s: s.id):
            if not s.builtin and not s.plugin and s.id.startswith("project:"):
                project.setdefault(s.title, s.id)
        self.shadowed = {sid: project[s.title] for sid, s in styles.items()
                         if not s.builtin and not s.plugin and sid.startswith("user:") and s.title in project}
        self.styles = {sid: s for sid, s in styles.items() if sid not in self.shadowed}

    @classmethod
    def build(cls, custom: Iterable[Style], builtins: Iterable[Style] = (), *,
              diagnostics: Iterable[Diagnostic] = (), limits: StyleLimits = BLADE_LIMITS) -> "StyleCatalog":
        """Check and assemble a catalog.

        :param custom: the active styles of the ``style`` registry.
        :param builtins: styles from ``wskit_builtin_styles``.
        :param diagnostics: the load's diagnostics; any ``style-catalog-invalid`` fails.
        :raises StyleCatalogError: with the first violation's message.
        """
        for d in diagnostics:
            if d.code == FATAL:
                raise StyleCatalogError(d.message)
        custom = [s for s in custom if not s.builtin]
        if len(custom) > limits.max_styles:
            raise StyleCatalogError(f"Output style catalog exceeds {limits.max_styles} styles")
        total = sum(len(s.prompt.encode("utf-8")) for s in custom)
        if total > limits.max_total_bytes:
            raise StyleCatalogError(f"Output style catalog exceeds {limits.max_total_bytes} bytes")
        styles: dict[str, Style] = {}
        for b in builtins:
            styles[b.id] = b
        for s in custom:
            if s.id in styles:
                raise StyleCatalogError(f"Custom communication style cannot replace {s.id}")
            styles[s.id] = s
        return cls(styles)

    @classmethod
    def for_resources(cls, resources: Any, *, hooks: Any = None, diagnostics: Iterable[Diagnostic] | None = None,
                      limits: StyleLimits = BLADE_LIMITS) -> "StyleCatalog":
        """The catalog of a workspace or session: its ``style`` registry, the
        built-ins of ``hooks`` (default ``resources.hooks``) and, for a
        workspace, its diagnostics."""
        hooks = hooks if hooks is not None else getattr(resources, "hooks", None)
        builtins: list[Style] = []
        if hooks is not None and hasattr(hooks, "builtin_styles"):
            builtins, _ = hooks.builtin_styles()
        if diagnostics is None:
            diagnostics = getattr(resources, "diagnostics", ())
        return cls.build(resources.registry("style").active(), builtins, diagnostics=diagnostics, limits=limits)

    def list(self) -> list[Style]:
        """Every style, sorted by id."""
        return [self.styles[k] for k in sorted(self.styles)]

    def resolve(self, style_id: str) -> Style:
        """The style of a selection.

        :raises StyleUnavailableError: invalid selection (``Invalid communication
            style ID``) or unknown (``Communication style is unavailable``).
        """
        if not isinstance(style_id, str) or len(style_id) > MAX_SELECTION:
            raise StyleUnavailableError(f"Invalid communication style ID: {style_id!r}")
        found = self.styles.get(style_id)
        if found is not None and found.builtin:
            return found
        if not _SELECTION.match(style_id):
            raise StyleUnavailableError(f"Invalid communication style ID: {style_id}")
        if found is None and style_id in self.shadowed:
            raise StyleUnavailableError(f"Communication style is unavailable: {style_id} (shadowed by "
                                        f"{self.shadowed[style_id]}, a project style of the same name)")
        if found is None:
            from wskit.errors import nearest

            close = nearest(style_id, self.styles)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise StyleUnavailableError(f"Communication style is unavailable: {style_id}{hint}")
        return found

    def by_name(self, name: str) -> Style:
        """The style Claude Code's ``outputStyle`` setting names: a built-in's id or name, a
        user or project style's name (the project's when both have it), or
        ``<plugin>:<name>`` for a plugin's style. Names are compared exactly, case included
        (Claude Code 2.1.337: ``mystyle`` does not select ``MyStyle``; cases ``style-*`` of
        tests/conformance/disagreements.py).

        :raises StyleUnavailableError: no style has that name.
        """
        if not isinstance(name, str) or len(name) > MAX_SELECTION:
            raise StyleUnavailableError(f"Invalid communication style name: {name!r}")
        ranked = sorted(self.styles.values(), key=lambda s: (not s.builtin, not s.id.startswith("project:"), s.id))
        for s in ranked:
            if s.builtin and name in (s.id, s.title):
                return s
            if not s.builtin and (f"{s.plugin}:{s.title}" if s.plugin else s.title) == name:
                return s
        from wskit.errors import nearest

        names = {(f"{s.plugin}:{s.title}" if s.plugin else s.title): s for s in ranked}
        close = nearest(name, names)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise StyleUnavailableError(f"No communication style is named {name!r}{hint}")


def select_style(catalog: StyleCatalog, style_id: str) -> dict[str, Any]:
    """The record to store under ``SessionState.extensions["output_style"]``:
    ``{"id", "sha256"}``, the shape :func:`wskit.session.resume.restore` verifies,
    ``sha256`` being the digest a session records for the style
    (:meth:`~wskit.models.Resource.content_digest`: the whole style file for a
    custom style, so an edited prompt or frontmatter is drift; the prompt for a
    built-in).

    :raises StyleUnavailableError: as :meth:`StyleCatalog.resolve`.
    """
    style = catalog.resolve(style_id)
    return {"id": style.id, "sha256": style.content_digest()}


def restore_style(catalog: StyleCatalog, record: Mapping[str, Any] | None) -> Style | None:
    """The style of a resumed session (None when none was selected).

    A built-in selection always resolves; a custom one must still exist with
    the recorded digest (``sha256``: the style file's; a record of the earlier
    shape ``{"id", "digest", "builtin"}`` is compared by its prompt digest). A
    record without a digest gets none backfilled here:
    call :func:`select_style` again to record the current one.

    :raises StyleProvenanceError: the custom style's prompt changed (or the record is malformed).
    :raises StyleUnavailableError: the style is gone.
    """
    if record is None:
        return None
    if not isinstance(record, Mapping) or not isinstance(record.get("id"), str):
        raise StyleProvenanceError(f"Communication style record is malformed: {record!r}")
    style = catalog.resolve(record["id"])
    if style.builtin:
        return style
    if "sha256" in record:
        if record["sha256"] != style.content_digest():
            raise StyleProvenanceError(f"Communication style provenance mismatch: {record['id']}")
        return style
    digest = record.get("digest")  # the earlier record shape {"id", "digest" (of the prompt), "builtin"}
    if digest is not None and digest != style.content_sha256:
        path = str(style.provenance.absolute_path)
        raise StyleProvenanceError(f"Communication style provenance mismatch: {record['id']} ({path} changed)",
                                   [{"field": "output_style", "id": record["id"], "path": path, "change": "changed"}])
    return style
