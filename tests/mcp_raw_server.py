"""An MCP server written against the wire (JSON-RPC lines on stdin/stdout), for what the
SDK's server never does: a line on stdout that is no JSON-RPC message. `tools/call` of
`say` writes its `text` on stdout first, then answers."""

from __future__ import annotations

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> dict | None:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        return {"tools": [{"name": "say", "inputSchema": schema}]}
    if method == "tools/call" and params.get("name") == "say":
        sys.stdout.write(params.get("arguments", {}).get("text", "") + "\n")  # no JSON-RPC
        return {"content": [{"type": "text", "text": "said"}], "isError": False}
    return {} if method == "ping" else None


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification
    result = answer(request)
    if result is None:
        send({"id": request["id"], "error": {"code": -32601, "message": "no such method"}})
    else:
        send({"id": request["id"], "result": result})
