"""Hook trust: approval of a workspace's external hook configuration by
content digest (Blade reference/blade.md §11.5; design §4).

- Digest: ``sha256:`` + SHA-256 of the canonical JSON (sorted keys, no spaces)
  of every non-``function`` hook of the workspace: event, matcher, type,
  handler entry, scope, plugin name and file path relative to its root, and
  the bytes of the files its command names inside the project or its plugin
  (:func:`referenced_files`). The absolute plugin root and source roots are
  excluded, so moving a plugin (or the project) keeps trust; renaming the
  plugin, editing a hook or editing a script it runs does not. None when
  there are no external hooks.
- States: ``disabled`` (hooks switched off), ``not_required`` (no external
  hooks), ``untrusted`` (no entry), ``trusted`` (digest equal), ``modified``
  (digest differs), ``error`` (store unusable).
- Store ``<home>/.wskit/hook-trust.json``: ``{"version": 1, "projects":
  {"<root>": {"digest": "sha256:…", "trusted_at": "…"}}}``, a regular file of
  mode 0600 owned by the user, at most 1 MiB, written atomically under a lock;
  anything else about it is state ``error`` (fail closed).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from wskit import fs
from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile
from wskit.models import Frozen
from wskit.resources.hooks import HookDefinition
from wskit.util.lazyre import lazy_pattern

__all__ = [
    "DigestHookTrust", "external_hooks", "hook_config_digest", "hooks_enabled",
    "HookTrustDigestMismatchError", "HookTrustError", "HookTrustState", "HookTrustStatus", "HookTrustStore",
    "MAX_REFERENCED_BYTES", "MAX_STORE_BYTES", "NO_TRUST_NEEDED", "ReferencedFile", "referenced_files",
    "runnable_hooks", "session_hook_trust", "STORE_VERSION"
]


HookTrustState = Literal["disabled", "not_required", "untrusted", "trusted", "modified", "error"]
STORE_VERSION = 1
MAX_STORE_BYTES = 1 << 20
#: Largest file a hook command names that the digest covers, bytes (a larger one is named "not covered").
MAX_REFERENCED_BYTES = 4 << 20
_PROJECT_VAR = lazy_pattern(globals(), "_PROJECT_VAR", r"\$(?:\{[A-Z][A-Z0-9_]*_PROJECT_DIR\}|[A-Z][A-Z0-9_]*_PROJECT_DIR\b)")
_PLUGIN_VAR = lazy_pattern(globals(), "_PLUGIN_VAR", r"\$(?:\{[A-Z][A-Z0-9_]*_PLUGIN_ROOT\}|[A-Z][A-Z0-9_]*_PLUGIN_ROOT\b)")
_SHELL_SPLIT = lazy_pattern(globals(), "_SHELL_SPLIT", r"[;&|()<>`]+")


class HookTrustError(WskitError):
    """The hook trust store is unusable, or a trust request does not match the configuration."""


class HookTrustDigestMismatchError(HookTrustError):
    """``trust(expected_digest)`` was given a digest that is not the current configuration's
    (the configuration changed since it was shown, or the digest was mistyped).

    :ivar current_digest: the digest of the configuration as it is now.
    """

    def __init__(self, message: str, *, current_digest: str | None = None) -> None:
        super().__init__(message)
        self.current_digest = current_digest



class ReferencedFile(Frozen):
    """A file a hook's command names, and whether the approval digest covers its bytes.

    :ivar hook_id: the hook. :ivar path: as resolved: relative to the project (``base``
        ``project``) or the plugin root (``plugin``), else the absolute path (``outside``).
    :ivar base: ``project``, ``plugin`` or ``outside``.
    :ivar state: ``covered`` (its SHA-256 is in the digest), ``missing`` (absence is in the
        digest: creating it changes the digest), ``too-large``, ``link``, ``unreadable``
        or ``outside`` (not covered: changing it does not change the digest).
    :ivar sha256: the file's hex digest when covered.
    """

    hook_id: str
    path: str
    base: str
    state: str
    sha256: str | None = None

    @property
    def covered(self) -> bool:
        """True when a change to this file changes the configuration digest."""
        return self.state in ("covered", "missing")


def _command_words(command: str, depth: int = 0) -> list[str]:
    """Shell words of ``command`` split at operators too; a quoted word holding spaces
    (``sh -c "…"``) is split once more: an inner command names files as well."""
    import shlex

    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:
        words = command.split()
    out: list[str] = []
    for w in words:
        if depth == 0 and any(c.isspace() for c in w):
            out.append(w)  # a path with spaces, or an inner command
            out.extend(_command_words(w, 1))
        else:
            out.extend(p for p in _SHELL_SPLIT.split(w) if p)
    return out


def referenced_files(hook: HookDefinition, project_root: str | os.PathLike[str] | None) -> list[ReferencedFile]:
    """The files ``hook``'s command names (a word with a ``/``, after ``$<HOST>_PROJECT_DIR``
    and ``$<HOST>_PLUGIN_ROOT`` — ``CLAUDE_…`` too — are put in; a relative word is under
    the project, where command hooks run), in order, each once, with its state. Bytes are
    read link-refusing and bounded (:data:`MAX_REFERENCED_BYTES`). Never raises."""
    if hook.type != "command" or not hook.command:
        return []
    root = os.path.abspath(str(project_root)) if project_root is not None else None
    plugin_root = os.path.abspath(hook.plugin_root) if hook.plugin_root else None
    out: list[ReferencedFile] = []
    seen: set[str] = set()
    for word in _command_words(hook.command):
        if "/" not in word or word.startswith("-") or "://" in word:
            continue
        if _PLUGIN_VAR.search(word):
            if plugin_root is None:
                continue
            word = _PLUGIN_VAR.sub(lambda _m: plugin_root, word)
        if _PROJECT_VAR.search(word):
            if root is None:
                continue
            word = _PROJECT_VAR.sub(lambda _m: root, word)
        if "$" in word or "*" in word or "?" in word:
            continue  # another variable or a glob: nothing to name
        full = os.path.normpath(word if os.path.isabs(word) else os.path.join(root or "/", word))
        if full in seen or (any(c.isspace() for c in word) and not os.path.lexists(full)):
            continue  # a word with spaces is a path only when there is one
        seen.add(full)
        out.append(_file_state(hook.id, full, root, plugin_root))
    return out


def _file_state(hook_id: str, full: str, root: str | None, plugin_root: str | None) -> ReferencedFile:
    base_name, base = "outside", None
    for name, b in (("plugin", plugin_root), ("project", root)):
        if b is not None and (full == b or full.startswith(b.rstrip(os.sep) + os.sep)):
            base_name, base = name, b
            break
    if base is None:
        return ReferencedFile(hook_id=hook_id, path=full, base="outside", state="outside")
    rel = os.path.relpath(full, base).replace(os.sep, "/")
    try:
        raw = fs.read_bytes(base, rel, max_bytes=MAX_REFERENCED_BYTES).raw
    except fs.SafeFsError as err:
        state = {"not-found": "missing", "too-large": "too-large", "symlink": "link",
                 "link": "link"}.get(err.code, "unreadable")
        if state == "missing" and os.path.lexists(full):
            state = "unreadable"
        return ReferencedFile(hook_id=hook_id, path=rel, base=base_name, state=state)
    except (OSError, ValueError):
        return ReferencedFile(hook_id=hook_id, path=rel, base=base_name, state="unreadable")
    return ReferencedFile(hook_id=hook_id, path=rel, base=base_name, state="covered",
                          sha256=hashlib.sha256(raw).hexdigest())


class HookTrustStatus(Frozen):
    """Hook trust of one project.

    :ivar root: the trust root (the source project).
    :ivar state: see module doc. :ivar digest: current digest (None: no external hooks).
    :ivar trusted_digest: digest recorded in the store, if any.
    :ivar count: number of external hooks. :ivar error: why the state is ``error``.
    :ivar files: the files the hook commands name (:func:`referenced_files`), covered or not.
    :ivar sources: where the hooks that need approval come from, each once in order:
        ``plugin NAME`` or ``<scope> <file>`` (``project .claude/settings.json``).
    :ivar needs_approval: how many of the external hooks need approval (project, local and
        plugin hooks; the user's own, an administrator's, built-in and command-line hooks run
        without it, :data:`NO_TRUST_NEEDED`); None: all ``count`` of them.
    """

    root: str
    state: HookTrustState
    digest: str | None = None
    trusted_digest: str | None = None
    count: int = 0
    error: str | None = None
    files: tuple[ReferencedFile, ...] = ()
    sources: tuple[str, ...] = ()
    needs_approval: int | None = None

    @property
    def awaiting_approval(self) -> int:
        """External hooks that need approval and do not run until the user gives it (state
        ``untrusted`` or ``modified``), else 0."""
        if self.state not in ("untrusted", "modified"):
            return 0
        return self.count if self.needs_approval is None else self.needs_approval

    def approval_text(self) -> str | None:
        """``"9 hooks await approval (plugin security-guidance)"`` when some do, else None:
        hook approval, which is not folder trust, with the sources named."""
        n = self.awaiting_approval
        if not n:
            return None
        return (f"{n} hook{'s await' if n != 1 else ' awaits'} approval"
                + (f" ({', '.join(self.sources)})" if self.sources else ""))

    @property
    def runs(self) -> bool:
        """True only when external hooks may run (state ``trusted``)."""
        return self.state == "trusted"


def external_hooks(hooks: Iterable[HookDefinition]) -> list[HookDefinition]:
    """Hooks that need trust: every type but in-process ``function`` hooks."""
    return [h for h in hooks if h.type != "function"]


def hook_config_digest(hooks: Iterable[HookDefinition], files_root: str | os.PathLike[str] | None = None
                       ) -> str | None:
    """``sha256:<hex>`` of the canonical configuration (see module doc), or None without external hooks.

    :param files_root: the folder command hooks run in (the execution root), against which
        the files their commands name are read; None: files are not part of the digest."""
    items = []
    for h in external_hooks(hooks):
        p = h.provenance
        # the entry as written (placeholders unexpanded, so a moved plugin keeps trust); a
        # definition made in code has no entry: its handler fields stand in
        handler = h.config or {"command": h.command, "url": h.url, "headers": h.headers,
                               "prompt": h.prompt, "timeout": h.timeout}
        item = {"event": h.event, "matcher": h.matcher, "type": h.type, "handler": handler,
                "scope": p.scope.value, "plugin": p.plugin, "path": p.path}
        files = referenced_files(h, files_root) if files_root is not None else []
        if files:  # absent for hooks that name no file, so their digest is what it was
            item["files"] = [[f.base, f.path, f.sha256 or f.state] for f in files]
        items.append(item)
    if not items:
        return None
    items.sort(key=lambda d: json.dumps(d, sort_keys=True, default=str))
    text = json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class HookTrustStore:
    """The per-user hook trust store.

    :param path: the JSON file (default ``<home>/.wskit/hook-trust.json`` via :meth:`for_home`).
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        #: no link may lead from here to the store (:mod:`wskit.fs.atomic`)
        self.anchor = Path(anchor) if anchor is not None else self.path.parent

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> "HookTrustStore":
        """``<home>/.wskit/hook-trust.json``, with no link allowed below the home."""
        return cls(Path(home) / ".wskit" / "hook-trust.json", anchor=home)

    @property
    def _file(self) -> PrivateJsonFile:
        return PrivateJsonFile(self.path, self.anchor, what="hook trust store", max_bytes=MAX_STORE_BYTES)

    def _projects(self, data: object) -> dict[str, dict[str, str]]:
        """The ``projects`` of a parsed store; anything but the schema is refused."""
        if data is None:
            return {}
        if not isinstance(data, dict) or set(data) != {"version", "projects"} or data["version"] != STORE_VERSION \
                or not isinstance(data["projects"], dict):
            raise HookTrustError(f"hook trust store {self.path} has an unknown format")
        for root, e in data["projects"].items():
            if not isinstance(e, dict) or set(e) != {"digest", "trusted_at"} or not isinstance(e["digest"], str) \
                    or not e["digest"].startswith("sha256:"):
                raise HookTrustError(f"hook trust store {self.path}: entry {root!r} is malformed")
        return data["projects"]

    def read(self) -> dict[str, dict[str, str]]:
        """The recorded projects.

        :raises HookTrustError: reached through a link, not a regular file, wrong owner
            or mode, too large, not the schema (:class:`~wskit.fs.store.PrivateJsonFile`).
        """
        try:
            return self._projects(self._file.read())
        except StateFileError as err:
            raise HookTrustError(str(err)) from None

    def _change(self, edit: "Callable[[dict[str, dict[str, str]]], bool]") -> bool:
        """Apply ``edit`` to the projects under the store's lock; written when it returns True.

        :raises HookTrustError: the store is unusable (it is never overwritten then)."""
        changed: list[bool] = []

        def step(data: object) -> object:
            projects = dict(self._projects(data))
            if not edit(projects):
                return None
            changed.append(True)
            return {"version": STORE_VERSION, "projects": {k: projects[k] for k in sorted(projects)}}

        try:
            self._file.update(step)
        except StateFileError as err:
            raise HookTrustError(str(err)) from None
        return bool(changed)

    def status(self, root: str | os.PathLike[str], hooks: Iterable[HookDefinition], *,
               enabled: bool = True, files_root: str | os.PathLike[str] | None = None) -> HookTrustStatus:
        """The hook trust state of project ``root`` for its ``hooks`` (never raises).

        :param files_root: where command hooks run (default ``root``): the files their
            commands name are read there and are part of the digest."""
        root = str(root)
        ext = external_hooks(hooks)
        fr = str(files_root) if files_root is not None else root
        digest = hook_config_digest(ext, fr)
        files = tuple(f for h in ext for f in referenced_files(h, fr))
        pending = [h for h in ext if h.provenance.scope.value not in NO_TRUST_NEEDED]
        sources = tuple(dict.fromkeys(f"plugin {h.plugin}" if h.plugin else
                                      f"{h.provenance.scope.value} {h.provenance.path}" for h in pending))
        common = dict(root=root, digest=digest, count=len(ext), files=files, sources=sources,
                      needs_approval=len(pending))
        if not enabled:
            return HookTrustStatus(state="disabled", **common)
        try:
            entry = self.read().get(root)
        except HookTrustError as err:
            return HookTrustStatus(state="error", error=str(err), **common)
        recorded = entry["digest"] if entry else None
        if digest is None:
            state: HookTrustState = "not_required"
        elif recorded is None:
            state = "untrusted"
        else:
            state = "trusted" if recorded == digest else "modified"
        return HookTrustStatus(state=state, trusted_digest=recorded, **common)

    def trust(self, root: str | os.PathLike[str], hooks: Iterable[HookDefinition], expected_digest: str, *,
              files_root: str | os.PathLike[str] | None = None) -> str:
        """Record trust in the configuration the user reviewed.

        :param expected_digest: the digest that was shown to the user.
        :param files_root: as for :meth:`status`.
        :returns: the digest recorded.
        :raises HookTrustError: no external hooks, or the store is unusable (never overwritten then).
        :raises HookTrustDigestMismatchError: ``expected_digest`` is not the current digest (the
            configuration changed since it was shown, or the digest is mistyped); the message
            names the current digest.
        """
        digest = hook_config_digest(hooks, str(files_root) if files_root is not None else str(root))
        if digest is None:
            raise HookTrustError("No configured external hooks require trust")
        if digest != expected_digest:
            if not re.fullmatch(r"sha256:[0-9a-f]{64}", expected_digest or ""):
                what = f"{expected_digest!r} is not a hook configuration digest (sha256: and 64 hex digits)"
            else:
                what = (f"Digest {expected_digest} matches no current hook configuration of {root}; if it is "
                        "the one you reviewed, the hooks changed after review: review them again")
            raise HookTrustDigestMismatchError(f"{what}. The current digest is {digest}; nothing was trusted",
                                               current_digest=digest)
        at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")

        def record(projects: dict[str, dict[str, str]]) -> bool:
            projects[str(root)] = {"digest": digest, "trusted_at": at}
            return True

        self._change(record)
        return digest

    def revoke(self, root: str | os.PathLike[str]) -> bool:
        """Remove the entry of ``root``. :returns: True when one was removed.
        :raises HookTrustError: the store is unusable."""
        return self._change(lambda projects: projects.pop(str(root), None) is not None)


def runnable_hooks(hooks: Iterable[HookDefinition], status: HookTrustStatus) -> list[HookDefinition]:
    """The hooks a runner may execute: in-process ``function`` hooks always,
    external ones only when ``status`` is ``trusted`` (a ``modified``,
    ``untrusted``, ``error`` or ``disabled`` configuration runs none of them;
    Blade §11.5 enforcement)."""
    return [h for h in hooks if h.type == "function" or status.runs]


def hooks_enabled(binding, trust, profile) -> bool:
    """False when the host switched hooks off (``profile.settings["hooks_enabled"] is False``)
    or a trusted settings layer sets ``disableAllHooks: true`` (Claude Code, Blade §11.2)."""
    from wskit.formats.settings import settings_layers

    if profile.settings.get("hooks_enabled") is False:
        return False
    layers, _ = settings_layers(binding, profile, trust)
    return not any(layer.trusted and layer.data.get("disableAllHooks") is True for layer in layers)


#: Scopes whose hooks run without digest approval: the user's own settings, an administrator's,
#: built-ins and the command line, none of which a project writes.
NO_TRUST_NEEDED = frozenset({"user", "admin", "builtin", "cli"})


class DigestHookTrust:
    """The runtime's view of digest approval (the ``HookTrust`` protocol of
    :mod:`wskit.builtin_plugins.hooks.runner`): ``function`` hooks and hooks of user, admin,
    builtin and cli scope are ``not_required``; project, local and plugin hooks
    take the workspace's :class:`HookTrustStatus` state (``trusted`` runs;
    ``modified``, ``untrusted``, ``disabled``, ``error`` do not).

    :param status: the status computed when the session's runtime started.
    """

    def __init__(self, status: HookTrustStatus) -> None:
        self.status = status

    def state(self, hook: HookDefinition) -> str:
        if self.status.state == "disabled":
            return "disabled"
        if hook.type == "function" or hook.provenance.scope.value in NO_TRUST_NEEDED:
            return "not_required"
        return self.status.state

    def digest(self) -> str | None:
        return self.status.digest


def session_hook_trust(session) -> DigestHookTrust | None:
    """The :class:`DigestHookTrust` of a session (None when it carries no profile with a home)."""
    profile = getattr(session, "profile", None)
    if profile is None or profile.home is None:
        return None
    hooks = list(session.registry("hook").active())
    store = HookTrustStore.for_home(profile.home)
    enabled = hooks_enabled(session.binding, session.trust, profile)
    return DigestHookTrust(store.status(session.binding.source_root, hooks, enabled=enabled,
                                        files_root=session.binding.execution_root))

