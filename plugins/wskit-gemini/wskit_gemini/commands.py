"""Gemini CLI custom commands: ``commands/**/*.toml`` (reference/conventions.md §3.3).

Loading (:func:`load_toml_commands`): one command per file under the source's
``commands/`` folder; the name is the path below it without ``.toml``, folders
joined by ``:`` (``git/commit.toml`` -> ``git:commit``). Fields: ``prompt``
(string, required) and ``description`` (string; default
``Custom command from <file>``). A TOML syntax error skips the file with a
``gemini-command-invalid-toml`` error naming the line (taken from tomllib's
message), and so does a file nested deeper than 64 levels or holding a value
Python cannot hold (:mod:`wskit.fs.tomlsafe`): that one command, never the loader; a file without a string ``prompt`` is a ``gemini-command-invalid``
error. Resources are :class:`wskit.resources.command.Command` with
``extra={"format": "gemini-toml"}``, so they share the ``command`` registry
(and its namespacing) with markdown commands.

Expansion (:func:`expand_toml_command`), in Gemini's order but with wskit's
safety choices (design §5):

1. ``@{path}`` is replaced by the file's text, or a folder's listing, read
   through :mod:`wskit.fs` inside the workspace root only;
2. ``!{cmd}`` (balanced braces) runs only through the ``runner`` the integrator
   passes (:data:`wskit.builtin_plugins.commands.expand.Runner`); without one it stays as written with a
   ``command-shell-not-run`` diagnostic; a failure injects the error and
   ``[Shell command exited with an error]``;
3. ``{{args}}`` is the raw argument text in the prompt and shell-quoted inside
   ``!{...}``; without ``{{args}}``, arguments are appended after two newlines
   as the full typed command (``/name args``).

Placeholders are found in the template, never in argument text, so arguments
cannot introduce a file read or a shell command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.fs import tomlsafe
from wskit.models import Diagnostic, LoadResult, Provenance, ResourceSource, sha256_hex
from wskit.util.lazyre import lazy_pattern

if TYPE_CHECKING:
    from wskit.resources.command import Command

FORMAT = "gemini-toml"
MAX_DEPTH = 8
#: Largest command file read, in bytes.
MAX_COMMAND_BYTES = 256 * 1024
_SEGMENT = lazy_pattern(globals(), "_SEGMENT", r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")


def _diag(level: str, code: str, path: str, source: ResourceSource, message: str, line: int | None = None):
    return Diagnostic(level=level, code=code, path=path, line=line, message=message, plugin=source.plugin)


def _walk(source: ResourceSource, rel_dir: str, segs: tuple[str, ...], out: list, diags: list) -> None:
    try:
        entries = fs.scan_dir(source.base, rel_dir, follow_links=source.follow_links)
    except fs.SafeFsError as err:
        if err.code != "not-found" or segs:
            diags.append(err.diagnostic(plugin=source.plugin))
        return
    for e in entries:
        if e.name.startswith("."):
            continue
        rel = f"{rel_dir}/{e.name}"
        if e.type == "dir":
            if len(segs) + 2 > MAX_DEPTH:
                diags.append(_diag("warning", "command-too-deep", f"{source.base}/{rel}", source,
                                   f"command folder deeper than {MAX_DEPTH} levels is not read"))
            else:
                _walk(source, rel, (*segs, e.name), out, diags)
        elif e.name.endswith(".toml"):
            if e.type != "file":
                diags.append(_diag("warning", "symlink" if e.type == "link" else "special-file",
                                   f"{source.base}/{rel}", source,
                                   f"command file is a {e.type}; not read in {source.scope.value} sources"))
                continue
            out.append((rel, (*segs, e.name[:-5])))


def load_toml_commands(source: ResourceSource) -> LoadResult:
    """Every TOML command of ``source`` (its ``command`` component folders, default ``commands``).

    :returns: :class:`~wskit.models.LoadResult` of :class:`~wskit.resources.command.Command`.
    """
    import os

    base_rel = os.path.relpath(source.root, source.base).replace(os.sep, "/")
    files: list[tuple[str, tuple[str, ...]]] = []
    diags: list[Diagnostic] = []
    for sub in source.dirs_for("command", "commands"):
        top = sub if base_rel == "." else f"{base_rel}/{sub}"
        _walk(source, top, (), files, diags)
    out: list[Command] = []
    for rel, segs in sorted(files):
        path = f"{source.base}/{rel}"
        bad = [s for s in segs if not _SEGMENT.match(s)]
        if bad:
            diags.append(_diag("warning", "command-name-invalid", path, source,
                               f"command path segment {bad[0]!r} must match [A-Za-z0-9_.-] (':' is the separator)"))
            continue
        cmd, d = _load_one(source, rel, segs)
        diags += d
        if cmd is not None:
            out.append(cmd)
    return LoadResult(resources=tuple(out), diagnostics=tuple(diags))


def _load_one(source: ResourceSource, rel: str, segs: tuple[str, ...]) -> tuple[Command | None, list[Diagnostic]]:
    path = f"{source.base}/{rel}"
    try:
        res = fs.read_bytes(source.base, rel, max_bytes=MAX_COMMAND_BYTES, follow_links=source.follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        return None, [err.diagnostic(plugin=source.plugin)]
    try:
        # depth-bounded, and a value Python cannot hold (a 5,000-digit integer)
        # is this file's error, never the loader's
        data = tomlsafe.loads(text, path=path)
    except fs.SafeFsError as err:
        return None, [_diag("error", "gemini-command-invalid-toml", path, source,
                            f"TOML syntax error: {err.reason}; command not loaded", getattr(err, "line", None))]
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        why = "has no top-level 'prompt'" if prompt is None else "'prompt' must be a string"
        return None, [_diag("error", "gemini-command-invalid", path, source, f"command file {why}; not loaded")]
    desc = data.get("description")
    diags: list[Diagnostic] = []
    if desc is not None and not isinstance(desc, str):
        diags.append(_diag("warning", "gemini-command-invalid", path, source,
                           "'description' must be a string; using the default"))
        desc = None
    name = ":".join(segs)
    cid = f"plugin:{source.plugin}:{name}" if source.plugin else f"{source.scope.value}:{name}"
    from wskit.resources.command import Command  # the model class is built where a file defines one

    cmd = Command(
        id=cid, name=name, description=desc or f"Custom command from {Path(rel).name}",
        provenance=Provenance(scope=source.scope, source_root=source.base, path=rel, plugin=source.plugin,
                              sha256=sha256_hex(res.raw)),
        namespace=":".join(segs[:-1]) or None, body=prompt,
        extra={"format": FORMAT, **{k: v for k, v in data.items() if k not in ("prompt", "description")}},
    )
    return cmd, diags


def __getattr__(name: str) -> Any:
    """:func:`expand_toml_command` (:mod:`wskit_gemini.expansion`), imported on first use (PEP 562)."""
    if name == "expand_toml_command":
        from .expansion import expand_toml_command

        return expand_toml_command
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
