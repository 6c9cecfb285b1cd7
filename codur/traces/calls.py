"""How a model call and a tool call look in the trace (render.py draws the rest).

A model call: profile (and model), call number, prompt+completion tokens, time, and the
reply (its tool calls, or its text cut to a line). A tool call: built-in or MCP (the
event's `origin`), name (an MCP call shows the server's tool), arguments and result cut
to a line. With `full`, the prompt's messages, the whole reply, the arguments and the
result are shown under the line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from codur.traces.item import Item, listed, number, text
from codur.ui import Outline

Short = Callable[..., str]
ORIGIN = {"mcp": ("[MCP] ", "magenta"), "builtin": ("[built-in] ", "cyan")}


def model_line(item: Item, models: dict[str, Any], full: bool, short: Short) -> Outline:
    d = item.data
    parts = [("model ", "bold"), (item.name or "?", "cyan")]
    if models.get(item.name):
        parts.append((f" ({text(models[item.name])})", "dim"))
    if d.get("call") is not None:
        parts.append((f" #{text(d['call'])}", "dim"))
    if d.get("replied"):
        tokens = f"  {text(d.get('prompt_tokens', '?'))}+{text(d.get('completion_tokens', '?'))}"
        cached = number(d.get("cached_tokens"))
        parts.append((f"{tokens} tokens" + (f" ({cached:g} cached)" if cached else ""), ""))
        if number(d.get("duration_s")) is not None:
            parts.append((f"  {d['duration_s']:g}s", "dim"))
        if d.get("finish_reason") == "length":
            parts.append(("  cut at the token limit", "yellow"))
        calls = listed(d.get("tool_calls"))
        names = ", ".join(text(c.get("name")) if isinstance(c, dict) else text(c) for c in calls)
        if names:
            parts += [(" -> tool calls: ", "dim"), (names, "")]
        elif not full:
            parts += [(" -> ", "dim"), (short(d.get("content"), 80), "")]
    else:
        parts.append(("  no reply", "red"))
    line = Outline(parts)
    for retry in listed(d.get("retries")):
        retry = retry if isinstance(retry, dict) else {"error": retry}
        why = f"retry {text(retry.get('attempt'))} after {short(retry.get('error'), 80)}"
        line.children.append(Outline([(why, "yellow")]))
    if full:
        line.children += _model_full(d)
    return line


def _model_full(d: dict[str, Any]) -> list[Outline]:
    settings = {k: d[k] for k in ("temperature", "seed", "max_tokens", "tools") if k in d}
    lines = [Outline([("settings: ", "dim"), (json.dumps(settings, default=str), "")])]
    messages = listed(d.get("messages"))
    for message in messages:
        message = message if isinstance(message, dict) else {"content": message}
        role = text(message.get("role")) or "message"
        lines.append(block(role, text(message.get("content"))))
        for call in listed(message.get("tool_calls")):
            lines.append(block(f"{role} tool call", call))
    if d.get("replied"):
        lines.append(block("reply", text(d.get("content")) or "(no text)"))
        for call in listed(d.get("tool_calls")):
            lines.append(block("tool call", call))
    return lines


def tool_line(item: Item, parent: str, full: bool, short: Short) -> Outline:
    """`parent`: the node it ran in (a call made for another part says which: by=)."""
    d = item.data
    origin = text(d.get("origin"))
    name, args = item.name or "?", parsed(d.get("args"))
    if name == "call_mcp_tool" and isinstance(args, dict) and args.get("tool_name"):
        name = f"{text(args.get('server'))}/{text(args['tool_name'])}"
        args = args.get("arguments") or {}
    parts = [ORIGIN.get(origin, ("[unknown tool] ", "red")), (name, "bold")]
    if not full and args not in (None, "", {}):
        parts.append((f" {short(args, 70)}", "dim"))
    if number(d.get("duration_s")) is not None:
        parts.append((f"  {d['duration_s']:g}s", "dim"))
    result = d.get("output", d.get("result"))
    if d.get("ok") is False:
        parts += [(" -> error: ", "red"), (short(d.get("error") or result, 90), "red")]
    elif "ok" in d or result is not None:
        parts += [(" -> ", "dim"), (short(result, 90) if not full else "ok", "")]
    else:
        parts.append(("  no result", "yellow"))
    if text(d.get("by")) not in ("", parent):
        parts.append((f"  (by {text(d['by'])})", "dim"))
    line = Outline(parts)
    if full:
        if args not in (None, "", {}):
            line.children.append(block("arguments", args))
        if result is not None:
            line.children.append(block("result", text(result)))
    return line


def parsed(args: Any) -> Any:
    """A tool call's arguments: logged as a JSON string (possibly cut), or a value."""
    if not isinstance(args, str):
        return args
    try:
        return json.loads(args)
    except ValueError:
        return args


def block(label: str, value: Any, style: str = "") -> Outline:
    """A labelled line holding `value` whole (several lines if it has them)."""
    body = value if isinstance(value, str) else json.dumps(value, indent=2, default=str)
    return Outline([(f"{label}: ", "dim"), (body.rstrip("\n"), style)])
