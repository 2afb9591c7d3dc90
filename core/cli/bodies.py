"""The body of ``wsctl inspect [PATH]`` with plain arguments (click-free: the per-turn
dispatcher :mod:`wskit.cli.fast` and the click command :mod:`wskit.cli.inspect` both call it),
and the listing helpers other commands share."""

from __future__ import annotations

from wskit import changes
from wskit.cli.context import WsctlContext, print_diag_dicts, safe_text, table
from wskit.cli.plain import echo
from wskit.models import display_path


def resource_row(res, root) -> dict:
    """The JSON form of a resource in listings: kind, id, name, scope, path, plugin."""
    p = res.provenance
    return {
        "kind": res.kind,
        "id": res.id,
        "name": res.name,
        "scope": p.scope.value,
        "path": display_path(p.absolute_str, root),
        "plugin": p.plugin,
    }


def print_diagnostics(diags, root) -> None:
    """Human form of :class:`~wskit.models.Diagnostic` objects (stdout), one per line,
    paths relative to ``root``: :func:`~wskit.cli.context.print_diag_dicts` of their JSON form."""
    print_diag_dicts([d.to_json(root) for d in diags])


def inspect_workspace(obj: WsctlContext, path: str) -> None:
    """``wsctl inspect PATH``: the workspace holding ``path`` (binding, trust, hooks, counts,
    resources, diagnostics) as JSON with ``--json``, else as text."""
    with changes.whole_project():  # every rule is listed below: no lazy first read of the root chain
        ws = obj.resolve(path)
    root = ws.binding.source_root
    resources = list(ws.resources())
    counts = ws.counts()
    rules = ws.catalog("rules")
    found = list(ws.diagnostics)
    if rules is not None:  # instruction files and rules live in a catalog, not a registry
        resources.extend(rules.rules())  # a lazy catalog reads the whole project here
        counts["rule"] = len(rules.rules())
        known = {id(d) for d in found}
        found.extend(d for d in rules.diagnostics if id(d) not in known)
    # one line per finding: two capabilities reading the same settings file name it alike
    seen: set = set()
    found = [d for d in found if not ((k := (d.level, d.code, d.path, d.line, d.message, d.plugin)) in seen
                                      or seen.add(k))]
    diags = obj.listing_diagnostics(ws, found)  # all of them: --plugin-dir failures included
    approval = ws.catalog("hooks")  # the hooks capability's status, when it is installed
    st = approval.status() if approval is not None else None
    hooks_note = approval.summary() if approval is not None else None
    data = {
        "workspace": {
            "source_root": str(root),
            "execution_root": str(ws.binding.execution_root),
            "cwd": str(ws.binding.cwd),
            "host": ws.profile.name,
        },
        "trust": {"state": ws.trust.state, "decided_by": ws.trust.decided_by},
        "hooks": None if approval is None else {
            "state": st.state if st else "not_required", "count": st.count if st else 0,
            "awaiting_approval": st.awaiting_approval if st else 0, "digest": st.digest if st else None,
            "summary": hooks_note},
        "counts": dict(sorted(counts.items())),
        "resources": [resource_row(r, root) for r in resources],
        "diagnostics": [d.to_json(root) for d in diags],
    }

    def human() -> None:
        echo(f"source project : {root}")
        if ws.binding.execution_root != root:
            echo(f"execution root : {ws.binding.execution_root} (worktree)")
        echo(f"host           : {ws.profile.name}")
        hint = ws.trust.cli_hint()
        echo(safe_text(f"trust          : {ws.trust.state} — {ws.trust.reason()}" + (f" ({hint})" if hint else "")))
        if hooks_note:
            echo(safe_text(f"hooks          : {hooks_note}"))
        counts = ", ".join(f"{k}: {n}" for k, n in data["counts"].items()) or "none"
        echo(f"resources      : {counts}")
        # a rule's id is a digest: people know a rule by its file (JSON keeps the id)
        rows = [[r["kind"], f"{r['scope']}:{r['path']}" if r["kind"] == "rule" else r["id"], r["scope"], r["path"]]
                for r in data["resources"]]
        if rows:
            echo("")
            echo(table(rows, ["KIND", "ID", "SCOPE", "PATH"]))
        print_diagnostics(diags, root)

    obj.emit(data, human)
