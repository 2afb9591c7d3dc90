"""Custom commands: loading markdown command files from a source.

Sources (design §5, conventions.md §1.4, blade.md §10): user and project
``.claude/commands/`` and ``.<host>/commands/`` (the host folder outranks
``.claude`` at the same scope, by source rank), and a content plugin's
``commands/`` (or the folders its manifest names). ``.agents/`` holds no commands.

- every ``*.md`` file, recursively (depth ≤ :data:`MAX_DEPTH`); a file in a
  subfolder is named with ``:`` between the folders (``git/commit.md`` ->
  ``git:commit``), so two subfolders never collide; a segment holding ``:`` or
  anything but ``[A-Za-z0-9_.-]`` is refused (``command-name-invalid``);
- ids: ``<scope>:<name>`` natively, ``plugin:<plugin>:<name>`` for plugins;
- frontmatter ``description`` (default: the first body line), ``argument-hint``,
  ``allowed-tools``, ``model``, ``disable-model-invocation``, ``arguments``;
  a file without frontmatter is a command whose body is the whole text;
- links are refused outside user scope; unparseable frontmatter is an error
  diagnostic and the file is skipped.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from wskit import fs
from wskit.builtin_plugins.commands import COMMAND_FOLDERS  # declared with the plugin (registered without this module)
from wskit.formats.mdwalk import (
    body_description,
    bool_field,
    description_too_long,
    hidden_chars_diag,
    is_agents_convention,
    list_field,
    text_field,
    walk_markdown,
)
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, sha256_hex
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.resources.command import Command


KIND = COMMAND_FOLDERS.name
DEFAULT_DIR = COMMAND_FOLDERS.default_dir
MAX_DEPTH = 8
#: Largest command file read, in bytes.
MAX_COMMAND_BYTES = 1024 * 1024
#: Longest description, in characters (the Agent Skills limit, which Claude Code
#: applies to skills and commands alike); a longer one is ``command-description-too-long``.
MAX_DESCRIPTION = 1024
_SEGMENT = lazy_pattern(globals(), "_SEGMENT", r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
_KNOWN = {"description", "argument-hint", "allowed-tools", "model", "disable-model-invocation", "arguments"}


def _gemini_folder(source: ResourceSource) -> bool:
    """A ``.gemini`` user or project folder: its ``commands/`` hold Gemini CLI's TOML commands
    (the wskit-gemini plugin reads them); a ``.md`` file there is not a command for Gemini
    CLI, so it is not one here either."""
    return source.plugin is None and source.root.rstrip("/").rsplit("/", 1)[-1] == ".gemini"


def load_commands(source: ResourceSource) -> LoadResult:
    """Load every command of ``source`` (see the module docstring).

    :returns: :class:`~wskit.models.LoadResult` of :class:`~wskit.resources.command.Command`.
    """
    if is_agents_convention(source) or _gemini_folder(source):
        return LoadResult()
    entries, diags = walk_markdown(source, COMMAND_FOLDERS, max_depth=MAX_DEPTH)
    out: list[Command] = []
    for e in entries:
        path = f"{source.base}/{e.rel}"
        if e.type == "deep-dir":
            diags.append(_diag("warning", "command-too-deep", path, source,
                               f"command folder deeper than {MAX_DEPTH} levels is not read"))
            continue
        if e.type != "file":
            diags.append(_diag("warning", "symlink" if e.type == "link" else "special-file", path, source,
                               f"command file is a {e.type}; not read in {source.scope.value} sources"))
            continue
        bad = [s for s in e.segments if not _SEGMENT.match(s)]
        if bad:
            diags.append(_diag("warning", "command-name-invalid", path, source,
                               f"command path segment {bad[0]!r} must match [A-Za-z0-9_.-] (':' is the separator)"))
            continue
        cmd, found = _load_one(source, e.rel, e.segments)
        diags.extend(found)
        if cmd is not None:
            out.append(cmd)
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def _load_one(source: ResourceSource, rel: str, segments: tuple[str, ...]) -> tuple[Command | None, list[Diagnostic]]:
    path = f"{source.base}/{rel}"
    try:
        res = fs.read_bytes(source.base, rel, max_bytes=MAX_COMMAND_BYTES, follow_links=source.follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        return None, [err.diagnostic(plugin=source.plugin)]
    parse_frontmatter, Command = _deps()
    fm = parse_frontmatter(text, path)
    diags = [d.model_copy(update={"plugin": source.plugin}) for d in fm.diagnostics]
    hidden = hidden_chars_diag(text, path, source, "command file")
    if hidden is not None:
        diags.append(hidden)
    if fm.present and not fm.ok:
        # loaded with no fields, as Claude Code 2.1.332 does (strict validation reports it)
        diags = [d.model_copy(update={"level": "warning",
                                      "message": d.message + "; read leniently with no fields, as Claude Code does"})
                 if d.level == "error" else d for d in diags]
    data = fm.data if fm.ok else {}
    body = fm.body if fm.present else text
    # the file line the body starts on (its diagnostics name file lines, not body lines)
    body_line = text.count("\n", 0, len(text) - len(body)) + 1 if body and text.endswith(body) else 1
    name = ":".join(segments)
    dmi = bool_field(data.get("disable-model-invocation"), False)
    if dmi is None:
        diags.append(_diag("warning", "invalid-boolean", path, source,
                           "disable-model-invocation must be a boolean; using false", fm.line_of("disable-model-invocation")))
        dmi = False
    args = data.get("arguments")
    arguments = tuple(str(a) for a in args) if isinstance(args, list) else tuple(str(args or "").split())
    cid = f"plugin:{source.plugin}:{name}" if source.plugin else f"{source.scope.value}:{name}"
    description = text_field(data.get("description")) or body_description(body, "Custom command")
    too_long = description_too_long(description, MAX_DESCRIPTION, "command-description-too-long", path, source,
                                    fm.line_of("description"))
    if too_long is not None:
        return None, diags + [too_long]
    cmd = Command(
        id=cid, name=name, description=description,
        provenance=Provenance(scope=source.scope, source_root=source.base, path=rel,
                              plugin=source.plugin, sha256=sha256_hex(res.raw)),
        namespace=":".join(segments[:-1]) or None, body=body, body_line=body_line,
        argument_hint=text_field(data.get("argument-hint")), model=text_field(data.get("model")),
        allowed_tools=list_field(data.get("allowed-tools")), disable_model_invocation=dmi,
        arguments=arguments, extra={k: v for k, v in data.items() if k not in _KNOWN},
    )
    return cmd, diags


@functools.cache
def _deps() -> tuple:
    """``(parse_frontmatter, Command)``, imported by the first command file read: a workspace
    without one never imports PyYAML or builds the model. Cached, so a
    per-file loop does not pay a function-level import (~2 µs) per file."""
    from wskit.formats.frontmatter import parse_frontmatter
    from wskit.resources.command import Command

    return parse_frontmatter, Command


def _diag(level, code, path, source: ResourceSource, message, line=None) -> Diagnostic:
    return Diagnostic(level=level, code=code, path=path, line=line, message=message, plugin=source.plugin)
