"""The real embedded model through ModelClient: per-call sampling, replies cut by the
output cap, exact prompt token counts and the prompt tokens read from llama.cpp's KV
cache. All marked `embedded`; replies are kept to a few tokens.
"""

from __future__ import annotations

import pytest
from helpers import embedded_model_unavailable, embedded_profile
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from codur.events import Event, EventBus
from codur.models.client import ModelClient
from codur.models.finish import finish_reason, truncated

pytestmark = pytest.mark.embedded

HAIKU = [HumanMessage("Write a haiku about rivers.")]
CODE = [
    SystemMessage("You are a careful Python programmer. Reply with the whole fixed file."),
    HumanMessage(
        "Fix the bug: totals are one short.\n\nmain.py\n```python\ndef total(xs):\n"
        "    s = 0\n    for i in range(len(xs) - 1):\n        s += xs[i]\n    return s\n\n"
        "print(total([1, 2, 3, 4]))  # expected: 10 — «ünïcode» too\n```"
    ),
]


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return ""


@pytest.fixture(scope="module")
def client() -> ModelClient:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    return ModelClient("local", embedded_profile(64), EventBus())


def watch(client: ModelClient) -> list[Event]:
    events: list[Event] = []
    client.bus.subscribe(events.append)
    return events


def test_retries_sample_different_text(client: ModelClient) -> None:
    first = client.invoke(HAIKU, **client.sampling(1), max_tokens=12)
    second = client.invoke(HAIKU, **client.sampling(2), max_tokens=12)

    assert first.content != second.content


def test_the_same_seed_from_the_same_state_gives_the_same_text(client: ModelClient) -> None:
    """From an empty KV cache both times, as in a new process. (A prompt partly read from
    the cache gets slightly different logits: the last token is evaluated alone instead of
    in a batch, so the same seed may pick other tokens then.)"""
    texts = []
    for _ in range(2):
        client.model.llama.reset()  # type: ignore[attr-defined]
        texts.append(client.invoke(HAIKU, **client.sampling(1), max_tokens=12).content)

    assert texts[0] == texts[1]


def test_a_tiny_output_cap_cuts_the_reply(client: ModelClient) -> None:
    events = watch(client)

    reply = client.invoke(CODE, max_tokens=3)

    assert (finish_reason(reply), truncated(reply)) == ("length", True)
    assert reply.usage_metadata and reply.usage_metadata["output_tokens"] == 3
    response = next(e.data for e in events if e.kind == "model.response")
    assert response["finish_reason"] == "length"
    assert not truncated(client.invoke([HumanMessage("Reply with just: ok")], max_tokens=16))


CONVERSATIONS: dict[str, list[BaseMessage]] = {
    "user only (the template adds a system turn)": HAIKU,
    "system, code and unicode": CODE,
    "a tool call and its result": [
        HumanMessage("What does notes.txt say?"),
        AIMessage(
            "", tool_calls=[{"name": "read_file", "args": {"path": "notes.txt"}, "id": "c1"}]
        ),
        ToolMessage("The meeting is on Tuesday.", tool_call_id="c1"),
    ],
}


@pytest.mark.parametrize("name", CONVERSATIONS)
@pytest.mark.parametrize("tools", [(), (read_file,)], ids=["no tools", "tools"])
def test_count_tokens_is_the_prompt_the_model_evaluates(
    client: ModelClient, name: str, tools: tuple
) -> None:
    messages = CONVERSATIONS[name]

    counted = client.count_tokens(messages, tools)
    reply = client.invoke(messages, tools=tools, max_tokens=1)

    assert reply.usage_metadata and counted == reply.usage_metadata["input_tokens"]
    assert client.context_window == 4096


def test_a_repeated_prompt_is_read_from_the_cache(client: ModelClient) -> None:
    events = watch(client)
    before = client.usage.cached_prompt_tokens

    client.invoke(CODE, max_tokens=2)
    again = client.invoke(CODE, **client.sampling(1), max_tokens=2)

    assert again.usage_metadata
    prompt = again.usage_metadata["input_tokens"]
    # all but the last prompt token, which llama-cpp-python evaluates again for its logits
    assert again.usage_metadata["input_token_details"]["cache_read"] == prompt - 1
    assert [e.data["cached_tokens"] for e in events if e.kind == "model.response"][-1] == (
        prompt - 1
    )
    assert client.usage.cached_prompt_tokens - before >= prompt - 1


def test_the_first_call_in_a_new_context_reads_nothing_from_the_cache(
    client: ModelClient,
) -> None:
    """A context of its own (another n_ctx), so this is its first generation: llama.cpp's
    counters start at a value it reports as 1 and count queued decodes late, which once
    made this -1."""
    profile = client.profile.model_copy(update={"n_ctx": 1024})
    fresh = ModelClient("local-1k", profile, EventBus())

    reply = fresh.invoke(HAIKU, max_tokens=2)

    assert reply.usage_metadata and reply.usage_metadata["input_token_details"]["cache_read"] == 0
    assert fresh.context_window == 1024


def test_a_shared_prefix_is_read_from_the_cache(client: ModelClient) -> None:
    client.model.llama.reset()  # type: ignore[attr-defined]
    follow_up = [*CODE, AIMessage("Here it is."), HumanMessage("Now explain the fix.")]

    first = client.invoke(CODE, max_tokens=2)
    second = client.invoke(follow_up, max_tokens=2)

    assert first.usage_metadata and first.usage_metadata["input_token_details"]["cache_read"] == 0
    assert second.usage_metadata
    cached = second.usage_metadata["input_token_details"]["cache_read"]
    assert client.count_tokens(CODE) <= cached < second.usage_metadata["input_tokens"]


def test_a_call_reports_its_prompt_and_generation_time(client: ModelClient) -> None:
    """The reply's timings split its duration (bench/latency.py reads them); the second
    call's prompt was read from the cache (how much faster is bench/latency.py's to say,
    not a test's)."""
    client.model.llama.reset()  # type: ignore[attr-defined]
    events = watch(client)

    client.invoke(CODE, max_tokens=8)
    client.invoke(CODE, **client.sampling(1), max_tokens=8)

    fresh, cached = [e.data for e in events if e.kind == "model.response"]
    assert fresh["timings"]["prompt_s"] > 0 and fresh["timings"]["generate_s"] > 0
    assert fresh["cached_tokens"] == 0 < cached["cached_tokens"] < cached["prompt_tokens"]
    for data in (fresh, cached):
        parts = data["timings"]["wait_s"] + data["timings"]["prompt_s"]
        assert parts + data["timings"]["generate_s"] <= data["duration_s"] + 0.01
