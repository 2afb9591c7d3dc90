"""Expansion of Gemini TOML commands (:func:`expand_toml_command`; the rules are in
:mod:`wskit_gemini.commands`). A module of its own so that loading commands does not
import the shell machinery of :mod:`wskit.builtin_plugins.commands.expand`."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from wskit import fs
from wskit.builtin_plugins.commands import (
    DEFAULT_FILE_CAP,
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT,
    Runner,
    run_shell,
)
from wskit.models import Diagnostic
from wskit.resources.command import Expansion

if TYPE_CHECKING:
    from wskit.resources.command import Command

_AT = re.compile(r"@\{([^}\n]*)\}")


def _shell_spans(text: str) -> list[tuple[int, int, str]]:
    """``!{...}`` spans with balanced braces: (start, end, inner)."""
    out = []
    i = 0
    while (i := text.find("!{", i)) != -1:
        depth, j = 1, i + 2
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        if depth:
            break  # unbalanced: left as written
        out.append((i, j, text[i + 2:j - 1]))
        i = j
    return out


def expand_toml_command(
    command: Command,
    args: str = "",
    runner: Runner | None = None,
    *,
    root: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    file_cap: int = DEFAULT_FILE_CAP,
) -> Expansion:
    """Expand a Gemini TOML command (see the module docstring).

    :param args: the raw argument text typed after the command name.
    :param root: the workspace root for ``@{}`` and ``!{}``; default the command's
        source root for project commands, else none (they then stay, with diagnostics).
    :param timeout: seconds per ``!{}``; :param output_cap: bytes per ``!{}``; :param file_cap: bytes per ``@{}``.
    :returns: :class:`wskit.builtin_plugins.commands.expand.Expansion`; never raises for bad content.
    """
    path = str(command.provenance.absolute_path)
    if root is None and command.scope.value in ("project", "local"):
        root = command.provenance.source_root
    diags: list[Diagnostic] = []

    def diag(level, code, msg):
        diags.append(Diagnostic(level=level, code=code, path=path, message=msg, plugin=command.plugin))

    def inject(m: re.Match[str]) -> str:
        ref = m.group(1).strip()
        if root is None:
            diag("warning", "command-file-refused", f"@{{{ref}}} not injected: no workspace root")
            return m.group(0)
        try:
            try:
                res = fs.read_bytes(str(root), ref, max_bytes=file_cap)
                return fs.decode_text(res.raw, res.path)
            except fs.SafeFsError as err:
                if err.code not in ("is-a-directory", "not-a-file"):
                    raise
                return _inject_folder(str(root), ref, file_cap, diag)
        except fs.SafeFsError as err:
            diag("warning", "command-file-refused", f"@{{{ref}}} not injected: {err.args[0]}")
            return m.group(0)

    # @{} first, on the template; then !{} and {{args}} on the result's template parts only
    parts: list[tuple[str, bool]] = []  # (text, is_template)
    pos = 0
    body = command.body
    for m in _AT.finditer(body):
        parts.append((body[pos:m.start()], True))
        parts.append((inject(m), False))
        pos = m.end()
    parts.append((body[pos:], True))
    has_args = "{{args}}" in body
    out: list[str] = []
    for text, template in parts:
        if not template:
            out.append(text)
            continue
        last = 0
        for start, end, inner in _shell_spans(text):
            out.append(text[last:start].replace("{{args}}", args))
            out.append(_run(inner.replace("{{args}}", shlex.quote(args)), runner, root, timeout, output_cap, diag,
                            text[start:end]))
            last = end
        out.append(text[last:].replace("{{args}}", args))
    result = "".join(out)
    if not has_args and args.strip():
        result = f"{result}\n\n/{command.name} {args}"
    return Expansion(result, diags)


#: most files one ``@{folder}`` injects (Gemini CLI's read_many_files has no fixed cap)
FOLDER_MAX_FILES = 500


def _inject_folder(root: str, ref: str, cap: int, diag) -> str:
    """``@{folder}`` as Gemini CLI 0.61.0 injects it: every file below the folder
    (hidden ones included, the root ``.gitignore`` applied, ``.git`` skipped), each as
    ``--- <path in the folder> ---`` and its text, between start and end markers.
    Files come folder by folder in name order (Gemini lists them in the file system's
    order). ``cap`` bounds the whole injection in bytes; a file past it, a file that
    is not text and a walk diagnostic each leave a ``command-file-refused`` warning.

    :raises fs.SafeFsError: the folder itself is refused (outside the root, a link).
    """
    from wskit.fs.walk import walk_files

    files, walk_diags = walk_files(root, ref, max_entries=FOLDER_MAX_FILES * 4)
    for d in walk_diags:
        diag("warning", "command-file-refused", f"@{{{ref}}}: {d.path}: {d.message}")
    ignored = _root_gitignore(root)
    shown = ref.strip("/") or "."
    out = [f"--- Start of content for directory: {shown} ---\n"]
    used = 0
    taken = 0
    for f in files:
        parts = f.rel.split("/")
        if ".git" in parts or (ignored is not None and ignored.match_file(f.rel)):
            continue
        inner = f.rel[len(ref.strip("/")) + 1:] if ref.strip("/") not in ("", ".") else f.rel
        if taken >= FOLDER_MAX_FILES:
            diag("warning", "command-file-refused", f"@{{{ref}}}: more than {FOLDER_MAX_FILES} files; {inner} "
                                                    "and the rest not injected")
            break
        try:
            res = fs.read_bytes(root, f.rel, max_bytes=max(cap - used, 1))
            text = fs.decode_text(res.raw, res.path)
        except fs.SafeFsError as err:
            diag("warning", "command-file-refused", f"@{{{ref}}}: {inner} not injected: {err.args[0]}")
            continue
        used += len(res.raw)
        taken += 1
        out.append(f"--- {inner} ---\n{text}\n")
    out.append(f"--- End of content for directory: {shown} ---")
    return "".join(out)


def _root_gitignore(root: str):
    """The root ``.gitignore`` as a ``pathspec.GitIgnoreSpec`` (None when absent or unreadable)."""
    try:
        res = fs.read_bytes(root, ".gitignore", max_bytes=256 * 1024)
    except fs.SafeFsError:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(fs.decode_text(res.raw, res.path).splitlines())


def _run(cmd: str, runner, root, timeout, cap, diag, raw: str) -> str:
    """Gemini's ``!{cmd}`` through :func:`wskit.builtin_plugins.commands.expand.run_shell` (the host's runner
    only), with Gemini CLI's placeholders for failures."""
    run = run_shell(cmd, runner, root, timeout, cap)
    if run.status == "ok":
        return run.output.rstrip("\n")
    shown = raw if run.status == "not-run" else f"!{{{cmd}}}"
    verb = {"not-run": "was not executed:", "failed": "failed:"}.get(run.status, "")
    diag(run.level, run.code, f"{shown} {verb} {run.detail}".replace("  ", " "))
    if run.status == "not-run":
        return raw
    if run.status == "timeout":
        return f"[Shell command timed out after {timeout:g} s]"
    if run.status == "too-large":
        return f"[Shell command output exceeds {cap} bytes]"
    return f"{run.detail}\n[Shell command exited with an error]"
