"""Per-server approval of project MCP servers (Claude Code reference/conventions.md §1.9).

Folder trust alone does not start a project's servers: a server defined by the project
(``.mcp.json``, the project's settings files, ``settings.local.json``) starts only once it
is approved. Plugin servers come with enabling their plugin; user, admin and ``--mcp-config``
servers are the user's own (state ``not-required``), as Claude Code treats them.

A project server is, in this order:

- ``denied`` when any settings layer lists it in ``disabledMcpjsonServers`` (Claude Code:
  this always rejects), or ``wsctl mcp deny NAME`` recorded it;
- ``approved`` when ``wsctl mcp approve NAME`` recorded the digest of its definition as it
  is now (``modified`` when the definition changed since), or the **user's** settings
  (``~/.claude/settings.json``, ``~/.<host>/settings.json``) say ``enableAllProjectMcpServers:
  true`` or list it in ``enabledMcpjsonServers``;
- ``pending`` otherwise.

Claude Code also honours ``enabledMcpjsonServers``/``enableAllProjectMcpServers`` from the
project's own settings files once the folder is trusted; wskit does not (a repository would
approve its own commands), see docs/compatibility.md.

Store ``<home>/.wskit/mcp-approvals.json``: ``{"version": 1, "projects": {"<source root>":
{"<server name>": {"state": "approved"|"denied", "digest": "<sha256>", "at": "…"}}}}``, a
regular file of mode 0600 owned by the user, at most 1 MiB, written atomically under a lock;
anything else about it is state ``error`` (nothing starts).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wskit import fs
from wskit.errors import WskitError
from wskit.fs import jsonsafe
from wskit.fs.atomic import atomic_write
from wskit.models import Scope

if TYPE_CHECKING:
    from wskit.resources.servers import McpServer

__all__ = ["APPROVAL_SCOPES", "ApprovalState", "approval_status", "McpApprovalStore", "McpApprovalStoreError"]

ApprovalState = Literal["not-required", "approved", "pending", "modified", "denied", "error"]
#: Scopes whose servers need approval.
APPROVAL_SCOPES = frozenset({Scope.PROJECT, Scope.LOCAL})
_MAX_BYTES = 1 << 20


class McpApprovalStoreError(WskitError):
    """The approval store is unusable (wrong type, owner, mode or format)."""


class McpApprovalStore:
    """The per-user record of approved and denied project MCP servers.

    :param path: the JSON file (default ``<home>/.wskit/mcp-approvals.json`` via :meth:`for_home`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def for_home(cls, home: str | os.PathLike[str]) -> "McpApprovalStore":
        """The store of the user whose home is ``home``."""
        return cls(Path(home) / ".wskit" / "mcp-approvals.json")

    def read(self) -> dict[str, dict[str, dict[str, str]]]:
        """``{root: {name: entry}}``.

        :raises McpApprovalStoreError: not a regular file, wrong owner or mode, too large, bad format.
        """
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise McpApprovalStoreError(f"MCP approval store {self.path} unreadable: {err.strerror}") from None
        if not stat.S_ISREG(st.st_mode):
            raise McpApprovalStoreError(f"MCP approval store must be a regular file: {self.path}")
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise McpApprovalStoreError(f"MCP approval store {self.path} is not owned by the current user")
        if stat.S_IMODE(st.st_mode) != 0o600:
            raise McpApprovalStoreError(f"MCP approval store permissions must be 0600 ({self.path} has "
                                        f"{stat.S_IMODE(st.st_mode):04o})")
        try:
            raw = fs.read_bytes(self.path.parent, self.path.name, max_bytes=_MAX_BYTES).raw
            data = jsonsafe.loads(raw, path=str(self.path), max_depth=16)
        except fs.SafeFsError as err:
            raise McpApprovalStoreError(f"MCP approval store {self.path} is corrupt: {err}") from None
        if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("projects"), dict):
            raise McpApprovalStoreError(f"MCP approval store {self.path} has an unknown format")
        for root, servers in data["projects"].items():
            if not isinstance(servers, dict) or not all(
                    isinstance(e, dict) and e.get("state") in ("approved", "denied") and isinstance(e.get("digest"), str)
                    for e in servers.values()):
                raise McpApprovalStoreError(f"MCP approval store {self.path}: entry {root!r} is malformed")
        return data["projects"]

    def entry(self, root: str, name: str) -> dict[str, str] | None:
        """The record for server ``name`` of project ``root``, or None."""
        return self.read().get(str(root), {}).get(name)

    def record(self, root: str, name: str, state: Literal["approved", "denied"], digest: str) -> None:
        """Record ``state`` for server ``name`` of ``root`` with the definition's ``digest``.

        :raises McpApprovalStoreError: the store is unusable (it is never overwritten then).
        """
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock"):
            projects = self.read()
            projects.setdefault(str(root), {})[name] = {
                "state": state, "digest": digest,
                "at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
            doc = {"version": 1, "projects": {k: projects[k] for k in sorted(projects)}}
            atomic_write(self.path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"), mode=0o600)

    def forget(self, root: str, name: str) -> bool:
        """Remove the record of ``name``. :returns: True when there was one."""
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.path) + ".lock"):
            projects = self.read()
            if projects.get(str(root), {}).pop(name, None) is None:
                return False
            if not projects[str(root)]:
                projects.pop(str(root))
            doc = {"version": 1, "projects": {k: projects[k] for k in sorted(projects)}}
            atomic_write(self.path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"), mode=0o600)
        return True


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def approval_status(server: "McpServer", binding: Any, profile: Any, *, home: str | os.PathLike[str] | None = None
                    ) -> ApprovalState:
    """The approval state of ``server`` in the workspace ``binding`` (see the module doc).

    :param profile: the :class:`~wskit.host.HostProfile` (settings layers); None: no settings.
    :param home: the user's home (the store); None: ``profile.home``; neither: no store.
    """
    if server.scope not in APPROVAL_SCOPES:
        return "not-required"
    layers = []
    if profile is not None and getattr(profile, "home", None) is not None:
        from wskit.formats.settings import settings_layers
        from wskit.trust import TrustDecision

        # a project or local server exists only in a project that passed the trust gate, so
        # its project layers are read (an untrusted project's are not: settings_layers)
        trusted = TrustDecision(path=str(binding.source_root), state="trusted", source="mcp-approval")
        layers, _ = settings_layers(binding, profile, trusted)
    if any(server.name in _names(layer.data.get("disabledMcpjsonServers")) for layer in layers):
        return "denied"
    home = home if home is not None else getattr(profile, "home", None)
    if home is not None:
        try:
            entry = McpApprovalStore.for_home(home).entry(str(binding.source_root), server.name)
        except McpApprovalStoreError:
            return "error"
        if entry is not None:
            if entry["state"] == "denied":
                return "denied"
            return "approved" if entry["digest"] == server.provenance.sha256 else "modified"
    for layer in layers:
        if layer.scope != "user":
            continue
        if layer.data.get("enableAllProjectMcpServers") is True \
                or server.name in _names(layer.data.get("enabledMcpjsonServers")):
            return "approved"
    return "pending"
