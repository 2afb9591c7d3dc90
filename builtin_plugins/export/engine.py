"""One export run: read the source view, plan every target, write (or check), verify.

:func:`run_export` is what ``wsctl export`` and ``wskit.export`` (through the
``wskit_export`` hook) call; it returns an :class:`ExportReport`.
"""

from __future__ import annotations

from typing import Any

from wskit.builtin_plugins.export.apply import STALE, FileStatus
from wskit.builtin_plugins.export.targets import Loss, Plan
from wskit.values import Value, field


class UntrustedProjectError(PermissionError):
    """The project is not trusted: an export reads only what a trusted workspace loads,
    and an untrusted one loads no project resource, so nothing would be exported."""


class ExportReport(Value):
    """What an export did or would do.

    :ivar root: the project root. :ivar source: the ``--from`` profile.
    :ivar targets: the targets, in the order given.
    :ivar files: the status of every planned file and orphan.
    :ivar losses: what each target does not carry, or carries with a difference.
    :ivar notes: what a target reads from the source layout as it is.
    :ivar verify: per target, the verification (``None`` when not asked).
    :ivar mode: ``write``, ``dry-run`` or ``check``.
    """

    root: str
    source: str
    targets: list[str]
    files: list[FileStatus] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    notes: list[Loss] = field(default_factory=list)
    verify: dict[str, Any] | None = None
    mode: str = "write"
    plan: Plan | None = None

    @property
    def stale(self) -> list[FileStatus]:
        """The files ``--check`` fails on."""
        return [f for f in self.files if f.status in STALE]

    @property
    def ok(self) -> bool:
        """In check mode: every target up to date; otherwise: no write refused."""
        if self.mode == "check":
            return not self.stale
        return not any(f.status == "refused" for f in self.files)

    def to_json(self) -> dict:
        return {"root": self.root, "from": self.source, "targets": self.targets, "mode": self.mode, "ok": self.ok,
                "files": [f.to_json() for f in self.files], "losses": [loss.to_json() for loss in self.losses],
                "notes": [n.to_json() for n in self.notes], "verify": self.verify}


def run_export(ws, targets: list[str], *, source: str = "claude", dry_run: bool = False, force: bool = False,
               prune: bool = False, check: bool = False, verify: bool = False) -> ExportReport:
    """Export the loaded workspace ``ws`` (loaded under ``source``'s profile) to ``targets``.

    :param check: write nothing; the report's ``ok`` says whether every file is up to date.
    :param dry_run: write nothing; the statuses say what would change.
    :param verify: load the tree on disk under each target's profile and compare
        (:func:`wskit.builtin_plugins.export.verify.verify`).
    :raises UntrustedProjectError: the project is not trusted.
    :raises ValueError: an unknown target, or an unreadable manifest.
    """
    from wskit.builtin_plugins.export.apply import apply_plan, load_manifest, statuses
    from wskit.builtin_plugins.export.targets import build_plan
    from wskit.builtin_plugins.export.view import source_view

    root = str(ws.binding.source_root)
    if ws.trust is None or not ws.trust.trusted:
        raise UntrustedProjectError(
            f"{root} is not trusted: an untrusted project loads no project file, so there is nothing to export "
            f"(trust it with `wsctl trust grant {root}` once you have read it)")
    targets = list(dict.fromkeys(targets))
    manifest = load_manifest(root)
    generated = frozenset(p for p, e in manifest.get("files", {}).items() if e.get("owner") != "user")
    view = source_view(ws, source, generated)
    plan = build_plan(view, targets)
    mode = "check" if check else "dry-run" if dry_run else "write"
    if check:
        files = statuses(root, plan, manifest, targets)
    else:
        files = apply_plan(root, plan, force=force, prune=prune, dry_run=dry_run, targets=targets)
    report = ExportReport(root, source, targets, files, list(plan.losses), list(plan.notes), mode=mode, plan=plan)
    for st in files:
        if st.status in ("kept", "not-generated", "edited") and st.path in plan.files:
            pf = plan.files[st.path]
            for t in st.targets:
                for src in pf.sources:
                    report.losses.append(Loss(t, pf.kind, src, f"{st.path}: {st.reason}; {t} loads that file, "
                                              "not the export", carried=False))
    if verify:
        from wskit.builtin_plugins.export.verify import verify as run_verify

        report.verify = run_verify(ws, view, plan, targets, report.losses)
    return report
