"""Writing a plan without losing a hand-written file: the manifest under ``.wskit/``, the
status of every planned file, and the atomic, link-safe writes (:mod:`wskit.fs.atomic`).

Statuses (one per file, ``--check`` prints one line each):

=================  ====================================================================
``unchanged``      the file holds what the export makes
``create``         absent: written
``update``         generated earlier, not edited since, source changed: rewritten
``edited``         generated earlier and edited by hand since: left alone (``--force``)
``not-generated``  exists and was never written by the export: left alone and recorded as
                   the user's (``--force`` takes it over, naming what it replaced)
``kept``           a file the user owns (recorded ``not-generated`` earlier): left alone
``refused``        a link, a folder or a special file in the way, or a linked folder on the
                   path: never written, not even with ``--force``
``orphan``         in the manifest, no longer planned (its source is gone): ``--prune``
                   removes it when nobody edited it
``removed``        an orphan ``--prune`` removed
=================  ====================================================================
"""

from __future__ import annotations

import errno
import hashlib
import json
import os

from wskit.builtin_plugins.export.targets import Plan
from wskit.values import Value, field

#: the manifest, relative to the project root
MANIFEST = ".wskit/export.json"
_FORMAT = 1
#: statuses after which ``--check`` fails
STALE = frozenset({"create", "update", "edited", "not-generated", "orphan", "refused"})


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class FileStatus(Value):
    """One file's status (see the module docstring) with the reason in words."""

    path: str
    status: str
    reason: str = ""
    targets: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    replaced: str | None = None

    def to_json(self) -> dict:
        out = {"path": self.path, "status": self.status, "reason": self.reason, "targets": self.targets,
               "sources": self.sources}
        if self.replaced:
            out["replaced_sha256"] = self.replaced
        return out


def load_manifest(root: str) -> dict:
    """The manifest ``{"format": 1, "files": {path: {"sha256", "targets", "sources", "owner"}}}``;
    an empty one when absent.

    :raises StateFileError: the manifest or ``.wskit`` is a link or too large.
    :raises ValueError: the manifest is not what this module writes (named, not overwritten).
    """
    from wskit.fs.atomic import read_state

    path = os.path.join(root, MANIFEST)
    raw = read_state(path, anchor=root, max_bytes=4 * 1024 * 1024)
    if raw is None:
        return {"format": _FORMAT, "files": {}}
    try:
        data = json.loads(raw)
    except ValueError as err:
        raise ValueError(f"{path}: not JSON ({err}); move it away to export again") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("files"), dict):
        raise ValueError(f"{path}: not an export manifest of format {_FORMAT}; move it away to export again")
    from wskit.errors import SafeFsError
    from wskit.fs import split_written

    for rel, entry in data["files"].items():
        # a manifest is a project file: a path in it may name only a file inside the project
        try:
            if "/".join(split_written(rel)) != rel:
                raise SafeFsError("path-invalid", rel, "not in normal form")
        except SafeFsError as err:
            raise ValueError(f"{path}: entry {rel!r} refused ({err.code}: {err}); nothing exported") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            raise ValueError(f"{path}: entry {rel!r} is not an object with a sha256; nothing exported")
    return data


def _remove(root: str, rel: str) -> None:
    """Unlink ``rel`` inside its folder opened from ``root`` without following links."""
    from wskit.fs.atomic import state_dir

    target = os.path.join(root, rel)
    with state_dir(target, anchor=root, create=False) as dfd:
        os.unlink(os.path.basename(target), dir_fd=dfd)


def _current(root: str, rel: str) -> tuple[bytes | None, str | None]:
    """``(bytes, None)`` of the file now there (None when absent), or ``(None, why)`` when
    it is refused (a link on the way, not a regular file)."""
    from wskit.fs.atomic import StateFileError, read_state

    try:
        return read_state(os.path.join(root, rel), anchor=root, max_bytes=64 * 1024 * 1024), None
    except StateFileError as err:
        return None, str(err)
    except IsADirectoryError:
        return None, f"{rel} is a folder"
    except OSError as err:
        if err.errno == errno.EISDIR:
            return None, f"{rel} is a folder"
        return None, f"{rel}: {err.strerror or err}"


def _ours(entry: dict, targets: list[str] | None) -> bool:
    """Whether a manifest entry belongs to this run: all its targets are exported now."""
    return targets is None or set(entry.get("targets", ())) <= set(targets)


def statuses(root: str, plan: Plan, manifest: dict, targets: list[str] | None = None) -> list[FileStatus]:
    """The status of every planned file and every orphan of ``manifest`` (an entry whose
    targets are all in ``targets``; None: every entry), by path."""
    files = manifest.get("files", {})
    out: list[FileStatus] = []
    for path, pf in sorted(plan.files.items()):
        have, refused = _current(root, path)
        entry = files.get(path) or {}
        st = FileStatus(path, "", targets=list(pf.targets), sources=list(pf.sources))
        if refused:
            st.status, st.reason = "refused", refused
        elif have is None:
            st.status, st.reason = "create", "missing"
        elif have == pf.data:
            st.status, st.reason = "unchanged", "up to date"
        elif entry.get("owner") == "user":
            st.status, st.reason = "kept", "hand-written, kept (--force takes it over)"
        elif not entry:
            st.status, st.reason = "not-generated", "exists and was not written by wsctl export (--force takes it over)"
        elif _sha(have) == entry.get("sha256"):
            st.status, st.reason = "update", f"source changed ({', '.join(pf.sources)})"
        else:
            st.status, st.reason = "edited", "edited by hand since the export (--force overwrites it)"
        out.append(st)
    for path, entry in sorted(files.items()):
        if path in plan.files or entry.get("owner") == "user" or not _ours(entry, targets):
            continue
        have, refused = _current(root, path)
        if have is None and not refused:
            continue  # already gone: dropped from the manifest on the next write
        st = FileStatus(path, "orphan", targets=list(entry.get("targets", ())), sources=list(entry.get("sources", ())))
        if refused or _sha(have or b"") != entry.get("sha256"):
            st.reason = "its source is gone, and it was edited since the export: --prune keeps it"
        else:
            st.reason = "its source is gone (--prune removes it)"
        out.append(st)
    return out


def apply_plan(root: str, plan: Plan, *, force: bool = False, prune: bool = False, dry_run: bool = False,
               targets: list[str] | None = None) -> list[FileStatus]:
    """Write ``plan`` under ``root`` (or, with ``dry_run``, only say what would change).

    Writes only ``create`` and ``update`` files (and, with ``force``, ``edited``,
    ``not-generated`` and ``kept`` ones, each naming the digest it replaced); records every
    file written and every hand-written file left alone in the manifest; with ``prune``
    removes orphans nobody edited. The manifest is written last, under its lock, atomically.
    Every write is :func:`wskit.fs.atomic.atomic_write` anchored at ``root``: no link on the
    way is followed and a link in a file's place is refused, never replaced.

    :returns: the statuses after the run (``create``/``update`` of what was written,
        ``removed`` for pruned files; ``refused`` for a write the file system refused).
    """
    from wskit.fs.atomic import StateFileError, atomic_write, state_lock

    manifest_path = os.path.join(root, MANIFEST)
    if dry_run:
        return statuses(root, plan, load_manifest(root), targets)
    with state_lock(manifest_path, anchor=root, dir_mode=0o755):
        manifest = load_manifest(root)
        files: dict = dict(manifest.get("files", {}))
        result = statuses(root, plan, manifest, targets)
        for st in result:
            pf = plan.files.get(st.path)
            if st.status == "orphan":
                if prune and "edited" not in st.reason:
                    try:
                        _remove(root, st.path)
                    except FileNotFoundError:
                        pass
                    except (StateFileError, OSError) as err:
                        st.reason = f"not removed: {err}"
                        continue
                    files.pop(st.path, None)
                    st.status = "removed"
                continue
            if pf is None:
                continue
            write = st.status in ("create", "update") or (force and st.status in ("edited", "not-generated", "kept"))
            if write:
                if st.status in ("edited", "not-generated", "kept"):
                    have, _ = _current(root, st.path)
                    st.replaced = _sha(have or b"")
                    st.reason = f"taken over with --force (replaced content sha256 {st.replaced[:12]}…)"
                    st.status = "update"
                try:
                    mode = 0o755 if pf.data.startswith(b"#!") else 0o644
                    atomic_write(os.path.join(root, st.path), pf.data, mode=mode, anchor=root, dir_mode=0o755)
                except (StateFileError, OSError) as err:
                    st.status, st.reason = "refused", str(err)
                    continue
            if st.status in ("create", "update", "unchanged"):
                files[st.path] = {"sha256": _sha(pf.data), "targets": sorted(pf.targets), "sources": pf.sources}
            elif st.status == "not-generated":
                have, _ = _current(root, st.path)
                files[st.path] = {"owner": "user", "sha256": _sha(have or b""), "targets": sorted(pf.targets),
                                  "sources": pf.sources}
        for path in [p for p, e in files.items()
                     if p not in plan.files and e.get("owner") == "user" and _ours(e, targets)]:
            files.pop(path)
        for path in [p for p in files if p not in plan.files]:
            have, refused = _current(root, path)
            if have is None and not refused:
                files.pop(path)
        data = {"format": _FORMAT, "files": dict(sorted(files.items()))}
        if data != manifest:  # a run that changes nothing leaves the manifest alone too
            atomic_write(manifest_path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode(), mode=0o644,
                         anchor=root, dir_mode=0o755)
    return result
