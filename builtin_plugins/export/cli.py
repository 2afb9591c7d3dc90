"""``wsctl export [PATH] --to HOST[,HOST…]`` (docs/export.md)."""

from __future__ import annotations

import sys

import click

from wskit.cli.context import WsctlContext, json_option, path_argument, safe_text


def parse_targets(value: str) -> list[str]:
    """``codex,gemini`` → ``["codex", "gemini"]``.

    :raises click.BadParameter: an empty list or an unknown name.
    """
    from wskit.builtin_plugins.export import TARGETS

    names = [t.strip() for t in value.split(",") if t.strip()]
    unknown = [t for t in names if t not in TARGETS]
    if not names or unknown:
        raise click.BadParameter(f"unknown target(s) {', '.join(unknown) or '(none)'}; known: {', '.join(TARGETS)}",
                                 param_hint="--to")
    return names


_VERB = {"create": "write", "update": "rewrite", "unchanged": "unchanged", "edited": "skip (edited)",
         "not-generated": "skip (hand-written)", "kept": "keep (hand-written)", "refused": "refused",
         "orphan": "orphan", "removed": "removed"}


@click.command("export")
@path_argument
@click.option("--to", "to", required=True, help="Targets: claude, codex, gemini, opencode, copilot, cursor, agents "
                                                 "(comma-separated).")
@click.option("--from", "source", default="claude", show_default=True,
              help="The host profile the workspace is read as.")
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@click.option("--force", is_flag=True, help="Take over hand-written or hand-edited files (each named).")
@click.option("--prune", is_flag=True, help="Remove generated files whose source is gone (unless edited).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when any file is missing, stale or edited.")
@click.option("--verify", is_flag=True, help="Load the exported tree under each target's profile and list every "
                                             "loss.")
@json_option
@click.pass_obj
def export_cmd(obj: WsctlContext, path: str, to: str, source: str, dry_run: bool, force: bool, prune: bool,
               check: bool, verify: bool) -> None:
    """Write each target host's own files from the workspace holding PATH.

    Instruction files, path rules, skills, commands, agents and MCP servers are written in
    each target's own form and recorded in .wskit/export.json. A file that exists and was
    not written by the export, or was edited since, is left alone and reported (--force
    takes it over). --check exits 1 when anything is stale (one line per file); --verify
    lists, per target, everything not carried or carried with a loss.
    """
    from wskit.builtin_plugins.export.engine import UntrustedProjectError, run_export

    targets = parse_targets(to)
    if check and (force or prune):
        raise click.UsageError("--check writes nothing: it does not take --force or --prune")
    obj.use_host(source)
    ws = obj.resolve(path)
    try:
        report = run_export(ws, targets, source=source, dry_run=dry_run, force=force, prune=prune, check=check,
                            verify=verify)
    except UntrustedProjectError as err:
        click.echo(f"wsctl export: {err}", err=True)
        sys.exit(2)
    except (ValueError, OSError) as err:
        click.echo(f"wsctl export: {err}", err=True)
        sys.exit(2)
    if obj.json:
        import json

        click.echo(json.dumps(report.to_json(), indent=1))
    else:
        _human(report)
    if check and not report.ok:
        sys.exit(1)
    if not check and not report.ok:
        sys.exit(1)
    if verify and report.verify and not all(v["verified"] or v["profile"] is None for v in report.verify.values()):
        sys.exit(1)


def _human(report) -> None:
    if report.mode == "check":
        stale = report.stale
        for f in report.files:
            if f.status in ("unchanged",):
                continue
            click.echo(safe_text(f"{f.status:<14} {f.path}  ({', '.join(f.targets)}): {f.reason}"))
        ok = len([f for f in report.files if f.status in ("unchanged", "kept")])
        click.echo(f"{'up to date' if not stale else 'out of date'}: {ok} current, {len(stale)} to export")
    else:
        prefix = "would " if report.mode == "dry-run" else ""
        for f in report.files:
            if f.status == "unchanged":
                continue
            click.echo(safe_text(f"{prefix}{_VERB.get(f.status, f.status):<20} {f.path}  "
                                 f"({', '.join(f.targets)}): {f.reason}"))
        n = {s: len([f for f in report.files if f.status == s]) for s in ("create", "update", "unchanged")}
        click.echo(f"{prefix}write {n['create'] + n['update']} file(s), {n['unchanged']} unchanged")
    if report.losses and report.mode != "check":
        click.echo("\nnot carried, or carried with a loss:")
        for loss in report.losses:
            mark = "~" if loss.carried else "x"
            click.echo(safe_text(f"  {mark} {loss.target:<9} {loss.kind:<11} {loss.item}: {loss.reason}"))
    if report.verify:
        click.echo("\nverify:")
        for target, v in report.verify.items():
            if v["profile"] is None:
                click.echo(safe_text(f"  {target}: NOT VERIFIED: {v['reason']}"))
                continue
            state = "verified" if v["verified"] else "FAILED"
            counts = ", ".join(f"{k} {n}" for k, n in v["checked"].items() if n)
            click.echo(safe_text(f"  {target} ({v['profile']} profile): {state}; checked {counts or 'nothing'}"))
            for d in v["differences"]:
                click.echo(safe_text(f"    {'reported' if d['explained'] else 'UNREPORTED'} {d['kind']} "
                                     f"{d['item']}: {d['detail']}"))
