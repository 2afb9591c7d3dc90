"""Expanding a custom command: arguments, ``@path`` files and ``!`cmd``` output.

Design §5 and reference/blade.md §10.3, with wskit's safety choices:

- arguments follow Claude Code (reference/conventions.md "Body substitutions";
  :mod:`wskit.formats.argsubst`, shared with skills): ``$ARGUMENTS`` -> the whole
  argument string; ``$ARGUMENTS[N]`` and ``$N`` -> the 0-based N-th argument,
  split like a POSIX shell would without running one (a missing index stays
  literal; ``$10`` is index 10); ``$name`` / ``${name}`` -> the value of each
  name declared in ``arguments``; ``\\$1`` is a literal ``$1``; a body where
  no placeholder was replaced gets ``ARGUMENTS: <value>`` appended. Blade
  differs (1-based ``$1``…``$9``, missing -> ``""``, nothing appended);
- ``@path`` (a token of ``[\\w./-]`` holding a ``/`` or an extension) is inlined
  as a fenced block when the file exists *inside the workspace root*; it is read
  through safe file access, so ``@../outside``, absolute paths, links and
  secret paths are refused with a diagnostic and left as written;
- ``!`cmd``` runs only through the ``runner`` the integrator passes, with a
  timeout (seconds) and an output cap (bytes): output over the cap is refused
  with a diagnostic, never truncated. Without a runner nothing runs: the text
  stays and a ``command-shell-not-run`` diagnostic says so.

``@path`` and ``!`cmd``` are found in the *template* before arguments are
substituted, so argument text can never introduce a file read or a command
(Blade substitutes first and lets arguments inject shell embeds).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wskit import fs
from wskit.models import Diagnostic
from wskit.resources.command import Expansion
from wskit.values import FrozenValue

if TYPE_CHECKING:
    from wskit.resources.command import Command


#: Default timeout of one ``!`cmd``` in seconds (Blade: 30 s).
DEFAULT_TIMEOUT = 30.0
#: Default output cap of one ``!`cmd``` in bytes (Blade: 1 MiB).
DEFAULT_OUTPUT_CAP = 1024 * 1024
#: Largest file inlined by ``@path``, in bytes.
DEFAULT_FILE_CAP = 256 * 1024

#: ``runner(command, cwd, timeout) -> stdout``; raise to report a failure.
Runner = Callable[[str, str, float], str]

_TOKENS = re.compile(r"(?:(?<=\s)|^)!`(?P<shell>[^`\n]+)`|(?<![\w@/`])@(?P<file>[\w./-]+)", re.M)


class SubprocessRunner:
    """A runner that executes ``!`cmd``` with ``/bin/sh -c`` in the workspace root.

    Integrators opt in by passing it to :func:`expand`. Output is read fully
    and checked against the cap by :func:`expand`; a non-zero exit raises.
    """

    def __call__(self, command: str, cwd: str, timeout: float) -> str:
        import subprocess  # lazily: loading commands never runs one

        proc = subprocess.run(["/bin/sh", "-c", command], cwd=cwd, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip()
            raise RuntimeError(f"exit status {proc.returncode}" + (f": {err}" if err else ""))
        return proc.stdout.decode("utf-8", "replace")


def split_args(args: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """Arguments as a list: a string is split like a POSIX shell would, never run
    (:func:`wskit.formats.argsubst.split_words`: an unterminated quote closes at the end);
    a list is taken as the words; None is no words."""
    from wskit.formats.argsubst import parse_args

    return parse_args(args)[1]


def substitute_args(text: str, args: str | list[str] | None, names: tuple[str, ...] = ()) -> str:
    """Replace ``$ARGUMENTS``, 0-based ``$ARGUMENTS[N]``/``$N`` and declared
    ``$name``/``${name}`` in ``text`` (:func:`wskit.formats.argsubst.substitute`, the
    code skills use too); appends nothing (see :func:`expand` for the
    ``ARGUMENTS:`` rule)."""
    from wskit.formats.argsubst import parse_args, substitute

    whole, words = parse_args(args)
    return substitute(text, whole, words, names)[0]


def expand(
    command: Command,
    args: str | list[str] | None = None,
    runner: Runner | None = None,
    *,
    root: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    file_cap: int = DEFAULT_FILE_CAP,
) -> Expansion:
    """Expand ``command`` with ``args`` into a prompt.

    :param root: the workspace (execution) root ``@path`` is resolved in and
        ``!`cmd``` runs in; default: the command's source root for project and
        local commands, else none (``@path`` and ``!`cmd``` then stay, with diagnostics).
    :param runner: see :data:`Runner`; None (the default) never runs anything.
    :param timeout: seconds per ``!`cmd```. :param output_cap: bytes per ``!`cmd```.
    :param file_cap: bytes per ``@path`` file.
    :returns: :class:`Expansion`; never raises for bad content.
    """
    from wskit.formats.argsubst import append_arguments, parse_args, substitute

    whole, words = parse_args(args)
    used_any = False

    def subst(part: str) -> str:
        nonlocal used_any
        text, used = substitute(part, whole, words, command.arguments)
        used_any = used_any or used
        return text

    path = str(command.provenance.absolute_path)
    if root is None and command.scope.value in ("project", "local"):
        root = command.provenance.source_root
    diags: list[Diagnostic] = []
    out: list[str] = []
    pos = 0
    body = command.body
    for m in _TOKENS.finditer(body):
        out.append(subst(body[pos:m.start()]))
        pos = m.end()
        line = body.count("\n", 0, m.start()) + command.body_line
        if m.group("shell") is not None:
            out.append(_shell(m.group(0), m.group("shell"), runner, root, timeout, output_cap, path, line, diags))
        else:
            out.append(_file(m.group(0), m.group("file"), root, file_cap, path, line, diags))
    out.append(subst(body[pos:]))
    text = "".join(out)
    return Expansion(text if used_any else append_arguments(text, whole), diags)


class ShellRun(FrozenValue):
    """What :func:`run_shell` did with one command.

    :ivar status: ``ok``, ``not-run`` (no runner or no root), ``timeout``,
        ``failed`` (the runner raised) or ``too-large`` (output over the cap).
    :ivar output: the runner's output as text (``ok`` only).
    :ivar detail: why it did not succeed, for messages.
    :ivar code: the stable diagnostic code of a non-``ok`` status, and
        :ivar level: its level (``not-run`` is a warning, the rest errors).
    """

    status: str
    output: str = ""
    detail: str = ""

    @property
    def code(self) -> str:
        return {"not-run": "command-shell-not-run", "too-large": "command-output-too-large"}.get(
            self.status, "command-shell-failed")

    @property
    def level(self) -> str:
        return "warning" if self.status == "not-run" else "error"


def run_shell(cmd: str, runner: "Runner | None", root: str | Path | None, timeout: float, cap: int) -> ShellRun:
    """Run one command-template shell injection through the integrator's runner —
    the one place both Claude Code's `` !`cmd` `` and Gemini CLI's ``!{cmd}`` go
    through (design §5: never a shell of wskit's own).

    :param runner: ``runner(cmd, cwd, timeout_seconds) -> str``; None: nothing runs.
    :param root: the workspace root (the runner's cwd); None: nothing runs.
    :param timeout: seconds. :param cap: largest output accepted, in UTF-8 bytes.
    :returns: a :class:`ShellRun`; never raises (a runner's own failure is ``failed``).
    """
    if runner is None or root is None:
        return ShellRun("not-run", detail="no runner was passed" if runner is None else "no workspace root")
    import subprocess  # for TimeoutExpired; imported here, not at start-up

    try:
        output = runner(cmd, str(root), timeout)
    except subprocess.TimeoutExpired:
        return ShellRun("timeout", detail=f"timed out after {timeout:g} s")
    except Exception as err:  # the runner's own failure is reported, never raised
        return ShellRun("failed", detail=str(err))
    text = str(output)
    size = len(text.encode("utf-8"))
    if size > cap:
        return ShellRun("too-large", detail=f"printed {size} bytes, over the cap of {cap} bytes")
    return ShellRun("ok", output=text)


def _shell(raw, cmd, runner, root, timeout, cap, path, line, diags) -> str:
    run = run_shell(cmd, runner, root, timeout, cap)
    if run.status == "ok":
        return run.output.strip()
    verb = {"not-run": "was not executed:", "failed": "failed:"}.get(run.status, "")
    diags.append(Diagnostic(level=run.level, code=run.code, path=path, line=line,
                            message=f"!`{cmd}` {verb} {run.detail}".replace("  ", " ")))
    if run.status == "not-run":
        return raw
    if run.status == "too-large":
        return f"[Error executing '{cmd}': output exceeds {cap} bytes]"
    return f"[Error executing '{cmd}': {run.detail}]"


def _file(raw, ref, root, cap, path, line, diags) -> str:
    trail = ""
    while ref.endswith((".", "/")) and len(ref) > 1:
        trail, ref = ref[-1] + trail, ref[:-1]
    if "/" not in ref and not re.search(r"\.[A-Za-z0-9]+$", ref):
        return raw
    if root is None:
        diags.append(Diagnostic(level="warning", code="command-file-refused", path=path, line=line,
                                message=f"@{ref} not inlined: no workspace root"))
        return raw
    try:
        res = fs.read_bytes(root, ref, max_bytes=cap)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as err:
        if err.code == "not-found":
            return raw
        diags.append(Diagnostic(level="warning", code="command-file-refused", path=path, line=line,
                                message=f"@{ref} not inlined: {err.args[0]}"))
        return raw
    ext = ref.rsplit(".", 1)[1] if "." in ref.rsplit("/", 1)[-1] else "text"
    return f"\n```{ext}\n{text.rstrip(chr(10))}\n```\n{trail}"
