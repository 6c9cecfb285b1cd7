"""MCP tools: list and call the tools of configured MCP servers, read their resources.

The servers start on first use and stay connected for the run (`McpClients`,
codur/tools/mcp_clients.py, held by the tool context).
"""

from __future__ import annotations

from typing import Any

from codur.tools.context import Ctx, ToolError
from codur.tools.registry import TaskType, register_tool


def _content_text(blocks: list[Any]) -> str:
    parts = []
    for block in blocks:
        if getattr(block, "text", None) is not None:
            parts.append(block.text)
        elif getattr(block, "resource", None) is not None:
            parts.append(_content_text([block.resource]))
        elif getattr(block, "blob", None) is not None:
            parts.append(f"[binary {getattr(block, 'mime_type', None) or 'data'}]")
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} {getattr(block, 'uri', '')}]")
    return "\n".join(parts)


@register_tool(TaskType.MCP)
def list_mcp_tools(ctx: Ctx, server: str | None = None) -> list[str]:
    """List the tools of the configured MCP servers as `server: tool(args): description`.

    Args:
        server: Only this server; default: every configured server.
    """
    lines = []
    names = ctx.mcp.names(server)
    for name in names:
        ctx.approve_run(f"ask the MCP server {name} for its tools")  # it is a program
        try:
            with ctx.running():
                result = ctx.mcp.call(name, lambda c: c.list_tools())
        except ToolError as exc:
            if len(names) == 1:
                raise
            lines.append(f"{name}: unavailable ({exc})")  # the others' tools still listed
            continue
        for t in result.tools:
            props = (t.input_schema or {}).get("properties", {})
            args = ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in props.items())
            lines.append(f"{name}: {t.name}({args}): {(t.description or '').strip()}")
    return lines


@register_tool(TaskType.MCP)
def call_mcp_tool(
    ctx: Ctx, server: str, tool_name: str, arguments: dict[str, Any] | None = None
) -> str:
    """Call a tool of an MCP server and return its result.

    Args:
        server: The configured server's name.
        tool_name: The server's tool to call (see list_mcp_tools).
        arguments: The tool's arguments.
    """
    ctx.mcp.names(server)
    ctx.approve_run(f"call the MCP tool {server}/{tool_name}")
    with ctx.running():  # the server may change files while it answers
        result = ctx.mcp.call(server, lambda c: c.call_tool(tool_name, arguments or {}))
    text = _content_text(result.content)
    if not text and result.structured_content is not None:
        text = str(result.structured_content)
    if result.is_error:
        raise ToolError(f"{server}/{tool_name}: {text or 'the tool reported an error'}")
    return text


@register_tool(TaskType.MCP)
def read_mcp_resource(ctx: Ctx, server: str, uri: str) -> str:
    """Read a resource (by URI) from an MCP server.

    Args:
        server: The configured server's name.
        uri: The resource URI, e.g. `file:///README.md` or `note://greeting`.
    """
    ctx.mcp.names(server)
    ctx.approve_run(f"read {uri} from the MCP server {server}")
    with ctx.running():  # the server may change files while it answers
        result = ctx.mcp.call(server, lambda c: c.read_resource(uri))
    return _content_text(result.contents)
