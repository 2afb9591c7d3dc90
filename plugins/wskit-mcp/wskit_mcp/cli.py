"""``wsctl mcp check|call|login|logout``: connect to one MCP server of a workspace, for
people debugging a server. Every failure is one ``error:`` line (exit 1), never a traceback:
the SDK's own log records never reach the terminal (:mod:`wskit_mcp.sdklog`)."""

from __future__ import annotations

import json
import sys

import click

from wskit.cli.context import WsctlContext, json_option, progress, safe_text
from wskit.cli.lazy import ensure_group
from wskit.cli.signals import stop_on_signals
from wskit.errors import WskitError

__all__ = ["CALL_TIMEOUT", "mcp_call_cmd", "mcp_check_cmd", "mcp_login_cmd", "mcp_logout_cmd", "register"]

#: Seconds ``wsctl mcp call`` waits for a result when neither ``--timeout`` nor the
#: server's ``timeout`` says otherwise.
CALL_TIMEOUT = 300.0


def _session(obj: WsctlContext, path: str, options=None):
    from wskit.session import snapshot
    from wskit.session.runtime import RuntimeOptions, attach

    from .service import McpService

    session = snapshot(obj.resolve(path))
    if options is not None:
        attach(session, RuntimeOptions(services={"mcp": McpService.factory(options)}))
    return session


@click.command("check")
@click.argument("name")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@json_option
@click.pass_obj
def mcp_check_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Connect to the MCP server NAME of the workspace holding PATH, list its tools, disconnect."""
    with stop_on_signals():  # SIGTERM/SIGHUP: the server's process group is stopped first
        _check(obj, name, path)


def _check(obj: WsctlContext, name: str, path: str) -> None:
    session = _session(obj, path)
    try:
        server = session.mcp.definition(name)
        # a server can take seconds to start: on a terminal, say what is awaited
        with progress(f"waiting for the MCP server {server.id} ({server.transport})"):
            conn = session.mcp.connect(name)
            tools = session.mcp.list_tools(name)
        info = dict(conn.server_info)
        problems = session.mcp.problems(name)
    finally:
        errors = session.close()
    data = {"server": server.id, "transport": server.transport, "server_info": info, "ok": True,
            "tools": [{"name": t["name"], "description": t["description"]} for t in tools], "close_errors": errors,
            "problems": problems}

    def human() -> None:
        who = " ".join(str(v) for v in (info.get("name"), info.get("version")) if v)
        click.echo(safe_text(f"{server.id}: ok ({server.transport}{', ' + who if who else ''}), {len(tools)} tool(s)"))
        for t in tools:
            click.echo(safe_text(f"  {t['name']}  {t['description'].splitlines()[0] if t['description'] else ''}".rstrip()))
        for p in problems:
            click.echo(safe_text(f"  note: {p}"))

    obj.emit(data, human)


def _parse_args(pairs: tuple[str, ...]) -> dict:
    out: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--arg takes key=value (got {pair!r})")
        try:
            out[key] = json.loads(value)  # 3, true, {"a": 1}, "quoted"
        except ValueError:
            out[key] = value  # plain text
    return out


def _elicit_answer(response: str | None):
    """``on_elicit`` for ``mcp call``: ``--elicit-response``, else a prompt on a terminal, else decline."""
    from .options import McpElicitResponse

    def answer(req):
        if response is not None:
            return McpElicitResponse("accept", json.loads(response))
        if sys.stdin.isatty() and sys.stderr.isatty():
            click.echo(safe_text(f"{req.server_name} asks: {req.message}"), err=True)
            fields = dict((req.requested_schema or {}).get("properties") or {})
            content = {}
            for key in fields:
                content[key] = click.prompt(f"  {key}", err=True)
            return McpElicitResponse("accept", content)
        return McpElicitResponse("decline")

    return answer


@click.command("call")
@click.argument("name")
@click.argument("tool")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--arg", "args", multiple=True, metavar="KEY=VALUE",
              help="A tool argument (repeatable); VALUE is read as JSON when it parses, else as text.")
@click.option("--elicit-response", metavar="JSON", help="Answer an elicitation with this JSON object.")
@click.option("--timeout", type=click.FloatRange(min=0), default=None,
              help=f"Seconds to wait, then the call is cancelled (default: the server's timeout, else "
                   f"{CALL_TIMEOUT:g}; 0: no limit).")
@json_option
@click.pass_obj
def mcp_call_cmd(obj: WsctlContext, name: str, tool: str, path: str, args: tuple[str, ...],
                 elicit_response: str | None, timeout: float | None) -> None:
    """Call TOOL of the MCP server NAME with --arg key=value pairs and print the result.

    An elicitation is answered from --elicit-response, else asked on the terminal, else declined.
    """
    from .options import McpOptions

    arguments = _parse_args(args)
    if elicit_response is not None:
        try:
            if not isinstance(json.loads(elicit_response), dict):
                raise ValueError("not an object")
        except ValueError as err:
            raise click.UsageError(f"--elicit-response must be a JSON object ({err})") from None
    with stop_on_signals():  # SIGTERM/SIGHUP: the server's process group is stopped first
        session = _session(obj, path, McpOptions(on_elicit=_elicit_answer(elicit_response)))
        try:
            server = session.mcp.definition(name)
            if timeout is None:
                timeout = server.timeout / 1000 if server.timeout else CALL_TIMEOUT
            result = session.mcp.call_tool(name, tool, arguments, timeout=timeout or None)
        finally:
            session.close()
    data = {"server": server.id, "tool": tool, **result}

    def human() -> None:
        for item in result["content"]:
            if item.get("type") == "text":
                click.echo(safe_text(item["text"]))
            else:
                click.echo(safe_text(f"[{item.get('type')}]"))
        if result["structured"] is not None and not result["content"]:
            click.echo(safe_text(json.dumps(result["structured"], indent=2)))

    obj.emit(data, human)
    if result["is_error"]:
        raise click.exceptions.Exit(1)


@click.command("login")
@click.argument("name")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.pass_obj
def mcp_login_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """OAuth login to the HTTP MCP server NAME: opens the browser, stores its tokens."""
    with stop_on_signals():
        session = _session(obj, path)
        try:
            server = session.mcp.definition(name)
            session.mcp.login(name)
        finally:
            session.close()
    click.echo(safe_text(f"{server.id}: logged in; tokens stored"))


@click.command("logout")
@click.argument("name")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.pass_obj
def mcp_logout_cmd(obj: WsctlContext, name: str, path: str) -> None:
    """Forget the stored OAuth tokens of the MCP server NAME."""
    session = _session(obj, path)
    try:
        server = session.mcp.definition(name)
        had = session.mcp.logout(name)
    except WskitError:
        raise
    finally:
        session.close()
    click.echo(safe_text(f"{server.id}: {'tokens removed' if had else 'no tokens were stored'}"))


def register(cli: click.Group) -> None:
    """Add ``check``, ``call``, ``login`` and ``logout`` to the ``mcp`` group."""
    group = ensure_group(cli, "mcp", "MCP servers of a workspace.")
    for cmd in (mcp_check_cmd, mcp_call_cmd, mcp_login_cmd, mcp_logout_cmd):
        group.add_command(cmd)
