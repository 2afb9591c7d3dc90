"""``wsctl plugins``: the Python plugins loaded, their hooks and failures. The ``bundles``
built-in adds the content plugins and the ``show|validate|install|…`` sub-commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from wskit.cli.context import WsctlContext, json_option, print_diag_dicts, safe_text, table


def plugin_rows(pm) -> list[dict]:
    """One dict per plugin: name, version, distribution, builtin, hooks, error, seconds,
    import_seconds, register_seconds."""
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
            "import_seconds": round(info.import_seconds, 6) if info else None,
            "register_seconds": round(info.register_seconds, 6) if info else None,
        })
    for f in pm.load_failures:
        rows.append({
            "name": f.name, "version": f.version, "distribution": f.distribution,
            "builtin": False, "hooks": [], "error": f.error, "seconds": None,
            "import_seconds": None, "register_seconds": None,
        })
    return rows


@click.group("plugins", invoke_without_command=True)
@json_option
@click.option("--timings", is_flag=True, help="Show import and registration time of each plugin.")
@click.option("--path", "check_path", default=".", type=click.Path(exists=True), show_default=True,
              help="Workspace resolved (read-only) so that plugins failing in a hook show up.")
@click.pass_context
def plugins_group(ctx: click.Context, timings: bool, check_path: str) -> None:
    """List Python plugins (built-ins and entry points of group 'wskit') and the
    content plugins (bundles) of the workspace at --path.

    The workspace at --path is resolved once, read-only, so a plugin whose
    hook raises is shown as failing with its error.
    """
    if ctx.invoked_subcommand is not None:
        return
    # the registered `list` (the bundles built-in replaces this module's with one that
    # also lists content plugins)
    group = ctx.command
    assert isinstance(group, click.Group)
    listing = group.get_command(ctx, "list")
    if listing is None:  # pragma: no cover - this module always defines one
        raise click.UsageError("wsctl plugins: no list command")
    ctx.invoke(listing, path=check_path, timings=timings)


def list_command(bundles: Callable[[WsctlContext, Any], tuple[list[dict], list[dict], list[dict], str]] | None = None
                 ) -> click.Command:
    """A ``wsctl plugins list`` command over :func:`list_plugins` with ``bundles``: this
    module's own (no content plugins) and the bundles built-in's (with them) are both
    made here, so they take the same arguments and options."""

    @click.command("list")
    @click.argument("path", required=False, default=".", type=click.Path(exists=True))
    @json_option
    @click.option("--timings", is_flag=True, help="Show import and registration time of each plugin.")
    @click.pass_obj
    def list_cmd(obj: WsctlContext, path: str, timings: bool) -> None:
        """List Python plugins and the content plugins of the workspace holding PATH."""
        list_plugins(obj, timings, path, bundles=bundles)

    return list_cmd


plugins_group.add_command(list_command())


def list_plugins(obj: WsctlContext, timings: bool, path: str,
                 bundles: Callable[[WsctlContext, Any], tuple[list[dict], list[dict], list[dict], str]] | None = None,
                 ) -> None:
    """Print the Python plugins (and, through ``bundles``, the content plugins) of the
    workspace holding ``path``.

    :param bundles: ``(obj, ws) -> (rows, diagnostics, shown, text)``: the content-plugin
        rows for JSON, the diagnostics about them (JSON form), those of them human
        output shows, and the human table. None (the ``bundles`` built-in blocked):
        no content plugins are listed.
    """
    pm = obj.plugin_manager()
    rows_b: list[dict] = []
    diags: list[dict] = []
    shown: list[dict] = []
    text = "no content plugins"
    if bundles is None:
        # the bundles built-in lists them (it replaces this command); say why none are shown
        why = "the built-in 'bundles' is blocked" if pm.is_blocked("bundles") else "no plugin lists them"
        text = f"content plugins are not listed: {why}"
    try:
        ws = obj.resolve(path)  # plugins failing in a hook show up
        if bundles is not None:
            rows_b, diags, shown, text = bundles(obj, ws)
        else:
            diags = [d.to_json(ws.source_root) for d in obj.listing_diagnostics(ws, ())]
            shown = diags
    except Exception as err:  # listing plugins must work even when resolution cannot
        click.echo(safe_text(f"wsctl: could not resolve {path} to exercise plugin hooks: {err}"), err=True)
    rows = plugin_rows(pm)
    timing_keys = ("seconds", "import_seconds", "register_seconds")
    data = {"plugins": [{k: v for k, v in r.items() if k not in timing_keys or timings} for r in rows],
            "bundles": rows_b, "diagnostics": diags}

    def human() -> None:
        headers = ["NAME", "VERSION", "DISTRIBUTION", "BUILTIN", "HOOKS", "STATUS"]
        if timings:
            headers += ["IMPORT_S", "REGISTER_S", "TOTAL_S"]
        out = []
        for r in rows:
            line = [r["name"], r["version"] or "-", r["distribution"] or "-", "yes" if r["builtin"] else "no",
                    str(len(r["hooks"])), "failing: " + r["error"] if r["error"] else "ok"]
            if timings:
                line += [f"{r[k]:.4f}" if r[k] is not None else "-"
                         for k in ("import_seconds", "register_seconds", "seconds")]
            out.append(line)
        # content plugins first: they are what a user installs and switches on and off
        click.echo("content plugins:")
        click.echo(text)
        click.echo("\nPython plugins:")
        click.echo(table(out, headers))
        print_diag_dicts(shown)

    obj.emit(data, human)


