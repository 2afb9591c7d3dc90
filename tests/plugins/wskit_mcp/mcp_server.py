"""A real MCP server written with the official SDK, used by the tests.

``python mcp_server.py`` serves stdio; ``python mcp_server.py http PORT``
serves streamable HTTP on 127.0.0.1:PORT (``sse PORT``: the legacy SSE transport). When ``PID_FILE`` is set the
process writes its pid there at start (the tests check it is gone after close).
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

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


@server.tool()
async def slow(seconds: float = 60) -> str:
    """Sleep; when the client cancels, write "cancelled" to $CANCEL_FILE."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        if os.environ.get("CANCEL_FILE"):
            with open(os.environ["CANCEL_FILE"], "w") as fh:
                fh.write("cancelled")
        raise
    return "slept"


class Answer(BaseModel):
    name: str


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the user for a name (elicitation); returns "<action>:<name>"."""
    result = await ctx.elicit("What is your name?", Answer)
    data = getattr(result, "data", None)
    return f"{result.action}:{getattr(data, 'name', '')}"


@server.tool()
async def sample(ctx: Context) -> str:
    """Ask the host's model (sampling) and return its text."""
    msg = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="say hi"))
    result = await ctx.session.create_message([msg], max_tokens=20, system_prompt="be brief")
    return f"{result.model}:{result.content.text}"


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool `extra` and tell the client the tool list changed."""
    def extra() -> str:
        """Added at run time."""
        return "extra!"

    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
def big(mib: int = 5) -> str:
    """A text result of `mib` MiB."""
    return "x" * (mib << 20)


@server.tool()
def picture() -> list:
    """An image of 2 MiB (base64) and a short text."""
    from mcp.server.mcpserver.utilities.types import Image

    return ["a picture:", Image(data=b"\x89PNG" + b"\0" * (3 << 19), format="png")]


@server.tool()
def die() -> str:
    """Exit at once, as a crashing server does."""
    os._exit(3)


@server.tool(description="d" * 10_000)
def wordy() -> str:
    return "wordy"


@server.resource("note://readme", name="readme", description="A note")
def readme() -> str:
    return "read me first"


@server.prompt()
def review(path: str) -> str:
    """Review a file."""
    return f"Please review {path}."


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    elif len(sys.argv) > 2 and sys.argv[1] == "sse":
        import uvicorn

        uvicorn.run(server.sse_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run()
