"""``wsctl plugins``: the Python plugins loaded, their hooks and failures."""

from __future__ import annotations

import click

from .context import WsctlContext, json_option, table


def plugin_rows(pm) -> list[dict]:
    """One dict per plugin: name, version, distribution, builtin, hooks, error, seconds."""
    rows = []
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda np: np[0]):
        if plugin is None:
            continue
        info = pm.info.get(name)
        hooks = sorted(c.name for c in (pm.get_hookcallers(plugin) or []))
        failures = pm.hook_failures.get(name)
        rows.append({
            "name": name,
            "version": info.version if info else None,
            "distribution": info.distribution if info else None,
            "builtin": bool(info and info.builtin),
            "hooks": hooks,
            "error": "; ".join(failures) if failures else None,
            "seconds": round(info.seconds, 6) if info else None,
        })
    for f in pm.load_failures:
        rows.append({
            "name": f.name, "version": f.version, "distribution": f.distribution,
            "builtin": False, "hooks": [], "error": f.error, "seconds": None,
        })
    return rows


@click.group("plugins", invoke_without_command=True)
@json_option
@click.option("--timings", is_flag=True, help="Show import and registration time of each plugin.")
@click.pass_context
def plugins_group(ctx: click.Context, timings: bool) -> None:
    """List Python plugins (built-ins and entry points of group 'wskit')."""
    if ctx.invoked_subcommand is not None:
        return
    obj: WsctlContext = ctx.obj
    pm = obj.plugin_manager()
    # resolving the current folder exercises resolution hooks so failing ones show up
    rows = plugin_rows(pm)
    data = {"plugins": [{k: v for k, v in r.items() if k != "seconds" or timings} for r in rows]}

    def human() -> None:
        headers = ["NAME", "VERSION", "DISTRIBUTION", "BUILTIN", "HOOKS", "STATUS"]
        if timings:
            headers.append("SECONDS")
        out = []
        for r in rows:
            line = [r["name"], r["version"] or "-", r["distribution"] or "-", "yes" if r["builtin"] else "no",
                    str(len(r["hooks"])), "failing: " + r["error"] if r["error"] else "ok"]
            if timings:
                line.append(f"{r['seconds']:.4f}" if r["seconds"] is not None else "-")
            out.append(line)
        click.echo(table(out, headers))

    obj.emit(data, human)
