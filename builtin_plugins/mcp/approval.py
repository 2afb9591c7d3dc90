"""Per-server approval of project MCP servers (Claude Code reference/conventions.md §1.9;
the entries and the store are :mod:`wskit.approval`).

Folder trust alone does not start a project's servers: a server defined by the project
(``.mcp.json``, the project's settings files, ``settings.local.json``, a plugin the project
ships in ``.claude/plugins/``) starts only once it is approved. Servers of plugins the user
installed come with enabling their plugin; user, admin and ``--mcp-config``
servers are the user's own (state ``not-required``), as Claude Code treats them.

A project server is, in this order:

- ``denied`` when any settings layer lists it in ``disabledMcpjsonServers`` (Claude Code:
  this always rejects), or ``~/.claude.json``'s ``projects[<project>].disabledMcpjsonServers``
  does (where Claude Code records its user's choice; hosts with Claude conventions), or
  ``wsctl mcp deny NAME`` recorded it;
- ``approved`` when ``wsctl mcp approve NAME --digest D`` recorded its entry as it is now:
  its definition and the bytes and executable bit of the project files its command runs
  (:func:`~wskit.approval.servers.server_entry`); ``modified`` when one of them changed
  since (the reason names what); or when ``~/.claude.json``'s
  ``projects[<project>].enabledMcpjsonServers`` lists it (the user's choice recorded by
  Claude Code: it names the server, not its files, so only a server with no recorded
  entry of its own), or the **user's** settings (``~/.claude/settings.json``,
  ``~/.<host>/settings.json``) say ``enableAllProjectMcpServers: true`` or list it in
  ``enabledMcpjsonServers``;
- ``awaiting`` otherwise.

Claude Code also honours ``enabledMcpjsonServers``/``enableAllProjectMcpServers`` from the
project's own settings files once the folder is trusted; wskit does not (a repository would
approve its own commands), see docs/compatibility.md.

Earlier approvals (``<home>/.wskit/mcp-approvals.json``, :class:`McpApprovalStore`, the
digest of the definition only) are migrated when first seen: a denial always; an approval
when the definition is unchanged and its command names no project file and no word
coverage cannot follow (it then covered all there is); any other server awaits approval
again, its reason saying why. Store: ``<home>/.wskit/approvals.json`` (:mod:`wskit.approval.store`);
anything wrong with either store is state ``error`` (nothing starts).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wskit.approval.entries import ApprovalEntry
from wskit.approval.servers import needs_approval
from wskit.errors import WskitError
from wskit.fs.atomic import StateFileError
from wskit.fs.store import PrivateJsonFile

if TYPE_CHECKING:
    from wskit.resources.servers import McpServer


ApprovalState = Literal["not-required", "approved", "awaiting", "modified", "denied", "untrusted-project", "error"]
_MAX_BYTES = 1 << 20


class McpApprovalStoreError(WskitError):
    """The approval store is unusable (wrong type, owner, mode or format)."""


class McpApprovalStore:
    """The earlier per-user record of approved and denied project MCP servers (the digest of
    the definition only), read to migrate it (module doc); new approvals go to
    :class:`~wskit.approval.store.ApprovalStore`.

    :param path: the JSON file (default ``<home>/.wskit/mcp-approvals.json`` via :meth:`for_home`).
    """

    def __init__(self, path: str | os.PathLike[str], anchor: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path)
        #: no link may lead from here to the store (:mod:`wskit.fs.store`)
        self.anchor = Path(anchor) if anchor is not None else self.path.parent
        self._file = PrivateJsonFile(self.path, self.anchor, what="MCP approval store", max_bytes=_MAX_BYTES)

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> "McpApprovalStore":
        """The store of the user whose home is ``home`` (no link allowed below it)."""
        return cls(Path(home) / ".wskit" / "mcp-approvals.json", anchor=home)

    def _projects(self, data: object) -> dict[str, dict[str, dict[str, str]]]:
        if data is None:
            return {}
        if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("projects"), dict):
            raise McpApprovalStoreError(f"MCP approval store {self.path} has an unknown format")
        for root, servers in data["projects"].items():
            if not isinstance(servers, dict) or not all(
                    isinstance(e, dict) and e.get("state") in ("approved", "denied") and isinstance(e.get("digest"), str)
                    for e in servers.values()):
                raise McpApprovalStoreError(f"MCP approval store {self.path}: entry {root!r} is malformed")
        return data["projects"]

    def read(self) -> dict[str, dict[str, dict[str, str]]]:
        """``{root: {name: entry}}``.

        :raises McpApprovalStoreError: reached through a link, not a regular file, wrong
            owner or mode, too large, bad format (:class:`~wskit.fs.store.PrivateJsonFile`).
        """
        try:
            return self._projects(self._file.read())
        except StateFileError as err:
            raise McpApprovalStoreError(str(err)) from None

    def _change(self, edit: Callable[[dict[str, dict[str, dict[str, str]]]], bool]) -> bool:
        """``edit`` the projects under the store's lock; written when it returns True."""
        changed: list[bool] = []

        def step(data: object) -> object:
            projects = {k: dict(v) for k, v in self._projects(data).items()}
            if not edit(projects):
                return None
            changed.append(True)
            return {"version": 1, "projects": {k: projects[k] for k in sorted(projects) if projects[k]}}

        try:
            self._file.update(step)
        except StateFileError as err:
            raise McpApprovalStoreError(str(err)) from None
        return bool(changed)

    def entry(self, root: str, name: str) -> dict[str, str] | None:
        """The record for server ``name`` of project ``root``, or None."""
        return self.read().get(str(root), {}).get(name)

    def record(self, root: str, name: str, state: Literal["approved", "denied"], digest: str) -> None:
        """Record ``state`` for server ``name`` of ``root`` with the definition's ``digest``.

        :raises McpApprovalStoreError: the store is unusable (it is never overwritten then).
        """
        entry = {"state": state, "digest": digest,
                 "at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}

        def put(projects: dict[str, dict[str, dict[str, str]]]) -> bool:
            projects.setdefault(str(root), {})[name] = entry
            return True

        self._change(put)

    def forget(self, root: str, name: str) -> bool:
        """Remove the record of ``name``. :returns: True when there was one.

        :raises McpApprovalStoreError: the store is unusable."""
        return self._change(lambda projects: projects.get(str(root), {}).pop(name, None) is not None)


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _claude_json_choices(home: str | os.PathLike[str], root: str) -> tuple[set[str], set[str]]:
    """``(enabledMcpjsonServers, disabledMcpjsonServers)`` of ``~/.claude.json``'s
    ``projects[<root>]``, where Claude Code records the choices its user made for the
    project's ``.mcp.json`` servers (Claude Code 2.1.337 starts the enabled ones and leaves
    the disabled ones out: recorded case ``claude-json-mcpjson-choices``). The user's own
    file, read bounded (16 MiB); unreadable or malformed: no choices."""
    from wskit.fs.jsonfile import read_json

    data, _ = read_json(str(home), ".claude.json", follow_links=True, max_bytes=16 << 20)
    projects = data.get("projects") if isinstance(data, dict) else None
    entry = projects.get(root) if isinstance(projects, dict) else None
    if not isinstance(entry, dict):
        return set(), set()
    return _names(entry.get("enabledMcpjsonServers")), _names(entry.get("disabledMcpjsonServers"))


def server_approval(server: "McpServer", binding: Any, profile: Any, *, home: str | os.PathLike[str] | None = None,
                    folder_trusted: bool | None = None) -> tuple[ApprovalState, str, ApprovalEntry]:
    """The approval state of ``server`` in the workspace ``binding`` (see the module doc),
    the reason in words, and its :class:`~wskit.approval.entries.ApprovalEntry` (what
    ``wsctl mcp approve`` records; its ``digest`` is what ``--digest`` takes).

    :param profile: the :class:`~wskit.host.HostProfile` (settings layers); None: no settings.
    :param home: the user's home (the store); None: ``profile.home``; neither: no store.
    :param folder_trusted: the project's folder trust (the session's or workspace's
        ``trust.trusted``); None: not trusted (fails closed). A server of the user's own that reaches the project
        is ``untrusted-project`` in a project that is not trusted, and approved per entry
        in one that is (:func:`~wskit.approval.servers.server_status`).
    """
    from wskit.approval.servers import server_status

    home = home if home is not None else getattr(profile, "home", None)
    if not needs_approval(server, binding.source_root, binding.execution_root):
        st = server_status(server, "mcp", binding.execution_root, binding.source_root, home,
                           folder_trusted=bool(folder_trusted))
        return st.state, st.reason, st.entry  # type: ignore[return-value]
    layers = []
    if profile is not None and getattr(profile, "home", None) is not None:
        from wskit.formats.settings import settings_layers
        from wskit.trust import TrustDecision

        # a project or local server exists only in a project that passed the trust gate, so
        # its project layers are read (an untrusted project's are not: settings_layers)
        trusted = TrustDecision(path=str(binding.source_root), state="trusted", source="mcp-approval")
        layers, _ = settings_layers(binding, profile, trusted)
    st = server_status(server, "mcp", binding.execution_root, binding.source_root, home)
    entry = st.entry
    chosen = _claude_json_choices(home, str(binding.source_root)) \
        if home is not None and getattr(profile, "claude_conventions", False) else (set(), set())
    if server.name in chosen[1]:
        return "denied", "disabledMcpjsonServers in ~/.claude.json", entry
    if any(server.name in _names(layer.data.get("disabledMcpjsonServers")) for layer in layers):
        return "denied", "disabledMcpjsonServers", entry
    if st.state in ("denied", "approved", "modified", "error"):
        return st.state, st.reason, entry  # type: ignore[return-value]
    if home is not None:
        migrated = _migrate(server, entry, str(binding.source_root), home)
        if migrated is not None:
            return migrated[0], migrated[1], entry
    if server.name in chosen[0]:
        return "approved", "enabledMcpjsonServers in ~/.claude.json", entry
    for layer in layers:
        if layer.scope != "user":
            continue
        if layer.data.get("enableAllProjectMcpServers") is True \
                or server.name in _names(layer.data.get("enabledMcpjsonServers")):
            return "approved", "approved in your settings", entry
    return "awaiting", st.reason, entry


def _migrate(server: "McpServer", entry: ApprovalEntry, root: str, home: str | os.PathLike[str]
             ) -> tuple[ApprovalState, str] | None:
    """An earlier per-definition record of ``server`` honoured for what it covered (module doc)."""
    from wskit.approval.store import ApprovalStore, ApprovalStoreError

    old_store = McpApprovalStore.for_home(home)
    try:
        old = old_store.entry(root, server.name)
    except McpApprovalStoreError as err:
        return "error", str(err)
    if old is None:
        return None
    try:
        if old["state"] == "denied":
            ApprovalStore.for_home(home).deny(root, [entry])
            old_store.forget(root, server.name)
            return "denied", "denied by the user"
        if old["digest"] != server.provenance.sha256:
            return "modified", "definition changed since approved"
        if entry.files or entry.unverified:
            what = ", ".join([f.shown for f in entry.files] + list(entry.unverified_words))
            return "awaiting", (f"approved before approval covered the files it runs ({what}): "
                                "review and approve again")
        ApprovalStore.for_home(home)._put(root, [entry], "approved")  # noqa: SLF001 — covers all there is
        old_store.forget(root, server.name)
    except (ApprovalStoreError, McpApprovalStoreError) as err:
        return "error", str(err)
    return "approved", ""


def approval_status(server: "McpServer", binding: Any, profile: Any, *, home: str | os.PathLike[str] | None = None,
                    folder_trusted: bool | None = None) -> ApprovalState:
    """The approval state of ``server`` in the workspace ``binding`` (:func:`server_approval`)."""
    return server_approval(server, binding, profile, home=home, folder_trusted=folder_trusted)[0]
