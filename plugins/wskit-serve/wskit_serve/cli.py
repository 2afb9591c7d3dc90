"""``wsctl serve [PATH] --mcp``: the workspace over MCP, on stdio or streamable HTTP."""

from __future__ import annotations

import os

import click

from wskit.cli.context import WsctlContext

__all__ = ["serve_cmd"]


_GONE = (BrokenPipeError, ConnectionResetError, EOFError)


def _leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in _leaves(sub)]
    return [err]


def _run(fn) -> None:
    """Run the server; a client that went away (closed pipe) ends it quietly, anything
    else becomes one ``error:`` line (exit 1), never a traceback."""
    import anyio

    try:
        anyio.run(fn)
    except KeyboardInterrupt:
        pass
    except BaseException as err:  # noqa: BLE001 — the SDK raises exception groups
        leaves = _leaves(err)
        if all(isinstance(e, _GONE) for e in leaves):
            return
        if any(isinstance(e, KeyboardInterrupt) for e in leaves):
            return
        if isinstance(err, (click.ClickException, SystemExit)):
            raise
        first = next(e for e in leaves if not isinstance(e, _GONE))
        raise click.ClickException(f"wsctl serve stopped: {type(first).__name__}: {first}") from None


def _read_token(path: str) -> str:
    from wskit.cli.context import read_user_file

    token = read_user_file(path).strip()
    if not token or any(c.isspace() for c in token):
        raise click.UsageError(f"--token-file {path}: the file must hold one token (no spaces)")
    return token


@click.command("serve")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False))
@click.option("--mcp", "mcp", is_flag=True, required=True, help="Speak MCP (the only protocol served).")
@click.option("--http", "http", metavar="HOST:PORT", help="Streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--token-file", type=click.Path(dir_okay=False), help="HTTP: require 'Authorization: Bearer <token>'.")
@click.option("--max-result-bytes", type=click.IntRange(min=1), default=1 << 20, show_default=True,
              help="Largest tool result, prompt or resource (bytes).")
@click.option("--poll", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Seconds between checks for changed files (0: never).")
@click.option("--watch/--no-watch", default=True, show_default=True,
              help="Learn of changed files from the operating system's notifications (the wskit[watch] "
                   "extra); without them, and for paths they cannot cover, by stat every --poll seconds.")
@click.option("--max-connections", type=click.IntRange(min=1), default=256, show_default=True,
              help="HTTP: open connections at most (the oldest one still sending its request makes room).")
@click.option("--header-timeout", type=click.FloatRange(min=0.1, max=3600), default=10.0, show_default=True,
              help="HTTP: seconds a connection may take to send a whole request head.")
@click.option("--max-sessions", type=click.IntRange(min=1), default=64, show_default=True,
              help="HTTP: MCP sessions at most (a new one ends the session idle the longest).")
@click.option("--session-idle-timeout", type=click.FloatRange(min=1, max=86400), default=600.0,
              show_default=True, help="HTTP: seconds a session may stay idle before it is ended.")
@click.pass_obj
def serve_cmd(obj: WsctlContext, path: str, mcp: bool, http: str | None, token_file: str | None,
              max_result_bytes: int, poll: float, watch: bool, max_connections: int, header_timeout: float,
              max_sessions: int, session_idle_timeout: float) -> None:
    """Serve the skills, rules and commands of the workspace holding PATH to any agent over MCP.

    Trust applies as for 'wsctl inspect': an untrusted project serves none of its own
    content, and the server's instructions say why. Nothing is run; no file outside
    the workspace is read. Stops when the client closes stdin (stdio) or on Ctrl-C.
    """
    from wskit_serve.catalog import ServeLimits
    from wskit_serve.guard import HttpLimits, ServeLog, bind, is_loopback
    from wskit_serve.server import WorkspaceServer

    if token_file and not http:
        raise click.UsageError("--token-file needs --http")
    target = os.path.abspath(path)
    log = ServeLog()
    log.take_over()  # uvicorn's, asyncio's and the SDK's records: one rate-limited line each, never blocking
    obj.watch = watch and poll > 0  # notifications only serve the change checks
    server = WorkspaceServer(obj.resolve, target, ServeLimits(max_result_bytes=max_result_bytes), poll=poll, log=log)
    status = obj.cache().watch_status
    if obj.watch and status != "watching" and "not installed" not in status:
        log.say("watch", f"file notifications unavailable ({status}); changes are found by stat")
    if not http:
        _run(server.serve_stdio)
        return
    host, sep, port_s = http.rpartition(":")
    if not sep or not host or not port_s.isdigit() or int(port_s) > 65535:
        raise click.UsageError(f"--http {http!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    token = _read_token(token_file) if token_file else None
    try:
        sockets = bind(host, int(port_s))
    except OSError as err:
        raise click.UsageError(f"--http {http}: cannot listen there ({err.strerror or err})") from None
    bound = [s.getsockname()[0] for s in sockets]
    if token is None and not all(is_loopback(a) for a in bound):
        for s in sockets:
            s.close()
        raise click.UsageError(f"--http {http}: a non-loopback address needs --token-file "
                               f"(it is bound to {', '.join(bound)})")
    limits = HttpLimits(max_connections=max_connections, header_timeout=header_timeout,
                        max_sessions=max_sessions, session_idle_timeout=session_idle_timeout)

    def ready(port: int) -> None:
        log.write(f"serving {server.workspace.binding.source_root} at http://{host}:{port}/mcp")

    _run(lambda: server.serve_http(host.strip("[]"), int(port_s), token, ready, sockets=sockets, limits=limits,
                                   log=log))
