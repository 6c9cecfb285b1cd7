"""A cancelled run cuts the model call in flight: an HTTP request's connection is closed
(real OpenAI-compatible and Ollama servers on 127.0.0.1 that answer slowly), the
embedded model stops at its next token (marked `embedded`). Either way the call ends
with Cancelled, without a retry, and the model goes on working for the next call."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_servers import FakeServer, OllamaServer, OpenAIServer, Reply, Trickle
from fake_streams import Streamed
from helpers import embedded_model_unavailable, embedded_profile
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from codur.config.schema import LLMProfile
from codur.errors import Cancelled
from codur.events import Event, EventBus
from codur.models.client import ModelClient
from codur.models.finish import truncated

SERVERS: dict[str, tuple[type[FakeServer], str, dict[str, Any]]] = {
    "openai": (OpenAIServer, "/v1/chat/completions", {"model": "m"}),
    "ollama": (OllamaServer, "/api/chat", {"model": "m", "stream": True}),
}
"""Each HTTP provider's fake server, its chat path and a request body to render a reply."""


@pytest.fixture(params=list(SERVERS))
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, FakeServer]]:
    """An HTTP provider's name and its fake server, started."""
    server = SERVERS[request.param][0]().start()
    yield request.param, server
    server.stop()


def client_of(kind: str, server: FakeServer) -> tuple[ModelClient, list[Event]]:
    """A client of `server` whose deadline (60 s) is far off and which may retry."""
    base_url = server.base_url if isinstance(server, OpenAIServer) else server.url
    settings = {"timeout_s": 60.0, "max_retries": 2, "retry_backoff_s": 0.01}
    profile = LLMProfile(provider=kind, model="m", base_url=base_url, **settings)
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    return ModelClient("srv", profile, bus, cancel=threading.Event()), events


def test_a_cancel_closes_the_connection_of_the_request_in_flight(
    served: tuple[str, FakeServer],
) -> None:
    kind, server = served
    _, path, body = SERVERS[kind]
    payload = server.reply(path, body, Reply("word " * 60))[2]
    payload = payload.body() if isinstance(payload, Streamed) else payload
    slow = Trickle(every_s=0.05, body=payload)  # a whole, valid answer in about 20 s
    server.script(slow)
    client, events = client_of(kind, server)
    assert client.cancel is not None

    def cancel_once_answering() -> None:
        if slow.started.wait(30):
            client.cancel.set()

    canceller = threading.Thread(target=cancel_once_answering)
    canceller.start()
    with pytest.raises(Cancelled):
        client.invoke([HumanMessage("hi")])
    canceller.join()

    assert slow.ended.wait(60)  # the server's side of it:
    assert slow.sent < len(payload)  # the connection closed before the answer was whole
    kinds = [e.kind for e in events]
    assert len(server.requests) == 1 and "model.retry" not in kinds
    assert "model.response" not in kinds

    client.cancel.clear()  # the next call of the same model goes through
    server.script(Reply("fine"))
    assert client.invoke([HumanMessage("hi")]).content == "fine"


@tool
def write_file(path: str, content: str) -> str:
    """Write `content` to the text file `path` in the workspace."""
    return "written"


LONG_REPLIES = {
    "text": ((), "Write the numbers from 1 to 1000, one per line, and nothing else."),
    "a tool call (a grammar)": (
        (write_file,),
        "Write the numbers from 1 to 1000, one per line, into numbers.txt.",
    ),
}
"""Requests whose reply runs to the output cap (`MAX_TOKENS`) unless cut."""
MAX_TOKENS = 256
CUT_AFTER = 8
"""Generated tokens after which the test cancels the call."""


@pytest.mark.embedded
@pytest.mark.parametrize("kind", list(LONG_REPLIES))
def test_a_cancel_stops_the_embedded_model_at_its_next_token(kind: str) -> None:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    tools, task = LONG_REPLIES[kind]
    messages = [HumanMessage(task)]
    profile = embedded_profile(MAX_TOKENS)
    client = ModelClient("local", profile, EventBus(), cancel=threading.Event())
    assert client.cancel is not None
    llama = client.model.llama  # type: ignore[attr-defined]
    llama.reset()  # nothing cached: n_tokens is the prompt, then one more a generated token
    prompt = client.count_tokens(messages, tools)
    finished = threading.Event()

    def cancel_after_the_first_tokens() -> None:
        while llama.n_tokens < prompt + CUT_AFTER:
            if finished.is_set():
                return
            time.sleep(0.01)
        client.cancel.set()

    canceller = threading.Thread(target=cancel_after_the_first_tokens)
    canceller.start()
    try:
        with pytest.raises(Cancelled):
            client.invoke(messages, tools)
    finally:
        finished.set()
        canceller.join()

    generated = llama.n_tokens - prompt
    assert CUT_AFTER <= generated < MAX_TOKENS // 4

    client.cancel.clear()  # the model's state is whole: the next call reuses its cache
    again = client.invoke(messages, tools, max_tokens=4)
    assert again.usage_metadata and truncated(again)
    assert again.usage_metadata["input_token_details"]["cache_read"] == prompt - 1


def test_a_call_waiting_for_another_runs_generation_is_cancelled_while_it_waits() -> None:
    """One llama.cpp context generates for one run at a time; a run cancelled while
    another run's generation holds the model stops waiting at once."""
    from types import SimpleNamespace

    from codur.models.local_llama import GENERATE_LOCK, generating

    llama, cancel, outcome = SimpleNamespace(cancel=None), threading.Event(), []

    def waiting_run() -> None:
        try:
            with generating(llama, cancel):
                outcome.append("generated")
        except Cancelled:
            outcome.append("cancelled")

    with GENERATE_LOCK:  # another run's generation, which goes on for as long as it likes
        waiter = threading.Thread(target=waiting_run)
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive() and not outcome  # waiting for the model
        cancel.set()
        waiter.join(10)
        assert outcome == ["cancelled"] and not waiter.is_alive()  # cut with the lock held
    with generating(llama, None):  # the model is free for the next call
        assert llama.cancel is None
