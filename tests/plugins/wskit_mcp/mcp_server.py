"""A real MCP server written with the official SDK, used by the tests.

``python mcp_server.py`` serves stdio; ``python mcp_server.py http PORT``
serves streamable HTTP on 127.0.0.1:PORT (``sse PORT``: the legacy SSE transport). When ``PID_FILE`` is set the
process writes its pid there at start (the tests check it is gone after close).
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer

if os.environ.get("PID_FILE"):
    with open(os.environ["PID_FILE"], "w") as fh:
        fh.write(str(os.getpid()))

server = MCPServer("wskit-test-server")


@server.tool()
def echo(text: str) -> str:
    """Return the text, reversed, so the result cannot be the argument by accident."""
    return text[::-1]


@server.tool()
def where() -> str:
    """The server's working folder."""
    return os.getcwd()


@server.tool()
async def roots(ctx: Context) -> str:
    """The roots the client reports."""
    result = await ctx.session.list_roots()
    return "\n".join(str(r.uri) for r in result.roots)


@server.tool()
def env(name: str) -> str:
    """One environment variable of the server process."""
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    elif len(sys.argv) > 2 and sys.argv[1] == "sse":
        import uvicorn

        uvicorn.run(server.sse_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run()
