"""Output styles: loading style files from a source (reference/blade.md §3.2–3.4).

Folders: ``output-styles/`` of user and project ``.claude/`` and ``.<host>/``
(the host folder wins for the same id) and of content plugins. Ids are
``user:<key>``, ``project:<key>`` and ``plugin:<plugin>:<key>``; the key is
the path below the folder without ``.md``, lower-cased, folders joined by ``:``.

Scan violations fail the whole resolution (Blade §3.3): the loader reports them
as ``style-catalog-invalid`` errors and :class:`wskit.builtin_plugins.styles.catalog.StyleCatalog`
refuses to build. They are: a style root that is a link (outside user scope),
a link inside it, a folder deeper than :attr:`StyleLimits.max_depth`, and more
than :attr:`StyleLimits.max_styles` files in one root.

A style's name (:attr:`Style.title`) is its frontmatter ``name``, else its file name without
``.md``, case kept (Claude Code's naming; the id's key is lower-cased).

A bad file is a warning and is skipped (Blade §3.4): over ``max_file_bytes``,
empty prompt, prompt over ``max_prompt_bytes``, hidden control characters,
a key that is not 1–4 safe segments, a name over 80 or a description over 256
characters.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

from wskit import fs
from wskit.builtin_plugins.styles import STYLE_FOLDERS  # declared with the plugin (registered without this module)
from wskit.formats.mdwalk import bool_field, component_dirs, first_line, join, root_rel, text_field, walk_markdown
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, Scope, sha256_hex
from wskit.util.lazyre import lazy_pattern
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.resources.style import Style


KIND = STYLE_FOLDERS.name
DEFAULT_DIR = STYLE_FOLDERS.default_dir
#: Code of scan and catalog violations that fail the whole style resolution.
FATAL = "style-catalog-invalid"
SEGMENT = lazy_pattern(globals(), "SEGMENT", r"^[a-z0-9][a-z0-9._-]{0,63}\Z")


class StyleLimits(FrozenValue):
    """Limits of the style catalog; the defaults are Blade's (§3.1). Sizes in bytes
    (immutable; a plain class, so start-up compiles nothing: see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    max_styles: int
    max_file_bytes: int
    max_prompt_bytes: int
    max_total_bytes: int
    max_depth: int
    max_name: int
    max_description: int

    def __init__(self, max_styles: int = 32, max_file_bytes: int = 24 * 1024, max_prompt_bytes: int = 16 * 1024,
                 max_total_bytes: int = 128 * 1024, max_depth: int = 4, max_name: int = 80,
                 max_description: int = 256) -> None:
        _set = object.__setattr__
        _set(self, "max_styles", max_styles)
        _set(self, "max_file_bytes", max_file_bytes)
        _set(self, "max_prompt_bytes", max_prompt_bytes)
        _set(self, "max_total_bytes", max_total_bytes)
        _set(self, "max_depth", max_depth)
        _set(self, "max_name", max_name)
        _set(self, "max_description", max_description)


BLADE_LIMITS = StyleLimits()


def prefix_for(source: ResourceSource) -> str | None:
    """The id prefix of a source's styles (None: this scope holds no styles)."""
    if source.plugin:
        return f"plugin:{source.plugin}"
    if source.scope is Scope.USER:
        return "user"
    if source.scope in (Scope.PROJECT, Scope.LOCAL):
        return "project"
    return None


def load_styles(source: ResourceSource, limits: StyleLimits = BLADE_LIMITS) -> LoadResult:
    """Load the styles of ``source`` (see the module docstring)."""
    prefix = prefix_for(source)
    if prefix is None or (source.plugin is None and os.path.basename(source.root) == ".agents"):
        return LoadResult()
    if source.plugin and not SEGMENT.match(source.plugin):
        return LoadResult(diagnostics=(Diagnostic(
            level="warning", code="style-plugin-name", path=source.root, plugin=source.plugin,
            message=f"plugin name {source.plugin!r} is not a safe style segment; its styles are not loaded"),))
    diags: list[Diagnostic] = []
    out: list[Style] = []
    for sub in component_dirs(source, STYLE_FOLDERS):
        top = join(root_rel(source), sub)
        top_abs = os.path.join(source.base, top)
        if os.path.islink(top_abs) and not source.follow_links:
            diags.append(_fatal(top_abs, source, f"Output style root cannot be a symlink: {top_abs}"))
            continue
        one = source.model_copy(update={"components": {KIND: (sub,)}})
        entries, found = walk_markdown(one, STYLE_FOLDERS, max_depth=limits.max_depth)
        diags.extend(found)
        bad = [e for e in entries if e.type != "file"]
        if bad:
            e = bad[0]
            msg = (f"Output style directory exceeds depth {limits.max_depth}" if e.type == "deep-dir"
                   else f"Output style path cannot be a symlink: {source.base}/{e.rel}")
            diags.append(_fatal(f"{source.base}/{e.rel}", source, msg))
            continue
        if len(entries) > limits.max_styles:
            diags.append(_fatal(top_abs, source, f"Output style catalog exceeds {limits.max_styles} files"))
            continue
        for e in entries:
            style, d = _load_one(source, prefix, e.rel, e.segments, limits)
            diags.extend(d)
            if style is not None:
                out.append(style)
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def _load_one(source, prefix, rel, segments, limits: StyleLimits) -> tuple[Style | None, list[Diagnostic]]:
    path = f"{source.base}/{rel}"

    def skip(msg: str, line: int | None = None) -> tuple[None, list[Diagnostic]]:
        return None, [Diagnostic(level="warning", code="style-skipped", path=path, line=line, plugin=source.plugin,
                                 message=f"Ignoring {prefix} style: {msg}")]

    try:
        res = fs.read_bytes(source.base, rel, max_bytes=limits.max_file_bytes, follow_links=source.follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        if err.code == "too-large":
            return skip(f"Output style exceeds {limits.max_file_bytes} bytes")
        return skip(err.args[0])
    parse_frontmatter, Style = _deps()
    fm = parse_frontmatter(text, path)
    if fm.present and not fm.ok:
        d = fm.diagnostics[0] if fm.diagnostics else None
        return skip(d.message if d else "invalid frontmatter", d.line if d else None)
    prompt = (fm.body if fm.present else text).strip()
    if not prompt:
        return skip("Output style prompt must not be empty")
    if len(prompt.encode("utf-8")) > limits.max_prompt_bytes:
        return skip(f"Output style prompt exceeds {limits.max_prompt_bytes} bytes")
    if any(True for _ in fs.find_hidden_chars(prompt)):
        return skip("Output style prompt contains hidden control characters")
    segs = [s.lower() for s in segments]
    if not 1 <= len(segs) <= limits.max_depth or not all(SEGMENT.match(s) for s in segs):
        return skip(f"Style path must use 1-{limits.max_depth} lowercase safe segments")
    key = ":".join(segs)
    # without a ``name`` the style is named by its file, case kept and folders left out, as
    # Claude Code names it (``Sub/Deep.md`` is ``Deep``; asked: tests/conformance/disagreements.py)
    title = text_field(fm.data.get("name")) or segments[-1]
    if len(title) > limits.max_name:
        return skip(f"Name exceeds {limits.max_name} characters", fm.line_of("name"))
    if any(True for _ in fs.find_hidden_chars(title)):
        return skip("Name contains hidden control characters", fm.line_of("name"))
    description = text_field(fm.data.get("description")) or first_line(prompt) or f"Custom {key} communication style"
    if len(description) > limits.max_description:
        return skip(f"Description exceeds {limits.max_description} characters", fm.line_of("description"))
    if any(True for _ in fs.find_hidden_chars(description)):
        return skip("Description contains hidden control characters", fm.line_of("description"))
    sid = f"{prefix}:{key}"
    keep = bool_field(fm.data.get("keep-coding-instructions"), False)
    style = Style(
        id=sid, name=sid, key=key, title=title, description=description, prompt=prompt,
        content_sha256=sha256_hex(prompt.encode("utf-8")), keep_coding_instructions=bool(keep),
        provenance=Provenance(scope=source.scope, source_root=source.base, path=rel, plugin=source.plugin,
                              sha256=sha256_hex(res.raw)),
    )
    # what the lenient read said (yaml-duplicate-key, yaml-quoted-retry…), naming the file,
    # as the skills and commands loaders report it
    return style, [d.model_copy(update={"plugin": source.plugin}) for d in fm.diagnostics]


@functools.cache
def _deps() -> tuple:
    """``(parse_frontmatter, Style)``, imported by the first style file read: a workspace
    without one never imports PyYAML or builds the model. Cached, so a
    per-file loop does not pay a function-level import (~2 µs) per file."""
    from wskit.formats.frontmatter import parse_frontmatter
    from wskit.resources.style import Style

    return parse_frontmatter, Style


def _fatal(path: str, source: ResourceSource, message: str) -> Diagnostic:
    return Diagnostic(level="error", code=FATAL, path=path, message=message, plugin=source.plugin)
