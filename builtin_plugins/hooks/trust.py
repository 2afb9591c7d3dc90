"""Hook approval, one entry per hook handler (docs/hooks.md "Hook approval"; the store and
the states are :mod:`wskit.approval.store`).

- **Entries**: every non-``function`` hook of a project, local or plugin settings file
  is an :class:`~wskit.approval.entries.ApprovalEntry` of capability ``hooks``
  (:func:`hook_entry`): source ``plugin NAME`` or ``<scope> <file>``; identity event,
  matcher, type, command (URL, prompt), ``if``; definition the handler entry as written
  (placeholders unexpanded, so a moved plugin or project keeps its approval); covered the
  project and plugin files the command runs, bytes and executable bit, and the words
  coverage could not follow. Approving, editing, adding or removing one entry never
  changes another's state.
- **Not required**: hooks of the user's own settings, an administrator's, built-ins and
  the command line (:data:`NO_TRUST_NEEDED`) run without approval, except that in a
  project that is not trusted such a hook whose command names a file of the project, or
  holds a word coverage cannot follow (``make``, ``npx``, ``uv run``, a program wskit does not
  know, a variable: each may run what the project holds or configures), is
  ``untrusted-project`` and does not run (nothing of an untrusted repository runs).
- **Earlier approvals**: a project approved with the earlier one-digest store
  (``<home>/.wskit/hook-trust.json``, :mod:`~wskit.builtin_plugins.hooks.legacy`) is
  migrated the first time its status is computed when that digest is exactly the
  configuration's now (each entry it covered is recorded, except entries with words
  coverage cannot verify, which await approval again); when it no longer matches, every
  entry awaits approval with a message saying so. The earlier entry is removed once
  migrated or replaced by a per-entry approval.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from wskit.errors import WskitError
from wskit.resources.hooks import HookDefinition
from wskit.values import FrozenValue, field

if TYPE_CHECKING:  # pragma: no cover
    from wskit.approval.entries import ApprovalEntry
    from wskit.approval.store import ApprovalStore, EntryStatus

# wskit.approval (the store, entries and command coverage) is imported where an entry is
# made or read: a session without hooks computes its (empty) status without it.

#: Scopes whose hooks run without approval: the user's own settings, an administrator's,
#: built-ins and the command line, none of which a project writes.
NO_TRUST_NEEDED = frozenset({"user", "admin", "builtin", "cli"})
#: The capability name of hook entries in the approval store.
CAPABILITY = "hooks"


class HookTrustError(WskitError):
    """A hook approval request that cannot be carried out (nothing selected, unknown entry)."""


def external_hooks(hooks: Iterable[HookDefinition]) -> list[HookDefinition]:
    """Hooks that may need approval: every type but in-process ``function`` hooks."""
    return [h for h in hooks if h.type != "function"]


def hook_source(hook: HookDefinition) -> str:
    """``plugin NAME`` for a plugin's hook, else ``<scope> <file>`` (``project .claude/settings.json``)."""
    p = hook.provenance
    return f"plugin {hook.plugin}" if hook.plugin else f"{p.scope.value} {p.path}"


def hook_env(files_root: str, plugin_root: str | None, host: str | None,
             given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The root variables the hook runner gives a command (``CLAUDE_PROJECT_DIR``,
    ``<HOST>_PROJECT_DIR``, and for a plugin's hook ``CLAUDE_PLUGIN_ROOT``,
    ``<HOST>_PLUGIN_ROOT``): what coverage may expand in its words; and the ``PATH`` the
    runner passes on (this process's, or the host's ``HookRunnerConfig.env`` one in
    ``given``), whose relative or in-project entries coverage names unverified (a bare
    ``grep`` may then run a project file), with every loader variable ``given`` sets
    (``NODE_OPTIONS``, ``PYTHONPATH`` …: unverified)."""
    from wskit.approval.coverage import loader_variable

    prefixes = ["CLAUDE"] + ([host.upper().replace("-", "_")] if host else [])
    env = {f"{p}_PROJECT_DIR": files_root for p in prefixes}
    env["PATH"] = os.environ.get("PATH", "")
    env.update({k: str(v) for k, v in (given or {}).items() if loader_variable(str(k))})
    if plugin_root:
        env.update({f"{p}_PLUGIN_ROOT": plugin_root for p in prefixes})
    return env


def hook_entry(hook: HookDefinition, files_root: str | os.PathLike[str], *, cover: bool = True,
               host: str | None = None, env: Mapping[str, str] | None = None) -> ApprovalEntry:
    """The :class:`~wskit.approval.entries.ApprovalEntry` of ``hook`` (see the module doc).

    :param files_root: where command hooks run (the execution root): relative words and
        ``$<HOST>_PROJECT_DIR`` are read there.
    :param cover: read the files the command names (False: identity and definition only).
    :param host: the session's host name (the runner sets ``<HOST>_PROJECT_DIR`` too).
    :param env: the host's own variables for hooks (``HookRunnerConfig.env``): its ``PATH``
        and loader variables are what coverage reads the command with (:func:`hook_env`).
    """
    from wskit.approval.entries import ApprovalEntry, entry_coverage, shown_command

    run = hook.command if hook.type == "command" else hook.url if hook.type == "http" else hook.prompt
    identity = {"event": hook.event, "matcher": hook.matcher, "type": hook.type, "run": run,
                "if": hook.if_condition}
    if hook.native_event:  # a Cursor hook: its own event name, the protocol and folder it runs in
        identity.update(native_event=hook.native_event, dialect=hook.dialect, cwd=hook.cwd)
    # the entry as written (placeholders unexpanded); a definition made in code has no entry
    definition = dict(hook.config) if hook.config else {
        "command": hook.command, "url": hook.url, "headers": hook.headers, "prompt": hook.prompt,
        "timeout": hook.timeout}
    files, unverified = (), ()
    if cover and hook.type == "command" and hook.command:
        root = os.path.abspath(str(files_root))
        # relative words are read where the command runs (a Cursor hook: the folder of its hooks.json)
        cwd = os.path.join(root, hook.cwd) if hook.cwd else root
        files, unverified = entry_coverage(command=hook.command, cwd=cwd, project_root=root,
                                           plugin_root=hook.plugin_root,
                                           env=hook_env(root, hook.plugin_root, host, env))
    # the whole command, blank runs made visible: what the user approves is what is shown
    label = shown_command(f"{hook.event} {hook.matcher or '*'}" + (f" if {hook.if_condition}" if hook.if_condition
                                                                   else "")) + f": {shown_command(run or '')}"
    return ApprovalEntry(capability=CAPABILITY, source=hook_source(hook), identity=identity, definition=definition,
                         files=files, unverified=unverified, label=label, resource_id=hook.id)


class HookApprovalStatus(FrozenValue):
    """Hook approval of one project: one :class:`~wskit.approval.store.EntryStatus` per
    external hook (``resource_id`` is the hook's id).

    :ivar root: the source project. :ivar enabled: False when hooks are switched off
        (``disableAllHooks``, the host): nothing external runs.
    :ivar rows: the entries' states, in hook order (the user's own hooks ``not-required``).
    :ivar notes: messages about the earlier one-digest approval (migrated, or asked again).
    :ivar error: the store's error when it is unusable (every entry then ``error``).
    :ivar switched_off_by: the project or local settings file that switched hooks off while
        no layer above it did (:func:`hooks_switched_off_by`): the guards of sources above the
        project it switched off are ``switched-off`` (not decided), not ``disabled``.
    """

    root: str
    enabled: bool = True
    switched_off_by: str | None = None
    rows: tuple[EntryStatus, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None
    _by_id: dict[str, EntryStatus] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({r.entry.resource_id: r for r in self.rows})

    def of(self, hook_id: str) -> EntryStatus | None:
        """The state of the hook with id ``hook_id``, or None when it is not an entry here."""
        return self._by_id.get(hook_id)

    @property
    def count(self) -> int:
        """External hooks (entries)."""
        return len(self.rows)

    @property
    def awaiting(self) -> list[EntryStatus]:
        """Entries the user can approve (``awaiting`` or ``modified``), each key once."""
        seen: dict[str, EntryStatus] = {}
        for r in self.rows:
            if r.awaiting_approval and self.enabled:
                seen.setdefault(r.entry.key, r)
        return list(seen.values())

    @property
    def awaiting_approval(self) -> int:
        """How many hooks do not run until the user approves them."""
        return sum(1 for r in self.rows if r.awaiting_approval) if self.enabled else 0

    @property
    def switched_off(self) -> list[EntryStatus]:
        """Entries of a user's plugin that project or local settings switched off: they do not
        run and are not decided (:attr:`~wskit.resources.hooks.HookDefinition.switched_off_by`)."""
        return [r for r in self.rows if r.state == "switched-off"]

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources of the entries awaiting approval, each once, in order."""
        return tuple(dict.fromkeys(r.entry.source for r in self.rows if r.awaiting_approval))

    @property
    def digest(self) -> str | None:
        """The :func:`~wskit.approval.entries.selection_digest` of every awaiting entry
        (``wsctl hooks trust --digest`` approves them all), None when none awaits."""
        from wskit.approval.entries import selection_digest

        aw = self.awaiting
        return selection_digest([r.entry for r in aw]) if aw else None

    @property
    def state(self) -> str:
        """One word for the project: ``disabled``, ``error``, ``modified`` (an entry changed
        since approved), ``awaiting`` (an entry was never approved), ``switched-off`` (a
        user's guard that project settings switched off), ``approved`` (every entry needing
        approval has it), ``not_required`` (none needs it)."""
        if not self.enabled:
            return "disabled"
        states = {r.state for r in self.rows}
        for s in ("error", "modified", "awaiting", "switched-off", "approved"):
            if s in states:
                return s
        return "not_required"

    def shown_digests(self) -> dict[str, str]:
        """Every digest ``wsctl hooks status`` shows, with what each is the digest of: each
        entry's own, each source's awaiting entries, all awaiting entries
        (:func:`wskit.approval.servers.shown_digests` gathers them with the servers')."""
        from wskit.approval.entries import selection_digest

        out = {r.entry.digest: f"entry {r.entry.key} alone" for r in self.rows}
        by_source: dict[str, list] = {}
        for r in self.awaiting:
            by_source.setdefault(r.entry.source, []).append(r.entry)
        out.update({selection_digest(v): f"the awaiting entries of {src}" for src, v in by_source.items()})
        if self.digest:
            out[self.digest] = "all awaiting entries"
        return out

    def approval_text(self) -> str | None:
        """``"9 hooks await approval (plugin security-guidance)"`` when some do, else None:
        hook approval, which is not folder trust, with the sources named."""
        n = self.awaiting_approval
        if not n:
            return None
        return (f"{n} hook{'s await' if n != 1 else ' awaits'} approval"
                + (f" ({', '.join(self.sources)})" if self.sources else ""))


def hooks_enabled(binding, trust, profile) -> bool:
    """False when the host switched hooks off (``profile.settings["hooks_enabled"] is False``)
    or a trusted settings layer sets ``disableAllHooks: true`` (Claude Code, Blade §11.2)."""
    from wskit.formats.settings import all_hooks_disabled, settings_layers

    if profile.settings.get("hooks_enabled") is False:
        return False
    layers, _ = settings_layers(binding, profile, trust)
    return not all_hooks_disabled(layers)


def _needs_approval(h: HookDefinition) -> bool:
    return h.provenance.scope.value not in NO_TRUST_NEEDED


def _listing(f) -> bool:
    """A covered folder listing (``dir/``, Python's importable names ``*.py``), not a file."""
    return f.path.endswith("/") or "*" in f.path


def _project_files(entry: ApprovalEntry, listings: bool = True) -> list[str]:
    """The project files ``entry`` covers, as shown, files before folder listings (without
    listings: only files — a listing alone, such as the importable names of a folder that
    holds none, runs nothing of the project yet)."""
    return sorted((f.shown for f in entry.files if f.base == "project" and (listings or not _listing(f))),
                  key=lambda p: (p.endswith("/") or "*" in p, p))


def _project_file_row(h: HookDefinition, files_root: str, host: str | None) -> EntryStatus:
    """A hook that needs no approval, in a project that is not trusted: ``untrusted-project``
    when its command names a file of the project (or a word coverage cannot follow that may)."""
    from wskit.approval.entries import untrusted_project_reason
    from wskit.approval.store import EntryStatus

    entry = hook_entry(h, files_root, host=host)
    why = untrusted_project_reason(entry, h.command or "")
    if why:
        return EntryStatus(entry, "untrusted-project", why)  # type: ignore[arg-type]
    return EntryStatus(entry, "not-required")


def _migrate(store: ApprovalStore, home: str, root: str, hooks: Sequence[HookDefinition], files_root: str,
             rows: list[EntryStatus]) -> tuple[list[EntryStatus], list[str]]:
    """Honour an earlier one-digest approval of ``root`` exactly for what it covered (module doc)."""
    from wskit.approval.store import ApprovalStoreError, EntryStatus
    from wskit.builtin_plugins.hooks.legacy import HookTrustError as LegacyError
    from wskit.builtin_plugins.hooks.legacy import HookTrustStore, hook_config_digest

    legacy = HookTrustStore.for_home(home)
    hooks = [h for h in hooks if not h.switched_off_by]  # loaded only to be reported: never in an approval
    try:
        old = legacy.read().get(root)
    except LegacyError as err:
        return rows, [f"earlier hook approvals not read: {err}"]
    if old is None:
        return rows, []
    pending = [r for r in rows if r.state == "awaiting" and r.reason == "not approved"]
    if old["digest"] != hook_config_digest(external_hooks(hooks), files_root):
        note = ("the earlier approval of this project's hooks as a whole (hook-trust.json) does not match them "
                "as they are now; each hook is approved on its own now: review and approve them again")
        return [EntryStatus(r.entry, "awaiting", "earlier whole-configuration approval no longer matches")
                if r in pending else r for r in rows], [note]
    clean = list({r.entry.key: r.entry for r in pending if not r.entry.unverified}.values())
    try:
        if clean:
            store._put(root, clean, "approved")  # noqa: SLF001 — migration records what the old approval covered
        legacy.revoke(root)
    except (ApprovalStoreError, LegacyError) as err:
        return rows, [f"earlier hook approval not migrated: {err}"]
    out, asked = [], []
    for r in rows:
        if r in pending and not r.entry.unverified:
            out.append(EntryStatus(r.entry, "approved"))
        elif r in pending:
            asked.append(r.entry.label)
            out.append(EntryStatus(r.entry, "awaiting", "the earlier approval did not cover "
                                   + ", ".join(r.entry.unverified_words)))
        else:
            out.append(r)
    note = f"migrated the earlier approval of this project's hooks to {len(clean)} per-hook approval(s)"
    if asked:
        note += f"; {len(asked)} hook(s) name words it could not verify and await approval again"
    return out, [note]


def hook_approval_status(home: str | os.PathLike[str] | None, root: str | os.PathLike[str],
                         hooks: Iterable[HookDefinition], *, enabled: bool = True,
                         files_root: str | os.PathLike[str] | None = None,
                         folder_trusted: bool = True, migrate: bool = True,
                         host: str | None = None) -> HookApprovalStatus:
    """The approval state of every external hook of project ``root`` (never raises).

    :param home: the user's home (the store); None: no store, every entry needing
        approval ``awaiting``.
    :param files_root: where command hooks run (default ``root``).
    :param folder_trusted: the project's folder trust; False makes a not-required hook that
        names a project file ``untrusted-project``.
    :param migrate: honour (and migrate) an earlier one-digest approval (module doc).
    :param host: the session's host name (``<HOST>_PROJECT_DIR`` in commands is followed).

    A hook of a user's plugin that project or local settings switched off
    (:attr:`~wskit.resources.hooks.HookDefinition.switched_off_by`) is ``switched-off``: it
    does not run, needs no approval, and its reason names the file.
    """
    root = str(root)
    fr = os.path.abspath(str(files_root) if files_root is not None else root)
    hooks = list(hooks)
    ext = external_hooks(hooks)
    rows: list[EntryStatus | None] = []
    need: list[tuple[int, ApprovalEntry]] = []
    if ext:
        from wskit.approval.store import ApprovalStore, EntryStatus
    reaching: dict[int, str] = {}  # row -> the first project file a hook of a higher source runs
    for h in ext:
        if h.switched_off_by:  # never runs: nothing to approve, and never shown as approved or not required
            from wskit.builtin_plugins.hooks.runner import switched_off_reason

            rows.append(EntryStatus(hook_entry(h, fr, cover=False), "switched-off",  # type: ignore[arg-type]
                                    switched_off_reason(h)))
        elif _needs_approval(h):
            need.append((len(rows), hook_entry(h, fr, host=host)))
            rows.append(None)
        elif not folder_trusted and h.type == "command":
            rows.append(_project_file_row(h, fr, host))
        elif h.type == "command":
            # a trusted project may change its files at any time: a hook of the user's (or an
            # administrator's) that runs one is approved per entry here, as the project's own
            entry = hook_entry(h, fr, host=host)
            inside = _project_files(entry, listings=False)
            if inside:
                reaching[len(rows)] = inside[0]
                need.append((len(rows), entry))
                rows.append(None)
            else:
                rows.append(EntryStatus(entry, "not-required"))
        else:
            rows.append(EntryStatus(hook_entry(h, fr, cover=False), "not-required"))
    store = ApprovalStore.for_home(home) if need and home is not None else None  # read only for entries that need it
    error = None
    if need:
        if store is None:
            got = [EntryStatus(e, "awaiting", "no approval store (no home)") for _, e in need]
        else:
            got = store.status(root, [e for _, e in need])
            error = next((s.reason for s in got if s.state == "error"), None)
        for (i, _), s in zip(need, got, strict=True):
            if i in reaching and s.state == "awaiting":
                s = s.copy_with(reason=f"runs {reaching[i]} of this project, which the project may change; "
                                       "approve it for this project")
            rows[i] = s
    done: list[EntryStatus] = [r for r in rows if r is not None]
    notes: list[str] = []
    if need and store is not None and home is not None and error is None and migrate:
        done, notes = _migrate(store, str(home), root, hooks, fr, done)
    return HookApprovalStatus(root=root, enabled=enabled, rows=tuple(done), notes=tuple(notes), error=error)


#: Runner trust states of entry states (the runner's ``RUNNABLE`` are ``approved`` and ``not_required``).
_RUNNER_STATES = {"not-required": "not_required"}


def _stamp(path: str, kind: str) -> tuple[int, ...] | None:
    """What a change to ``path`` changes, without reading it (None when missing), by ``kind``:
    ``file`` (a covered file, a link not followed): device, inode, ctime, mtime, size — a
    rename over it gives another inode, a write, ``chmod`` or rename of the same inode moves
    its ctime, which no process can set back; ``listing`` (a covered folder, whose names count):
    device, inode, mtime — an entry added, removed or renamed moves it; ``way`` (a folder on the
    way to a covered file): device and inode — another folder put in its place."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if kind == "file":
        return (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns, st.st_size)
    if kind == "listing":
        return (st.st_dev, st.st_ino, st.st_mtime_ns)
    return (st.st_dev, st.st_ino)


class RunPin:
    """One run of an approved command hook, checked before and after it ran
    (:meth:`EntryHookTrust.pin`; docs/security.md, T7 "what ran is what was approved").

    Made before the hook starts: every covered file, every folder on its way from its root
    and every covered folder is stamped (:func:`_stamp`), then the entry's digest is computed
    again from the files. :meth:`before` says what differs from the approved digest (the hook
    must not start); :meth:`after` — once it ended — what changed since the stamps or differs
    from the approved digest: the bytes its interpreter read may not be the approved ones, so
    its answer is not taken. A file swapped and put back while the hook ran is caught by the
    stamps (another inode, or a moved ctime), not only by the digest.

    :param approved: the approved entry (its files, their roots). :param fresh: a callable
        making the entry as it is now (the same coverage as the approval).
    :param roots: ``base name -> absolute folder`` of the entry's files (``project``, ``plugin``).
    """

    #: the skip state of a hook :meth:`before` stops
    state = "modified"

    def __init__(self, approved: ApprovalEntry, fresh, roots: dict[str, str], *, required: bool = True) -> None:
        self.approved, self._fresh, self._roots, self.required = approved, fresh, roots, required
        if not required:
            self.state = "awaiting"
        self._paths = self._watched(approved)
        self._stamps = [_stamp(p, kind) for p, kind in self._paths]
        self._before = self._differs()

    def _watched(self, entry: ApprovalEntry) -> list[tuple[str, str]]:
        """``(path, kind)`` of every covered file and folder and of each folder from its root
        down to it, each once (see :func:`_stamp`)."""
        out: dict[str, str] = {}
        # a file reached through a link: the link and where it leads (``project:real/x.sh``)
        targets = [tuple(f.target.split(":", 1)) for f in entry.files if f.target and ":" in f.target]
        for base, path in [(f.base, f.path) for f in entry.files] + targets:
            root = self._roots.get(base)
            if root is None:
                continue
            parts = [p for p in path.split("/") if p not in ("", ".")]
            listing = path.endswith("/") or bool(parts and "*" in parts[-1])
            if parts and "*" in parts[-1]:
                parts = parts[:-1]  # a listing of importable names: the folder holding them
            here = root
            chain = [root] + [here := os.path.join(here, part) for part in parts]
            for folder in chain[:-1]:
                out.setdefault(folder, "way")
            out[chain[-1]] = "listing" if listing or not parts else "file"
        return list(out.items())

    def _differs(self) -> str | None:
        from wskit.approval.store import ApprovalStore

        try:
            now = self._fresh()
        except Exception as err:  # coverage that cannot be computed verifies nothing
            return f"cannot verify what it runs: {type(err).__name__}: {err}"
        if now.digest == self.approved.digest:
            return None
        record = {"state": "approved", "digest": self.approved.digest, "at": None,
                  "files": {f"{f.base}:{f.path}": f.token for f in self.approved.files},
                  "unverified": list(self.approved.unverified_words)}
        return ApprovalStore.state_of(now, record).reason or "changed since approved"

    def before(self) -> str | None:
        """Why the hook must not start — what differs from the approved entry (or, for a hook
        that needed no approval, from the project files it reached when the session
        started) — or None."""
        if self._before is None:
            return None
        if self.required:
            return f"changed since approved ({self._before})"
        return (f"the project files it runs changed since the session started ({self._before}); approve it "
                "for this project")

    def after(self) -> str | None:
        """What changed while the hook ran (since the stamps were taken), or None."""
        moved = [p for (p, kind), s in zip(self._paths, self._stamps, strict=True) if _stamp(p, kind) != s]
        if moved:
            shown = []
            for p in moved[:3]:
                for base, root in self._roots.items():
                    if p == root or p.startswith(root.rstrip(os.sep) + os.sep):
                        rel = os.path.relpath(p, root).replace(os.sep, "/")
                        shown.append(rel if base == "project" else f"<{base}>/{rel}")
                        break
            more = f" and {len(moved) - 3} more" if len(moved) > 3 else ""
            return f"{', '.join(shown)}{more} changed"
        return self._differs()


class EntryHookTrust:
    """The runtime's view of per-entry approval (the ``HookTrust`` protocol of
    :mod:`wskit.builtin_plugins.hooks.runner`): ``function`` hooks are ``not_required``;
    every other hook takes its entry's state in :class:`HookApprovalStatus` (``approved``
    and ``not_required`` run; ``awaiting``, ``modified``, ``denied``, ``untrusted-project``,
    ``disabled``, ``error`` do not). A hook that is no entry of the status (added in code
    later) is ``awaiting`` when its scope needs approval. An approved command hook is
    checked again around each run (:meth:`pin`).

    :param status: the status computed when the session's runtime started.
    :param files_root: where command hooks run (default the status's root).
    :param host: the session's host name (as for :func:`hook_approval_status`).
    """

    def __init__(self, status: HookApprovalStatus, *, env: Mapping[str, str] | None = None,
                 files_root: str | os.PathLike[str] | None = None, host: str | None = None) -> None:
        self.status = status
        self._env = dict(env or {})
        self.files_root = os.path.abspath(str(files_root) if files_root is not None else status.root)
        self.host = host
        self._checked: dict[str, str | None] = {}

    def for_env(self, env: Mapping[str, str], files_root: str, host: str | None = None) -> EntryHookTrust:
        """This trust for hooks run with the host's variables ``env`` (``HookRunnerConfig.env``,
        which the hook runner gives it): an approved hook whose coverage reads differently with
        that environment's ``PATH`` or loader variables (a relative or project folder on
        ``PATH``, ``NODE_OPTIONS`` …) is ``modified``, not run. The status itself was computed
        with this process's environment (what ``wsctl hooks status`` shows)."""
        return EntryHookTrust(self.status, env=env, files_root=files_root, host=host)

    def _env_change(self, hook: HookDefinition, row: EntryStatus) -> str | None:
        """Why the host's environment changes approved ``hook``'s coverage, or None."""
        from wskit.approval.coverage import loader_variable

        if not self._env or hook.type != "command" or not any(loader_variable(str(k)) for k in self._env):
            return None
        if hook.id not in self._checked:
            entry = hook_entry(hook, self.files_root, host=self.host, env=self._env)
            why = None
            if entry.digest != row.entry.digest:
                words = [w for w in entry.unverified_words if w not in row.entry.unverified_words]
                why = ("the host's environment for hooks (HookRunnerConfig.env) changes what it runs"
                       + (f": {words[0]}" if words else ""))
            self._checked[hook.id] = why
        return self._checked[hook.id]

    def pin(self, hook: HookDefinition) -> RunPin | None:
        """A :class:`RunPin` for a run of ``hook`` when it is an approved command hook (its
        covered files are checked before and after the run), or a not-required one whose
        coverage lists a project folder, else None."""
        row = self.status.of(hook.id) if hook.type == "command" and self.status.enabled else None
        if row is None:
            return None
        # a hook that needed no approval only because the project folder it reads held no
        # module yet (Python's working-folder entry) is checked too: one appearing later counts
        reaches = row.state == "not-required" and any(f.base == "project" for f in row.entry.files)
        if row.state != "approved" and not reaches:
            return None
        roots = {"project": self.files_root}
        if hook.plugin_root:
            roots["plugin"] = os.path.abspath(hook.plugin_root)
        return RunPin(row.entry, lambda: hook_entry(hook, self.files_root, host=self.host), roots,
                      required=row.state == "approved")

    def state(self, hook: HookDefinition) -> str:
        if hook.type == "function":
            return "not_required"
        if not self.status.enabled:
            return "switched-off" if self._switched_off(hook) else "disabled"
        row = self.status.of(hook.id)
        if row is None:
            return "awaiting" if _needs_approval(hook) else "not_required"
        if row.state == "approved" and self._env_change(hook, row):
            return "modified"
        return _RUNNER_STATES.get(row.state, row.state)

    def reason(self, hook: HookDefinition) -> str:
        """Why ``hook`` does not run, in words (``awaiting approval (not approved)``…)."""
        if not self.status.enabled:
            if self._switched_off(hook):
                return (f"{self.status.switched_off_by} switches hooks off, this {hook.provenance.scope.value} "
                        "guard with them; not decided (switch it off in your own settings to decide so)")
            return "hooks are switched off"
        row = self.status.of(hook.id)
        if row is None:
            return "awaiting approval (not approved)"
        if row.state == "approved" and self._env_change(hook, row):
            return f"changed since approved ({self._env_change(hook, row)})"
        if row.state in ("awaiting", "modified"):
            return f"{'awaiting approval' if row.state == 'awaiting' else 'changed since approved'}" \
                + (f" ({row.reason})" if row.reason else "")
        return row.text

    def _switched_off(self, hook: HookDefinition) -> bool:
        from wskit.builtin_plugins.hooks.runner import above_project

        return bool(self.status.switched_off_by) and above_project(hook, self.status.root)

    def digest(self) -> str | None:
        """The digest of the session's hook configuration: over every entry's digest (each
        hook as it is now, approved or not), None without external hooks. Recorded in the
        session state, so a resumed session sees a hook that changed."""
        entries = {r.entry.key: r.entry for r in self.status.rows}
        if not entries:
            return None
        from wskit.approval.entries import selection_digest

        return selection_digest([entries[k] for k in sorted(entries)]) if entries else None


def hooks_switched_off_by(binding, trust, profile) -> str | None:
    """The project or local settings file whose ``disableAllHooks: true`` switches hooks off
    while no user, managed or invocation layer does (:func:`wskit.formats.settings.hooks_switched_off_by`),
    or None (also when the host switched hooks off: that is the user's choice)."""
    from wskit.formats.settings import hooks_switched_off_by as _by
    from wskit.formats.settings import settings_layers

    if profile.settings.get("hooks_enabled") is False:
        return None
    layers, _ = settings_layers(binding, profile, trust)
    return _by(layers)


def session_hook_trust(session) -> EntryHookTrust | None:
    """The :class:`EntryHookTrust` of a session (None when it carries no profile with a home)."""
    profile = getattr(session, "profile", None)
    if profile is None or profile.home is None:
        return None
    hooks = list(session.registry("hook").active())
    enabled = hooks_enabled(session.binding, session.trust, profile)
    trusted = bool(getattr(session.trust, "trusted", False))
    status = hook_approval_status(profile.home, session.binding.source_root, hooks, enabled=enabled,
                                  files_root=session.binding.execution_root, folder_trusted=trusted,
                                  host=getattr(session, "host", None))
    if not enabled:
        by = hooks_switched_off_by(session.binding, session.trust, profile)
        if by:
            status = status.copy_with(switched_off_by=by)
    return EntryHookTrust(status, files_root=session.binding.execution_root, host=getattr(session, "host", None))
