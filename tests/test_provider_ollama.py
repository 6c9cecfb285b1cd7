"""The ollama provider, driven through ModelClient against a real (fake) /api/chat server."""

from __future__ import annotations

import json
from typing import Any

import ollama
import pytest
from fake_servers import Delay, Fail, OllamaServer, Raw, Reply, unused_port
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from codur.config.schema import LLMProfile
from codur.errors import ModelError, ModelUnreachable
from codur.events import Event, EventBus
from codur.models import ollama as provider
from codur.models.client import ModelClient
from codur.models.finish import finish_reason, truncated


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return f"contents of {path}"


def make_client(base_url: str, **overrides: Any) -> tuple[ModelClient, list[Event]]:
    settings: dict[str, Any] = {
        "provider": "ollama",
        "model": "qwen2.5-coder:1.5b",
        "base_url": base_url,
        "temperature": 0.1,
        "max_tokens": 300,
        "seed": 7,
        "timeout_s": 5.0,
        "max_retries": 2,
        "retry_backoff_s": 0.01,
    }
    profile = LLMProfile(**(settings | overrides))
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    return ModelClient("local-ollama", profile, bus), events


def test_tool_call_reply(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply(tool_calls=[("read_file", {"path": "app.py"})]))
    client, _ = make_client(ollama_server.url)

    reply = client.invoke([HumanMessage("show me app.py")], tools=[read_file])

    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("read_file", {"path": "app.py"})]
    assert reply.tool_calls[0]["id"]  # ToolNode needs an id; langchain-ollama makes one up
    (request,) = ollama_server.requests
    assert request.path == "/api/chat"
    body = request.body
    assert body["model"] == "qwen2.5-coder:1.5b"
    assert body["stream"] is True  # ChatOllama streams NDJSON even for invoke()
    options = {"num_predict": 300, "seed": 7, "temperature": 0.1}
    assert body["options"].items() >= options.items()
    assert body["tools"][0]["function"]["name"] == "read_file"


def test_follow_up_turn_sends_tool_result(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply(tool_calls=[("read_file", {"path": "app.py"})]), Reply("All done."))
    client, _ = make_client(ollama_server.url)
    messages: list[Any] = [HumanMessage("show me app.py")]
    first = client.invoke(messages, tools=[read_file])
    messages += [first, ToolMessage("print('hi')", tool_call_id=first.tool_calls[0]["id"])]

    final = client.invoke(messages, tools=[read_file])

    assert final.content == "All done."  # reassembled from two streamed chunks
    sent = ollama_server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assistant, tool_result = sent[1], sent[2]
    assert not assistant.get("content")  # the ollama client drops empty fields
    assert assistant["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": {"path": "app.py"},  # a JSON object here, a string in OpenAI's format
    }
    # langchain-ollama's tool_call_id is dropped by the ollama client; tool_name is ours
    assert tool_result == {"role": "tool", "content": "print('hi')", "tool_name": "read_file"}


def test_server_error_is_retried(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fail(500, "llama runner process has terminated"), Reply("ok"))
    client, events = make_client(ollama_server.url)

    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert len(ollama_server.requests) == 2
    retry = next(e for e in events if e.kind == "model.retry")
    assert "llama runner process has terminated" in retry.data["error"]


def test_server_error_every_time_is_unreachable(ollama_server: OllamaServer) -> None:
    ollama_server.default = Fail(503, "server busy")
    client, events = make_client(ollama_server.url, max_retries=1)

    with pytest.raises(ModelUnreachable) as info:
        client.invoke([HumanMessage("hi")])
    assert "profile 'local-ollama'" in str(info.value) and ollama_server.url in str(info.value)
    assert len(ollama_server.requests) == 2
    assert [e.kind for e in events].count("model.retry") == 1


def test_timeout_is_unreachable(ollama_server: OllamaServer) -> None:
    ollama_server.default = Delay(10)
    client, _ = make_client(ollama_server.url, timeout_s=0.5, max_retries=1)

    with pytest.raises(ModelUnreachable, match=r"no complete answer within 0.5 s"):
        client.invoke([HumanMessage("hi")])
    assert len(ollama_server.requests) == 2


@pytest.mark.parametrize("status", [400, 404])
def test_client_error_is_fatal_without_retries(ollama_server: OllamaServer, status: int) -> None:
    ollama_server.script(Fail(status, "model 'qwen2.5-coder:1.5b' not found"))
    client, events = make_client(ollama_server.url)

    with pytest.raises(ModelError, match="not found") as info:
        client.invoke([HumanMessage("hi")])
    assert not isinstance(info.value, ModelUnreachable)
    assert ollama_server.url in str(info.value)
    assert len(ollama_server.requests) == 1
    assert "model.retry" not in [e.kind for e in events]


def test_connection_refused_names_the_url() -> None:
    url = f"http://127.0.0.1:{unused_port()}"
    client, _ = make_client(url, max_retries=1)

    with pytest.raises(ModelUnreachable, match="ConnectError") as info:
        client.invoke([HumanMessage("hi")])
    assert url in str(info.value)


def test_usage_reaches_the_response_event(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply("ok", prompt_tokens=42, completion_tokens=5))
    client, events = make_client(ollama_server.url)

    client.invoke([HumanMessage("hi")])

    response = next(e for e in events if e.kind == "model.response")
    assert (response.data["prompt_tokens"], response.data["completion_tokens"]) == (42, 5)


def test_per_call_sampling_goes_into_the_options(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply("a"), Reply("b"))
    client, _ = make_client(ollama_server.url)

    client.invoke([HumanMessage("hi")])
    client.invoke([HumanMessage("hi")], **client.sampling(3), max_tokens=50)

    first, second = (r.body["options"] for r in ollama_server.requests)
    assert (first["temperature"], first["seed"], first["num_predict"]) == (0.1, 7, 300)
    assert (second["temperature"], second["seed"], second["num_predict"]) == (0.8, 10, 50)
    assert "num_ctx" not in first  # no context_window: the server's default


def test_reply_cut_by_the_token_limit_is_reported(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply("all of it"), Reply("def f(:", finish_reason="length"))
    client, events = make_client(ollama_server.url)

    whole = client.invoke([HumanMessage("hi")])
    cut = client.invoke([HumanMessage("hi")])

    assert (finish_reason(whole), truncated(whole)) == ("stop", False)
    assert (finish_reason(cut), truncated(cut)) == ("length", True)
    responses = [e.data for e in events if e.kind == "model.response"]
    assert [r["finish_reason"] for r in responses] == ["stop", "length"]


def test_context_window_is_sent_as_num_ctx(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply("ok"))
    client, _ = make_client(ollama_server.url, context_window=8192)

    client.invoke([HumanMessage("hi")])

    assert ollama_server.requests[0].body["options"]["num_ctx"] == 8192
    assert client.context_window == 8192
    assert client.count_tokens([HumanMessage("y" * 35)]) == 10  # 35 characters / 3.5


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (ollama.ResponseError("model runner crashed"), "transient"),  # error line in a stream
        (ollama.ResponseError("slow down", 429), "transient"),
        (ollama.ResponseError("unauthorized", 401), "fatal"),
        (ConnectionError("refused"), "transient"),
        # a 200 that is a web page: a wrong base_url; an NDJSON line cut: a broken stream
        (json.JSONDecodeError("Expecting value", "<!doctype html><p>hi", 0), "fatal"),
        (json.JSONDecodeError("Unterminated string", '{"message": {"cont', 15), "transient"),
        (ValueError("a bug"), None),
    ],
)
def test_classify(exc: BaseException, kind: str | None) -> None:
    assert provider.classify(exc) == kind


def test_endpoint_default() -> None:
    assert provider.endpoint(LLMProfile(provider="ollama")) == "http://127.0.0.1:11434"


def test_the_key_a_profile_names_is_sent_as_a_bearer_token(
    ollama_server: OllamaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe's find: an Ollama profile behind an authenticating proxy had to name its
    key variable (or the run stopped, exit 2), and the key was then never sent."""
    monkeypatch.setenv("OLLAMA_PROXY_KEY", "proxy-key-123456")
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    ollama_server.script(Reply("ok"))
    client, _ = make_client(ollama_server.url, api_key_env="OLLAMA_PROXY_KEY")
    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert ollama_server.requests[0].headers["authorization"] == "Bearer proxy-key-123456"
    plain, _ = make_client(ollama_server.url)  # no key named: none sent
    ollama_server.script(Reply("ok"))
    plain.invoke([HumanMessage("hi")])
    assert "authorization" not in ollama_server.requests[1].headers


def test_a_stream_without_its_done_line_is_cut_and_retried(ollama_server: OllamaServer) -> None:
    """A probe's find: a reply whose connection closed before Ollama's `done` line was
    taken as whole (five partial replies, then `stuck`); it is a cut stream, retried."""
    line = {"model": "m", "message": {"role": "assistant", "content": "...."}, "done": False}
    cut = Raw(json.dumps(line).encode() + b"\n", content_type="application/x-ndjson")
    ollama_server.script(cut, Reply("whole"))
    client, events = make_client(ollama_server.url)
    assert client.invoke([HumanMessage("hi")]).content == "whole"
    retry = next(e for e in events if e.kind == "model.retry")
    assert "ended before the server finished it" in retry.data["error"]
