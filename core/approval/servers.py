"""Approval entries of MCP and LSP servers (one entry per server; docs/security.md).

Shared by the ``mcp`` and ``lsp`` capabilities: a project (or local) server starts only
once *that server as defined now* is approved — its definition as written and the bytes and
executable bit of the project files its command runs (``command: sh ./srv.sh``: editing
``srv.sh`` makes it ``modified``). Whether a server needs approval is decided by where its
definition lives, not by the kind of its source (:func:`needs_approval`): a definition whose
file lies in the project — the project's ``.mcp.json``/``.lsp.json``/settings, and a plugin
the project ships (``<project>/.claude/plugins/X/``: its ``.mcp.json``, ``.lsp.json`` or
manifest) — needs it, since folder trust alone must run nothing of the project. Servers of
plugins the user installed, the user's, an administrator's and ``--mcp-config`` servers are
the user's own: they need no approval (Claude Code's rule for MCP servers, applied to LSP
servers too).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from wskit.approval.entries import (
    ApprovalEntry,
    entry_coverage,
    project_files,
    shown_argv,
    shown_command,
    untrusted_project_reason,
)
from wskit.approval.store import ApprovalStore, EntryStatus
from wskit.models import Scope

#: Scopes whose servers always need approval (what a repository can write).
APPROVAL_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL})


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    for root in roots:
        rel = os.path.relpath(path, root)
        if rel != ".." and not rel.startswith(".." + os.sep) and not os.path.isabs(rel):
            return True
    return False


def needs_approval(server: Any, *project_roots: str | os.PathLike[str]) -> bool:
    """True when ``server`` starts only once approved: its scope is one a repository writes
    (:data:`APPROVAL_SCOPES`), or the file that defines it lies in one of ``project_roots``
    (the source project and the execution root), as a project-scope plugin's
    ``.mcp.json``/``.lsp.json``/manifest does. Both the path as written and the path with
    links resolved are checked, so a plugin folder linked into the project, or a project
    folder reached through a link, still counts as the project's. Never raises."""
    if server.scope in APPROVAL_SCOPES:
        return True
    roots = tuple(dict.fromkeys(r for root in project_roots if root
                                for r in (os.path.abspath(str(root)), os.path.realpath(str(root)))))
    if not roots:
        return False
    p = server.provenance
    path = os.path.abspath(p.absolute_str)
    return _inside(path, roots) or _inside(os.path.realpath(path), roots) \
        or _inside(os.path.realpath(p.source_root), roots)


def server_entry(server: Any, capability: str, project_root: str | os.PathLike[str], *,
                 cover: bool = True) -> ApprovalEntry:
    """The :class:`~wskit.approval.entries.ApprovalEntry` of an MCP or LSP ``server``.

    :param capability: ``mcp`` or ``lsp``.
    :param project_root: the folder the server starts in (the execution root); a relative
        ``cwd`` of an MCP server is read below it.
    :param cover: read the files its command names (False: definition only).
    Source ``<scope> <file>`` (``project .mcp.json``), identity its name, definition the
    entry as written; covered: the project files its ``command`` and ``args`` name (read
    in its ``cwd``), with the words coverage could not follow.
    """
    p = server.provenance
    root = os.path.abspath(str(project_root))
    cwd = getattr(server, "cwd", None)
    cwd = os.path.normpath(os.path.join(root, cwd)) if isinstance(cwd, str) and cwd else root
    files, unverified = (), ()
    command = getattr(server, "command", None)
    if command and cover:
        files, unverified = entry_coverage(argv=[command, *getattr(server, "args", ())], cwd=cwd, project_root=root,
                                           plugin_root=p.source_root if p.scope is Scope.PLUGIN else None,
                                           env={"PATH": os.environ.get("PATH", "")},
                                           defined_env=_written_env(server))
    source = f"plugin {server.plugin}" if server.plugin else f"{p.scope.value} {p.path}"
    return ApprovalEntry(capability=capability, source=source, identity={"name": server.name},
                         definition=dict(server.config), files=files, unverified=unverified,
                         label=f"{shown_command(server.name)}: {shown_server(server)}",
                         resource_id=server.id)


def _written_env(server: Any) -> dict[str, Any]:
    """The ``env`` map of ``server``'s definition as written (its ``env`` when none was kept)."""
    config = getattr(server, "config", None) or {}
    env = config.get("env") if isinstance(config, Mapping) else None
    if env is None:
        env = getattr(server, "env", None)
    return dict(env) if isinstance(env, Mapping) else {}


#: Scopes whose ``${VAR}`` stay as written until the server starts (the rest are expanded at load).
_WRITTEN_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL, Scope.PLUGIN})


def shown_server(server: Any) -> str:
    """What ``server`` runs as every approval screen shows it: its whole command line
    (``command`` and ``args``, each word quoted where needed: :func:`~wskit.approval.entries.shown_argv`)
    or its URL (:func:`~wskit.approval.entries.shown_command`). A definition expanded at load
    (the user's, an administrator's, ``--mcp-config``) has every environment value of 8
    characters or more shown as ``***``, as the MCP service masks what it quotes: a
    ``${TOKEN}`` the user wrote is never printed as its value."""
    command = getattr(server, "command", None)
    words = [command, *getattr(server, "args", ())] if command else [getattr(server, "url", None) or ""]
    if getattr(server, "scope", None) not in _WRITTEN_SCOPES:
        values = sorted({v for v in os.environ.values() if len(v) >= 8}, key=len, reverse=True)
        for value in values:
            words = [w.replace(value, "***") if value in w else w for w in words]
    return shown_argv(words) if command else shown_command(words[0])


def _written(server: Any) -> str:
    """``server``'s command line (or URL) as written, one string."""
    return " ".join([getattr(server, "command", None) or getattr(server, "url", None) or "",
                     *getattr(server, "args", ())]).strip()


def server_status(server: Any, capability: str, project_root: str | os.PathLike[str],
                  source_root: str | os.PathLike[str], home: str | os.PathLike[str] | None, *,
                  folder_trusted: bool = True) -> EntryStatus:
    """The approval state of ``server`` (never raises): the one decision ``mcp list``,
    ``lsp list``, ``mcp check``, ``lsp check``, ``approve`` and the runtime take.

    A server defined in the project (:func:`needs_approval`) has its record in
    ``<home>/.wskit/approvals.json`` (no home: ``awaiting``). A server of the user's own
    (user settings, ``~/.claude.json``, a user plugin, an administrator's, ``--mcp-config``)
    starts in the execution root, so what it runs may be the project's:

    - in a project that is **not trusted** (``folder_trusted`` False) it is
      ``untrusted-project`` — never started — when its command runs a project file, points
      into the project, or holds a word coverage cannot follow
      (:func:`~wskit.approval.entries.untrusted_project_reason`, the rule the user's hooks
      follow too);
    - in a **trusted** project, a server whose command runs project files (``python3
      srv.py`` with the project's ``srv.py``) is approved per entry for this project like
      the project's own (``awaiting`` → ``approved`` → ``modified``): the project may change
      those files at any time (the user's hooks follow the same rule);
    - else ``not-required``.
    """
    if needs_approval(server, project_root, source_root):
        entry = server_entry(server, capability, project_root)
        if home is None:
            return EntryStatus(entry, "awaiting", "no approval store (no home)")
        return ApprovalStore.for_home(home).status(str(source_root), [entry])[0]
    if getattr(server, "command", None) is None:  # a URL: no process starts
        return EntryStatus(server_entry(server, capability, project_root, cover=False), "not-required")
    entry = server_entry(server, capability, project_root)
    if not folder_trusted:
        why = untrusted_project_reason(entry, _written(server))
        return EntryStatus(entry, "untrusted-project", why) if why else EntryStatus(entry, "not-required")
    inside = project_files(entry, listings=False, written=_written(server))
    if not inside:
        return EntryStatus(entry, "not-required")
    reaching = (f"runs {inside[0]} of this project, which the project may change; approve it for this project")
    if home is None:
        return EntryStatus(entry, "awaiting", reaching)
    st = ApprovalStore.for_home(home).status(str(source_root), [entry])[0]
    return st.copy_with(reason=reaching) if st.state == "awaiting" else st


def approval_fields(state: str, reason: str, entry: ApprovalEntry) -> dict[str, Any]:
    """The approval fields of a ``wsctl mcp list`` / ``lsp list`` row: ``approval``,
    ``approval_reason``, ``approval_text`` (``approved (unverified: WORD)``, ``modified
    (srv.sh changed)``…), ``digest`` (what ``approve --digest`` takes; None when not
    required), ``covers`` (the files its approval covers) and ``unverified``."""
    if state == "approved" and entry.unverified:
        text = f"approved (unverified: {', '.join(entry.unverified_words)})"
    else:
        text = state + (f" ({reason})" if reason and state != "approved" else "")
    return {"approval": state, "approval_reason": reason, "approval_text": text,
            "digest": entry.digest if state != "not-required" else None, "covers": [f.shown for f in entry.files],
            "unverified": [{"word": w.word, "reason": w.reason} for w in entry.unverified]}


def approve_hints(rows: list[dict[str, Any]], command: str) -> list[str]:
    """One ``approve NAME: wsctl <command> approve NAME --digest D`` line per row awaiting
    approval (``awaiting`` or ``modified``), with ``--accept-unverified`` when it is needed."""
    out = []
    for r in rows:
        if r["approval"] in ("awaiting", "modified"):
            flag = " --accept-unverified" if r["unverified"] else ""
            out.append(f"approve {r['name']}: wsctl {command} approve {r['name']} --digest {r['digest']}{flag}"
                       + (f" (covers {', '.join(r['covers'])})" if r["covers"] else ""))
    return out


#: The server capabilities: capability -> (registry kind, name in messages).
SERVER_CAPABILITIES = {"mcp": ("mcp_server", "MCP"), "lsp": ("lsp_server", "LSP")}


def shown_digests(ws: Any, *, catalogs: bool = True) -> dict[str, str]:
    """Every approval digest ``wsctl`` shows for the entries of workspace ``ws``, with what each
    is the digest of (``{"sha256:…": "MCP server 'b' (entry mcp:…)"}``): each server that needs
    approval (``mcp list``, ``lsp list``) and, with ``catalogs``, what a workspace catalog
    offering ``shown_digests()`` shows (the hooks' entries and selections, ``hooks status``).
    Passed as ``known`` to :meth:`~wskit.approval.store.ApprovalStore.approve`, so a digest
    given for the wrong entry is named as such, not as a change since review. Computed only
    when a digest does not match (it reads what coverage reads); never raises."""
    out: dict[str, str] = {}
    for capability, (kind, label) in SERVER_CAPABILITIES.items():
        reg = ws.registries.get(kind)
        for server in reg.active() if reg is not None else ():
            try:
                st = server_status(server, capability, ws.binding.execution_root, ws.source_root, None,
                                   folder_trusted=ws.trust.trusted)  # the decision, without the store
                if st.state not in ("not-required", "untrusted-project"):
                    out.setdefault(st.entry.digest, f"{label} server {server.name!r} (entry {st.entry.key})")
            except Exception:  # noqa: BLE001 — a server that cannot be read is named by nothing here
                continue
    for catalog in (ws.catalogs or {}).values() if catalogs else ():
        fn = getattr(catalog, "shown_digests", None)
        try:
            for d, what in (fn() if callable(fn) else {}).items():
                out.setdefault(d, what)
        except Exception:  # noqa: BLE001 — a catalog that fails names nothing
            continue
    return out


def record_server(home: str | os.PathLike[str], source_root: str | os.PathLike[str], entry: ApprovalEntry,
                  state: str, digest: str | None, *, accept_unverified: bool = False, command: str,
                  path: str, known: Mapping[str, str] | None = None) -> None:
    """``wsctl <command> approve|deny``: record ``entry`` as ``approved`` (when ``digest`` is
    the one shown: :meth:`~wskit.approval.store.ApprovalStore.approve`) or ``denied``.
    ``known``: the other digests shown (:func:`shown_digests`), so a digest of another entry
    is named as such.

    :raises WskitError: no ``digest`` for an approval (the message names the current one),
        a digest that is not the current one, unverified words not accepted, or the store
        is unusable; nothing is recorded then."""
    from wskit.approval.store import ApprovalStoreError
    from wskit.errors import WskitError

    store = ApprovalStore.for_home(home)
    name = entry.identity.get("name", entry.key)
    try:
        if state == "denied":
            store.deny(str(source_root), [entry])
        elif digest is None:
            raise WskitError(f"review {name} first ('wsctl {command} list {path}' shows its definition, the files "
                             f"it runs and its digest), then approve what you reviewed: 'wsctl {command} approve "
                             f"{name} {path} --digest {entry.digest}'; nothing was approved")
        else:
            store.approve(str(source_root), [entry], digest, accept_unverified=accept_unverified, known=known)
    except ApprovalStoreError as err:
        raise WskitError(str(err)) from None
