"""Streamed answers of the fake model servers (tests/fake_servers.py), as real servers
send them: OpenAI's server-sent events (llama.cpp's server, vLLM, OpenAI itself),
Anthropic's Messages API events and Ollama's NDJSON lines, one piece of the reply a
chunk of a chunked HTTP body, paced like a model generating, or cut mid-way like a
server that died."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


@dataclass
class Streamed:
    """A chunked 200 answer: `pieces` sent one by one, `pace_s` apart; `cut_after`: the
    connection closes after that many pieces, without the body's end."""

    pieces: list[bytes]
    pace_s: float = 0.0
    cut_after: int | None = None

    def body(self) -> bytes:
        """The whole answer's bytes (for a test that sends them its own way)."""
        return b"".join(self.pieces)


def words(text: str) -> list[str]:
    """`text` in the pieces a server streams it in: a word with the spaces after it."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])


def openai_events(
    body: dict[str, Any], text: str, calls: list[dict[str, Any]], finish: str, usage: dict
) -> list[bytes]:
    """A chat-completions stream: the role, the text word by word, each tool call (its
    id and name, then its arguments in two deltas), the finish reason, the usage when
    `stream_options.include_usage` asks for it, and `[DONE]`."""
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0}
    base["model"] = body.get("model", "")

    def event(delta: dict[str, Any] | None, finish_reason: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta or {}, "finish_reason": finish_reason}
        return {**base, "choices": [choice]}

    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": piece}) for piece in words(text)]
    for n, call in enumerate(calls):
        head = {"index": n, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["function"]["name"], "arguments": ""}
        events.append(event({"tool_calls": [head]}))
        args = call["function"]["arguments"]
        for part in (args[: len(args) // 2], args[len(args) // 2 :]):
            events.append(event({"tool_calls": [{"index": n, "function": {"arguments": part}}]}))
    events.append(event(None, finish))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append({**base, "choices": [], "usage": usage})
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events] + [b"data: [DONE]\n\n"]


def ollama_lines(
    model: str, text: str, calls: list[dict[str, Any]], final: dict[str, Any]
) -> list[bytes]:
    """An /api/chat stream: the text word by word, the tool calls, then the `done` line."""
    messages = [{"role": "assistant", "content": piece} for piece in words(text)]
    if calls:
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
    lines = [
        {"model": model, "created_at": final["created_at"], "message": m, "done": False}
        for m in messages
    ]
    lines.append({**final, "message": {"role": "assistant", "content": ""}})
    return [(json.dumps(line) + "\n").encode() for line in lines]


def anthropic_events(message: dict[str, Any], blocks: list[dict[str, Any]]) -> list[bytes]:
    """A Messages API stream: message_start, each content block (text word by word, a
    tool_use's input JSON in two deltas), message_delta (the stop reason and, as the API
    sends it now, the whole usage) and message_stop."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for n, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(
                {"type": "content_block_start", "index": n, "content_block": {**block, "text": ""}}
            )
            deltas = [{"type": "text_delta", "text": piece} for piece in words(block["text"])]
        else:
            events.append(
                {"type": "content_block_start", "index": n, "content_block": {**block, "input": {}}}
            )
            args = json.dumps(block["input"])
            parts = (args[: len(args) // 2], args[len(args) // 2 :])
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in parts]
        events += [{"type": "content_block_delta", "index": n, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": n})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append({"type": "message_delta", "delta": stop, "usage": usage})
    events.append({"type": "message_stop"})
    return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
