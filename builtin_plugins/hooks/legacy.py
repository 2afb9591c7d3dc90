"""The earlier hook approval: one digest over every hook of a workspace, kept only to
migrate it to per-entry approval (:mod:`wskit.builtin_plugins.hooks.trust`).

Nothing here decides whether a hook runs. :func:`hook_config_digest` is the earlier
algorithm, unchanged, so that an approval recorded by it is honoured exactly for the
configuration it covered and for nothing else; :class:`HookTrustStore` reads the earlier
store and removes a project's entry once it is migrated or replaced.

The earlier design (Blade reference/blade.md §11.5; design §4):

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

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from wskit import fs
from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile
from wskit.models import Frozen
from wskit.resources.hooks import HookDefinition
from wskit.util.lazyre import lazy_pattern

STORE_VERSION = 1
MAX_STORE_BYTES = 1 << 20
#: Largest file a hook command names that the digest covers, bytes (a larger one is named "not covered").
MAX_REFERENCED_BYTES = 4 << 20
_PROJECT_VAR = lazy_pattern(globals(), "_PROJECT_VAR", r"\$(?:\{[A-Z][A-Z0-9_]*_PROJECT_DIR\}|[A-Z][A-Z0-9_]*_PROJECT_DIR\b)")
_PLUGIN_VAR = lazy_pattern(globals(), "_PLUGIN_VAR", r"\$(?:\{[A-Z][A-Z0-9_]*_PLUGIN_ROOT\}|[A-Z][A-Z0-9_]*_PLUGIN_ROOT\b)")
_SHELL_SPLIT = lazy_pattern(globals(), "_SHELL_SPLIT", r"[;&|()<>`]+")


class HookTrustError(WskitError):
    """The hook trust store is unusable, or a trust request does not match the configuration."""


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

    def revoke(self, root: str | os.PathLike[str]) -> bool:
        """Remove the entry of ``root``. :returns: True when one was removed.
        :raises HookTrustError: the store is unusable."""
        return self._change(lambda projects: projects.pop(str(root), None) is not None)
