"""A real MCP server for the MCP tool tests (the SDK's MCPServer, formerly FastMCP).

`python tests/mcp_server.py` serves over stdio; `python tests/mcp_server.py --http PORT`
serves streamable HTTP on 127.0.0.1:PORT/mcp.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("codur-test")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def fail(reason: str) -> str:
    """Always fails with `reason`."""
    raise ToolError(reason)


@server.tool()
def slow(seconds: float) -> str:
    """Answer after `seconds`."""
    time.sleep(seconds)
    return "done"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    print("crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.resource("note://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello from the test server"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        print("test MCP server starting", file=sys.stderr, flush=True)
        server.run("stdio")
