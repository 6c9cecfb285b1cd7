"""ModelClient's provider-independent parts, driven through the scripted provider: per-call
sampling, the finish reason, token counting and the context window. (Each provider's own
wire format is tested in test_provider_*.py and, for the embedded model, test_local_*.py.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

from codur.config.schema import LLMProfile
from codur.errors import ConfigError
from codur.events import Event, EventBus
from codur.models import provider
from codur.models.base import estimate_tokens
from codur.models.client import ModelClient
from codur.models.finish import finish_reason, truncated


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return ""


def scripted(tmp_path: Path, items: list[Any], **overrides: Any) -> tuple[ModelClient, list[Event]]:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump(items), encoding="utf-8")
    profile = LLMProfile(provider="scripted", script=str(script), **overrides)
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    return ModelClient("s", profile, bus), events


def test_sampling_for_each_attempt(tmp_path: Path) -> None:
    client, _ = scripted(tmp_path, [], temperature=0.1, retry_temperature=0.9, seed=40)

    assert client.sampling(0) == {"temperature": 0.1, "seed": 40}
    assert client.sampling(1) == {"temperature": 0.9, "seed": 41}
    assert client.sampling(5) == {"temperature": 0.9, "seed": 45}


def test_the_request_event_records_the_sampling_used(tmp_path: Path) -> None:
    client, events = scripted(tmp_path, ["a", "b"], temperature=0.1, seed=3, max_tokens=500)

    client.invoke([HumanMessage("hi")])
    client.invoke([HumanMessage("hi")], **client.sampling(2), max_tokens=900)

    requests = [e.data for e in events if e.kind == "model.request"]
    assert [(r["temperature"], r["seed"], r["max_tokens"]) for r in requests] == [
        (0.1, 3, 500),
        (0.8, 5, 500),  # the profile's max_tokens is the ceiling
    ]


def test_script_items_say_how_the_reply_ended(tmp_path: Path) -> None:
    items = [
        "plain text",
        {"content": "def f(:", "finish_reason": "length"},
        {
            "tool_calls": [{"name": "read_file", "args": {"path": "a"}}],
            "finish_reason": "tool_calls",
        },
    ]
    client, events = scripted(tmp_path, items)

    replies = [client.invoke([HumanMessage("hi")]) for _ in items]

    assert [finish_reason(r) for r in replies] == ["stop", "length", "tool_calls"]
    assert [truncated(r) for r in replies] == [False, True, False]
    responses = [e.data for e in events if e.kind == "model.response"]
    assert [r["finish_reason"] for r in responses] == ["stop", "length", "tool_calls"]
    assert all(r["cached_tokens"] == 0 for r in responses)


def test_an_unknown_finish_reason_in_a_script_is_a_config_error(tmp_path: Path) -> None:
    client, _ = scripted(tmp_path, [{"content": "x", "finish_reason": "cut"}])

    with pytest.raises(ConfigError, match="script item 1: finish_reason must be one of"):
        client.invoke([HumanMessage("hi")])


def test_a_reply_without_a_reason_has_none() -> None:
    assert finish_reason(AIMessage("x")) is None and not truncated(AIMessage("x"))


def test_estimate_counts_text_tool_calls_and_tool_schemas() -> None:
    call = {"name": "read_file", "args": {"path": "app.py"}, "id": "c1", "type": "tool_call"}
    text = [SystemMessage("s" * 70), HumanMessage("h" * 35)]

    assert estimate_tokens(text) == 30  # 105 characters / 3.5
    with_call = estimate_tokens([*text, AIMessage("", tool_calls=[call])])
    assert with_call == 44  # + 49 characters: {"name": "read_file", "args": {"path": "app.py"}}
    assert estimate_tokens(text, [read_file]) > 30 + 40  # the tool's JSON schema
    parts = HumanMessage(content=[{"type": "text", "text": "p" * 7}, "q" * 7])
    assert estimate_tokens([parts]) == 4


def test_context_window_by_provider(tmp_path: Path) -> None:
    client, _ = scripted(tmp_path, [], context_window=32_768)
    unknown, _ = scripted(tmp_path, [])

    assert (client.context_window, unknown.context_window) == (32_768, None)
    assert client.count_tokens([HumanMessage("z" * 350)]) == 100
    local = LLMProfile(provider="local", weights="qwen2.5-coder-1.5b", n_ctx=4096)
    assert provider("local").context_window(local) == 4096  # no model loaded to know it
