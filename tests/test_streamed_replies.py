"""Never silent on an HTTP model: OpenAI-compatible servers (llama.cpp's, vLLM, OpenAI)
and Ollama stream their reply, and each chunk reaches the call's progress (the live line,
`model.progress` events), while the usage, tool calls, finish reason and the retrying of
a broken stream stay as they were. Real servers on 127.0.0.1 (tests/fake_servers.py)
that pace their chunks like a model generating."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_servers import OllamaServer, OpenAIServer, Raw, Reply
from faults import codur, ended, openai_profile, workdir
from helpers import BUGGY, FIXED, whole_file
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from terminal import Terminal
from test_live_progress import terminal_env

from codur.config.schema import LLMProfile
from codur.errors import ModelUnreachable
from codur.events import Event, EventBus
from codur.models.client import ModelClient
from codur.models.finish import finish_reason

TEXT = "The loop stops one short: it should run over every item of the list."
REPLY = whole_file("main.py", FIXED)


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return f"contents of {path}"


def client_of(server: OpenAIServer | OllamaServer, every_s: float = 0) -> tuple[ModelClient, list]:
    """A client of `server` whose every progress report is an event (`every_s` 0)."""
    kind = "openai" if isinstance(server, OpenAIServer) else "ollama"
    url = server.base_url if isinstance(server, OpenAIServer) else server.url
    settings: dict[str, Any] = {"timeout_s": 10.0, "max_retries": 2, "retry_backoff_s": 0.01}
    profile = LLMProfile(provider=kind, model="m", base_url=url, **settings)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    return ModelClient("srv", profile, bus, progress_every_s=every_s), events


def progress_of(events: list[Event]) -> list[dict[str, Any]]:
    return [e.data for e in events if e.kind == "model.progress"]


@pytest.mark.parametrize("kind", ["openai", "ollama"])
def test_each_streamed_word_is_progress_before_the_answer(
    kind: str, openai_server: OpenAIServer, ollama_server: OllamaServer
) -> None:
    server = openai_server if kind == "openai" else ollama_server
    server.script(Reply(TEXT, prompt_tokens=40, completion_tokens=15, pace_s=0.02))
    client, events = client_of(server)
    reply = client.invoke([HumanMessage("why does it print 6?")])
    assert reply.content == TEXT
    progress = progress_of(events)
    words = len(TEXT.split())
    assert [p["tokens"] for p in progress] == list(range(1, words + 1))
    assert "".join(p["text"] for p in progress) == TEXT  # -v streams it, in order, once
    kinds = [e.kind for e in events]
    assert kinds.index("model.response") > kinds.index("model.progress")
    response = events[-1].data
    assert (response["prompt_tokens"], response["completion_tokens"]) == (40, 15)
    assert response["finish_reason"] == "stop"


def test_a_streamed_tool_call_arrives_whole(openai_server: OpenAIServer) -> None:
    """The call's id and name, then its arguments in two pieces: one tool call, its usage
    and finish reason, as without streaming; the argument pieces are progress too."""
    openai_server.script(Reply(tool_calls=[("read_file", {"path": "app.py"})], cached_tokens=5))
    client, events = client_of(openai_server)
    reply = client.invoke([HumanMessage("show me app.py")], tools=[read_file])
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("read_file", {"path": "app.py"})]
    assert finish_reason(reply) == "tool_calls"
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_token_details"]["cache_read"] == 5
    assert [p["tokens"] for p in progress_of(events)] == [1, 2, 3]


def test_a_stream_cut_mid_way_is_retried(openai_server: OpenAIServer) -> None:
    """A server that dies mid-reply: the connection broke, as a cut JSON answer was."""
    openai_server.script(Reply(TEXT, cut_after=4), Reply("fine"))
    client, events = client_of(openai_server)
    assert client.invoke([HumanMessage("hi")]).content == "fine"
    (retry,) = [e.data for e in events if e.kind == "model.retry"]
    assert "Connection error" in retry["error"]


def test_a_stream_that_ends_unfinished_is_retried_then_unreachable(
    openai_server: OpenAIServer,
) -> None:
    """An answer whose body ends cleanly but before any finish reason (an HTTP/1.0 server
    closing the connection) is a cut reply, never a short answer taken as whole."""
    event = {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "Half"}}]}
    cut = Raw(f"data: {json.dumps(event)}\n\n".encode(), content_type="text/event-stream")
    openai_server.default = cut
    client, _ = client_of(openai_server)
    with pytest.raises(ModelUnreachable, match="StreamCut: .*gave up after 3 attempts"):
        client.invoke([HumanMessage("hi")])


@pytest.mark.slow
def test_json_progress_comes_from_a_slow_server(tmp_path: Path, openai_server) -> None:
    """The real CLI on a server streaming a word every 0.15 s: `model.progress` events
    while it streams, one a second at most, and the answer's usage as the server says."""
    openai_server.default = Reply(REPLY, prompt_tokens=90, completion_tokens=33, pace_s=0.15)
    work = workdir(tmp_path)
    result = codur([*openai_profile(openai_server.base_url), "--json", "fix @main.py"], work)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    request = next(e for e in events if e["event"] == "model.request")
    response = next(e for e in events if e["event"] == "model.response")
    progress = [e for e in events if e["event"] == "model.progress" and e["call"] == 1]
    assert len(progress) >= 2  # a reply streamed over some seconds
    assert all(request["ts"] < p["ts"] < response["ts"] for p in progress)
    gaps = [b["ts"] - a["ts"] for a, b in zip([request, *progress], progress, strict=False)]
    assert min(gaps) >= 0.9  # at most one a second (ts is rounded to ms)
    assert [p["tokens"] for p in progress] == sorted(p["tokens"] for p in progress)
    assert REPLY.startswith("".join(p["text"] for p in progress))
    assert (response["prompt_tokens"], response["completion_tokens"]) == (90, 33)
    assert (work / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_a_terminal_shows_a_streaming_server_live(tmp_path: Path, openai_server) -> None:
    openai_server.default = Reply(REPLY, pace_s=0.15)
    work = workdir(tmp_path)
    args = [*openai_profile(openai_server.base_url), "fix @main.py"]
    term = Terminal(args, work, terminal_env())
    term.expect("model srv #1: ")
    shown = term.expect(" tokens/s")
    assert " tokens, " in shown
    term.expect("verified")
    assert term.close() == 0


@pytest.mark.slow
def test_a_stream_cut_every_time_is_exit_3(tmp_path: Path, openai_server) -> None:
    openai_server.default = Reply(REPLY, cut_after=5)
    work = workdir(tmp_path)
    result = codur([*openai_profile(openai_server.base_url, max_retries=2), "fix @main.py"], work)
    ended(result, work, 3, error="gave up after 3 attempts")
    assert len(openai_server.requests) == 3 and (work / "main.py").read_text() == BUGGY
