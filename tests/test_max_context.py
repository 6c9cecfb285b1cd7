"""`llm.max_context_tokens` (the API's `max_context_tokens`) bounds what goes over the wire:
a real OpenAI-compatible server on 127.0.0.1 sees every request's prompt and reply budget
within it, the oldest turns left out whole and a long text cut in its middle."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from fake_servers import OpenAIServer, Reply
from faults import codur, openai_profile, records, workdir
from helpers import FIXED, whole_file
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.base import CHARS_PER_TOKEN
from codur.models.client import ModelClient

BOUND = 1500
CLI_BOUND = 5000
"""Room for the coder's tool schemas (about 3,500 tokens) and some of the task."""


def wire_tokens(body: dict[str, Any]) -> int:
    """The estimate of a sent request's prompt: its messages' text and tool calls."""
    chars = 0
    for message in body["messages"]:
        chars += len(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            arguments = json.loads(call["function"]["arguments"])
            chars += len(json.dumps({"name": call["function"]["name"], "args": arguments}))
    return math.ceil(chars / CHARS_PER_TOKEN)


def test_old_tool_turns_are_left_out_whole_to_fit(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply("done"))
    profile = LLMProfile(provider="openai", model="m", base_url=openai_server.base_url)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    client = ModelClient("srv", profile, bus, max_context_tokens=BOUND)
    messages: list[Any] = [SystemMessage("You fix code."), HumanMessage("fix the parser")]
    for n in range(5):
        call = {"name": "read_file", "args": {"path": f"f{n}.py"}, "id": f"c{n}"}
        messages += [
            AIMessage("", tool_calls=[call]),
            ToolMessage(f"{n}" * 3000, tool_call_id=f"c{n}"),
        ]

    assert client.invoke(messages).content == "done"

    body = openai_server.requests[0].body
    sent = body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[3]["content"] == "4" * 3000  # the latest turn, whole
    assert wire_tokens(body) + body["max_tokens"] <= BOUND
    (trimmed,) = [e.data for e in events if e.kind == "model.trimmed"]
    assert trimmed["dropped_messages"] == 8 and trimmed["cut_messages"] == 0
    assert trimmed["tokens_before"] > BOUND >= trimmed["tokens_after"] + body["max_tokens"]
    assert body["max_tokens"] == trimmed["max_tokens"] < profile.max_tokens


@pytest.mark.slow
def test_the_cli_trims_a_prompt_to_max_context_tokens(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    openai_server.default = Reply(whole_file("main.py", FIXED))
    work = workdir(tmp_path)
    pasted = "\n".join(f"log line {n}: nothing to see" for n in range(1200))  # ~12,000 tokens
    task = f"START-OF-TASK fix @main.py; the log:\n{pasted}\nEND-OF-TASK"
    bound = ["-o", f"llm.max_context_tokens={CLI_BOUND}"]

    result = codur([*openai_profile(openai_server.base_url), *bound, task], work, timeout=600)

    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "main.py").read_text() == FIXED
    body = openai_server.requests[0].body
    user = body["messages"][-1]["content"]
    assert "START-OF-TASK" in user and "END-OF-TASK" in user  # its head and tail kept
    assert "characters left out to fit llm.max_context_tokens" in user
    assert len(user) < len(task)
    trimmed = next(r for r in records(work) if r["event"] == "model.trimmed")
    assert trimmed["max_context_tokens"] == CLI_BOUND
    assert trimmed["tokens_after"] + body["max_tokens"] <= CLI_BOUND < trimmed["tokens_before"]
    assert body["max_tokens"] == trimmed["max_tokens"]
    assert wire_tokens(body) <= trimmed["tokens_after"]  # what was sent is what was counted


def test_a_bound_too_small_for_any_prompt_is_a_config_error(openai_server: OpenAIServer) -> None:
    from codur.errors import ConfigError

    profile = LLMProfile(provider="openai", model="m", base_url=openai_server.base_url)
    client = ModelClient("srv", profile, EventBus(), max_context_tokens=60)
    with pytest.raises(ConfigError, match=r"llm.max_context_tokens \(60\): too small"):
        client.invoke([SystemMessage("x" * 1000), HumanMessage("y" * 1000)])
    assert openai_server.requests == []  # nothing sent
