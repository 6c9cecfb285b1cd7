"""The embedded model's action protocol: the JSON schema a reply is constrained to, how a
reply is parsed back into a tool call or a final answer, and how a LangChain conversation
is rendered as llama.cpp chat messages. Pure functions: tested without a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from codur.promptbook import PromptBook

_MAX_REQUEST = 400  # characters of the user's request repeated after a tool result


class LlamaRuntimeError(RuntimeError):
    """llama.cpp failed while generating (decode error, prompt longer than the context)."""


@dataclass
class Action:
    """One parsed constrained-decoding reply: a tool call or a final answer."""

    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    final_answer: str | None = None


def _strict_object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def action_schema(tools: Sequence[dict[str, Any]], *, allow_final: bool = True) -> dict:
    """JSON schema for one action: anyOf each tool's call (OpenAI tool dicts), plus a
    final answer unless `allow_final` is false."""
    empty = {"type": "object", "properties": {}}
    options = [
        _strict_object({"tool": {"const": fn["name"]}, "arguments": fn.get("parameters") or empty})
        for fn in (t["function"] for t in tools)
    ]
    if allow_final or not options:
        options.append(_strict_object({"final_answer": {"type": "string"}}))
    return {"anyOf": options}


def parse_action(text: str, tool_names: Sequence[str] = ()) -> Action:
    """The action in `text`; ValueError if it is not valid JSON of either form."""
    data = json.loads(text)  # json.JSONDecodeError is a ValueError
    if not isinstance(data, dict):
        raise ValueError("the action is not a JSON object")
    if isinstance(data.get("final_answer"), str):
        return Action(final_answer=data["final_answer"])
    name, args = data.get("tool"), data.get("arguments", {})
    if not isinstance(name, str) or not isinstance(args, dict):
        raise ValueError("expected {'tool': NAME, 'arguments': {...}} or {'final_answer': TEXT}")
    if tool_names and name not in tool_names:
        raise ValueError(f"unknown tool '{name}'")
    return Action(tool=name, arguments=args)


def salvage_final_answer(text: str) -> str | None:
    """The text of a final answer cut short (e.g. by max_tokens), or None."""
    start = re.match(r'\s*\{\s*"final_answer"\s*:\s*"', text)
    if not start:
        return None
    body = text[start.end() :]
    for cut in range(min(7, len(body) + 1)):  # drop a partial escape or a closing quote
        try:
            return json.loads(f'"{body[: len(body) - cut]}"')
        except ValueError:
            continue
    return None


def _type_name(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return "|".join(json.dumps(v) for v in spec["enum"])
    if "anyOf" in spec:
        return "|".join(_type_name(s) for s in spec["anyOf"])
    kind = spec.get("type", "any")
    return "|".join(kind) if isinstance(kind, list) else str(kind)


def describe_tools(tools: Sequence[dict[str, Any]]) -> str:
    """The tool list for the system prompt: `- name(arg: type, opt?: type): description`."""
    lines = []
    for tool in tools:
        fn = tool["function"]
        params = fn.get("parameters") or {}
        required = set(params.get("required", []))
        args = ", ".join(
            f"{arg}{'' if arg in required else '?'}: {_type_name(spec)}"
            for arg, spec in (params.get("properties") or {}).items()
        )
        desc = " ".join(str(fn.get("description", "")).split())
        lines.append(f"- {fn['name']}({args}): {desc}".rstrip(": "))
    return "\n".join(lines)


def tool_prompts(
    tools: Sequence[dict[str, Any]], messages: Sequence[BaseMessage], book: PromptBook
) -> tuple[str, str]:
    """(system text describing the tools, the reminder of the request added after a tool
    result: "" when `messages` hold no request), from `book`."""
    system = book.render("local_tool_actions", tools=describe_tools(tools)).strip()
    request = _request(messages)
    reminder = book.render("local_tool_reminder", request=request).strip() if request else ""
    return system, reminder


def _request(messages: Sequence[BaseMessage]) -> str:
    """The latest user request, shortened for the reminder."""
    for msg in reversed(messages):
        if isinstance(msg, HumanMessage):
            text = " ".join(_text(msg.content).split())
            return text if len(text) <= _MAX_REQUEST else text[:_MAX_REQUEST] + " ..."
    return ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [c if isinstance(c, str) else c.get("text", "") for c in content or []]
    return "".join(p for p in parts if isinstance(p, str))


def to_llama_messages(
    messages: Sequence[BaseMessage], system_extra: str = "", reminder: str = ""
) -> list[dict]:
    """LangChain messages as llama.cpp chat messages (consecutive same roles merged).

    `system_extra` is appended to the system message; `reminder` is appended when the
    conversation ends with a tool result, which keeps a small model
    from calling tools again once the request is done."""
    names: dict[str, str] = {}
    out: list[dict[str, str]] = []

    def add(role: str, content: str) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"] = f"{out[-1]['content']}\n\n{content}".strip()
        else:
            out.append({"role": role, "content": content})

    for msg in messages:
        if isinstance(msg, SystemMessage):
            add("system", _text(msg.content))
        elif isinstance(msg, AIMessage):
            calls = [{"tool": c["name"], "arguments": c["args"]} for c in msg.tool_calls]
            names.update({c["id"]: c["name"] for c in msg.tool_calls if c.get("id")})
            text = "\n".join(json.dumps(c) for c in calls) if calls else _text(msg.content)
            add("assistant", text)
        elif isinstance(msg, ToolMessage):
            name = msg.name or names.get(msg.tool_call_id, "tool")
            add("user", f"Result of tool {name}: {_text(msg.content)}")
        else:  # HumanMessage and anything else the user side says
            add("user", _text(msg.content))
    if reminder and messages and isinstance(messages[-1], ToolMessage):
        out[-1]["content"] += "\n\n" + reminder
    if system_extra:
        if out and out[0]["role"] == "system":
            out[0]["content"] = f"{out[0]['content']}\n\n{system_extra}".strip()
        else:
            out.insert(0, {"role": "system", "content": system_extra})
    return out
