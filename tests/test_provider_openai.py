"""The openai provider, driven through ModelClient against a real (fake) HTTP server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fake_servers import Delay, Fail, OpenAIServer, Raw, Reply, unused_port
from helpers import buggy_folder, run_cli
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from codur.config.schema import LLMProfile
from codur.errors import ConfigError, ModelError, ModelUnreachable
from codur.events import Event, EventBus
from codur.log import JsonlLog
from codur.models.client import ModelClient
from codur.models.finish import finish_reason, truncated
from codur.redaction import Redactor, secret_values

KEY_VAR = "CODUR_TEST_API_KEY"
KEY = "sk-test-0123456789abcdef"


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return f"contents of {path}"


def make_client(base_url: str, **overrides: Any) -> tuple[ModelClient, list[Event]]:
    settings: dict[str, Any] = {
        "provider": "openai",
        "model": "fake-model",
        "base_url": base_url,
        "max_tokens": 256,
        "timeout_s": 5.0,
        "max_retries": 2,
        "retry_backoff_s": 0.01,
    }
    profile = LLMProfile(**(settings | overrides))
    bus = EventBus()
    events: list[Event] = []
    bus.subscribe(events.append)
    return ModelClient("fake", profile, bus), events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def test_tool_call_reply(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(tool_calls=[("read_file", {"path": "app.py"})]))
    client, _ = make_client(openai_server.base_url)

    reply = client.invoke([HumanMessage("show me app.py")], tools=[read_file])

    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("read_file", {"path": "app.py"})]
    (request,) = openai_server.requests
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["model"] == "fake-model"
    assert body["tools"][0]["function"]["name"] == "read_file"
    # local servers honour max_tokens; langchain-openai would send max_completion_tokens
    assert body["max_tokens"] == 256
    assert "max_completion_tokens" not in body
    # streamed (the live progress), with the usage in the stream's last chunk
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_follow_up_turn_sends_tool_result_and_empty_content(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(tool_calls=[("read_file", {"path": "app.py"})]), Reply("All done."))
    client, _ = make_client(openai_server.base_url)
    messages: list[Any] = [HumanMessage("show me app.py")]
    first = client.invoke(messages, tools=[read_file])
    call = first.tool_calls[0]
    messages += [first, ToolMessage("print('hi')", tool_call_id=call["id"])]

    final = client.invoke(messages, tools=[read_file])

    assert final.content == "All done."
    sent = openai_server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assistant, tool_result = sent[1], sent[2]
    assert assistant["content"] == ""  # not null: the strict server would answer 400
    assert assistant["tool_calls"][0]["function"]["name"] == "read_file"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"path": "app.py"}
    assert tool_result == {"role": "tool", "content": "print('hi')", "tool_call_id": call["id"]}


def test_strict_server_rejects_plain_chat_openai_null_content(openai_server: OpenAIServer) -> None:
    """Proves the strict check bites: stock ChatOpenAI sends content null and gets a 400."""
    import openai
    from langchain_core.messages import AIMessage
    from langchain_openai import ChatOpenAI

    openai_server.script(Reply("unused"))
    stock = ChatOpenAI(model="m", base_url=openai_server.base_url, api_key="x", max_retries=0)
    ai = AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "a"}, "id": "c1"}])
    with pytest.raises(openai.BadRequestError):
        stock.invoke([HumanMessage("hi"), ai, ToolMessage("x", tool_call_id="c1")])
    assert openai_server.requests[0].body["messages"][1]["content"] is None


def test_server_error_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.script(Fail(500), Reply("ok"))
    client, events = make_client(openai_server.base_url)

    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert len(openai_server.requests) == 2
    retry = next(e for e in events if e.kind == "model.retry")
    assert retry.data["attempt"] == 1 and "500" in retry.data["error"]


def test_server_error_every_time_is_unreachable(openai_server: OpenAIServer) -> None:
    openai_server.default = Fail(503, "overloaded")
    client, events = make_client(openai_server.base_url, max_retries=2)

    with pytest.raises(ModelUnreachable) as info:
        client.invoke([HumanMessage("hi")])
    message = str(info.value)
    assert "profile 'fake'" in message and openai_server.base_url in message
    assert "gave up after 3 attempts" in message
    assert len(openai_server.requests) == 3
    assert kinds(events).count("model.retry") == 2


def test_timeout_is_unreachable(openai_server: OpenAIServer) -> None:
    openai_server.default = Delay(10)
    client, _ = make_client(openai_server.base_url, timeout_s=0.5, max_retries=1)

    with pytest.raises(ModelUnreachable, match=r"no complete answer within 0.5 s"):
        client.invoke([HumanMessage("hi")])
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize("status", [400, 401])
def test_client_error_is_fatal_without_retries(openai_server: OpenAIServer, status: int) -> None:
    openai_server.script(Fail(status, "nope"))
    client, events = make_client(openai_server.base_url)

    with pytest.raises(ModelError, match="nope") as info:
        client.invoke([HumanMessage("hi")])
    assert not isinstance(info.value, ModelUnreachable)
    assert openai_server.base_url in str(info.value)
    assert len(openai_server.requests) == 1
    assert "model.retry" not in kinds(events)


def test_connection_refused_names_the_url() -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"
    client, _ = make_client(url, max_retries=1)

    with pytest.raises(ModelUnreachable) as info:
        client.invoke([HumanMessage("hi")])
    assert url in str(info.value) and "ConnectionError" in str(info.value)
    # the SDK's bare "Connection error." gets its cause (a probe's find: a self-signed
    # certificate and a refused connection read the same)
    assert "Connection error. (ConnectError: [Errno 111] Connection refused)" in str(info.value)


@pytest.mark.parametrize("value", ["sk-abcdefgh12345\n", " sk-abcdefgh12345", "sk-secrétKEY123"])
def test_a_key_no_http_header_can_carry_is_refused_before_any_request(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """A probe's find: a key with a trailing newline failed every request as a
    "Connection error." whose cause held the key; a non-ASCII one was a Codur bug (exit
    4). Both are refused first, in a line that names the variable, not the value."""
    monkeypatch.setenv(KEY_VAR, value)
    client, _ = make_client(openai_server.base_url, api_key_env=KEY_VAR)
    with pytest.raises(ConfigError, match=f"the value of {KEY_VAR} holds a newline") as info:
        client.invoke([HumanMessage("hi")])
    assert value.strip() not in str(info.value) and not openai_server.requests


def test_api_key_from_env_is_the_bearer_token(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    openai_server.script(Reply("ok"), Reply("ok"))
    keyed, _ = make_client(openai_server.base_url, api_key_env=KEY_VAR)
    keyless, _ = make_client(openai_server.base_url)

    keyed.invoke([HumanMessage("hi")])
    keyless.invoke([HumanMessage("hi")])

    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert openai_server.requests[1].headers["authorization"] == "Bearer not-needed"


def test_missing_key_variable_is_a_config_error(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VAR, raising=False)
    client, _ = make_client(openai_server.base_url, api_key_env=KEY_VAR)

    with pytest.raises(
        ConfigError, match=f"profile 'fake': environment variable {KEY_VAR} is not set"
    ):
        client.invoke([HumanMessage("hi")])
    assert openai_server.requests == []


@pytest.mark.slow
def test_a_run_without_its_key_stops_before_anything_runs(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """A hosted profile whose key variable is unset: one line and exit code 2 before the
    check or the repair search runs (they ran first, and the program with them), and the
    server never asked."""
    root = buggy_folder(tmp_path / "work")
    env = {k: v for k, v in os.environ.items() if k != KEY_VAR}
    flags = [
        "-o", "llm.profiles.h.provider=openai", "-o", "llm.profiles.h.model=m",
        "-o", f"llm.profiles.h.base_url={openai_server.base_url}",
        "-o", f"llm.profiles.h.api_key_env={KEY_VAR}", "-o", "llm.default_profile=h",
    ]  # fmt: skip
    done = run_cli([*flags, "--json", "fix @main.py"], root, env=env)
    assert done.returncode == 2, done.stderr
    assert f"environment variable {KEY_VAR} is not set" in done.stderr
    kinds = [json.loads(line)["event"] for line in done.stdout.splitlines() if line.strip()]
    assert "program.start" not in kinds and "repair.start" not in kinds
    assert openai_server.requests == []
    asked = run_cli([*flags, "ask", "what does main.py print?"], root, env=env)
    assert asked.returncode == 2, asked.stderr  # the same condition, the same exit code
    assert f"environment variable {KEY_VAR} is not set" in asked.stderr
    assert openai_server.requests == []


def test_usage_reaches_the_response_event(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply("ok", prompt_tokens=42, completion_tokens=5))
    client, events = make_client(openai_server.base_url)

    client.invoke([HumanMessage("hi")])

    response = next(e for e in events if e.kind == "model.response")
    assert (response.data["prompt_tokens"], response.data["completion_tokens"]) == (42, 5)
    assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (42, 5)


def test_api_key_never_reaches_the_debug_log(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    # a careless server echoing the key in an error: it lands in the model.retry event
    openai_server.script(Fail(500, f"upstream rejected key {KEY}"), Reply("ok"))
    client, _ = make_client(openai_server.base_url, api_key_env=KEY_VAR)
    log = JsonlLog(tmp_path / "debug.log", "run-1", Redactor(secret_values(os.environ)), 4000)
    client.bus.subscribe(log)

    client.invoke([HumanMessage("hi")])
    log.close()

    text = (tmp_path / "debug.log").read_text(encoding="utf-8")
    assert openai_server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert {"model.request", "model.retry", "model.response"} <= {r["event"] for r in records}
    retry = next(r for r in records if r["event"] == "model.retry")
    assert "***" in retry["error"]


def test_local_server_never_gets_the_responses_api(openai_server: OpenAIServer) -> None:
    """langchain-openai switches to /responses for some model names; local servers lack it."""
    openai_server.script(Reply("ok"))
    client, _ = make_client(openai_server.base_url, model="gpt-5-pro")

    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert openai_server.requests[0].path == "/v1/chat/completions"


def test_openai_itself_keeps_max_completion_tokens() -> None:
    from codur.models import openai as provider

    model = provider.build("p", LLMProfile(provider="openai", model="gpt-4o-mini", max_tokens=99))
    payload = model._get_request_payload([HumanMessage("hi")])
    assert payload["max_completion_tokens"] == 99 and "max_tokens" not in payload
    assert provider.endpoint(LLMProfile(provider="openai")) == "https://api.openai.com/v1"


def test_per_call_output_cap_and_sampling(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply("a"), Reply("b"), Reply("c"))
    client, events = make_client(openai_server.base_url, max_tokens=2048, seed=7)

    client.invoke([HumanMessage("hi")], max_tokens=300)
    client.invoke([HumanMessage("hi")], **client.sampling(2))
    client.invoke([HumanMessage("hi")], temperature=1.3, seed=42, max_tokens=4096)

    first, second, third = (r.body for r in openai_server.requests)
    assert first["max_tokens"] == 300
    assert (first["temperature"], first["seed"]) == (client.profile.temperature, 7)
    assert second["max_tokens"] == 2048
    assert (second["temperature"], second["seed"]) == (client.profile.retry_temperature, 9)
    assert (third["temperature"], third["seed"], third["max_tokens"]) == (1.3, 42, 2048)
    requests = [e.data for e in events if e.kind == "model.request"]
    assert [(r["temperature"], r["seed"], r["max_tokens"]) for r in requests] == [
        (client.profile.temperature, 7, 300),
        (client.profile.retry_temperature, 9, 2048),
        (1.3, 42, 2048),
    ]


def test_reply_cut_by_the_token_limit_is_reported(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply("def f(:"), Reply("done", finish_reason="length"))
    client, events = make_client(openai_server.base_url)

    whole = client.invoke([HumanMessage("hi")])
    cut = client.invoke([HumanMessage("hi")], max_tokens=3)

    assert (finish_reason(whole), truncated(whole)) == ("stop", False)
    assert (finish_reason(cut), truncated(cut)) == ("length", True)
    responses = [e.data for e in events if e.kind == "model.response"]
    assert [r["finish_reason"] for r in responses] == ["stop", "length"]


def test_cached_prompt_tokens_are_counted(openai_server: OpenAIServer) -> None:
    openai_server.script(
        Reply("a", prompt_tokens=1200, cached_tokens=0),
        Reply("b", prompt_tokens=1250, cached_tokens=1024),
    )
    client, events = make_client(openai_server.base_url)

    client.invoke([HumanMessage("hi")])
    client.invoke([HumanMessage("hi")])

    assert [e.data["cached_tokens"] for e in events if e.kind == "model.response"] == [0, 1024]
    assert (client.usage.prompt_tokens, client.usage.cached_prompt_tokens) == (2450, 1024)


def test_context_window_and_estimated_token_count(openai_server: OpenAIServer) -> None:
    client, _ = make_client(openai_server.base_url, context_window=128_000)
    unknown, _ = make_client(openai_server.base_url)
    text = "x" * 700

    assert (client.context_window, unknown.context_window) == (128_000, None)
    assert client.count_tokens([HumanMessage(text)]) == 200  # 700 characters / 3.5
    assert client.count_tokens([HumanMessage(text + "y")]) == 201  # rounded up
    assert client.count_tokens([HumanMessage(text)], tools=[read_file]) > 200
    assert openai_server.requests == []  # counted without a call


def test_an_error_event_inside_the_stream_is_retried_as_the_server_s(
    openai_server: OpenAIServer,
) -> None:
    """vLLM and OpenRouter send `data: {"error": ...}` mid-stream: a server's failure,
    retried and then told as the model being unreachable (exit 3, fallback), never as a
    Codur bug (exit 4)."""
    crash = b'data: {"error": {"message": "model crashed in the middle"}}\n\n'
    event = Raw(crash, content_type="text/event-stream")
    openai_server.script(event, Reply("ok"))
    client, events = make_client(openai_server.base_url)
    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert "model crashed" in next(e for e in events if e.kind == "model.retry").data["error"]
    openai_server.default = event
    with pytest.raises(ModelUnreachable, match="model crashed in the middle"):
        client.invoke([HumanMessage("hi")])


def test_a_url_password_is_in_no_error_and_its_basic_credentials_are_masked(
    openai_server: OpenAIServer,
) -> None:
    """A base_url with `user:password@` is sent as HTTP Basic credentials, which a 401 may
    echo: the error names the server without the password (its checkpoints keep the
    error), and the echoed credentials are masked like the password."""
    import base64

    from codur.config.loader import load_config

    password = "hunter2pass-9"
    basic = base64.b64encode(f"alice:{password}".encode()).decode()
    url = openai_server.base_url.replace("http://", f"http://alice:{password}@")
    openai_server.default = Fail(401, f"Incorrect API key provided: Basic {basic}")
    load_config(Path.cwd(), overrides=[f"llm.profiles.openai.base_url={url}"], environ={})
    client, _ = make_client(url)
    with pytest.raises(ModelError) as info:
        client.invoke([HumanMessage("hi")])
    message = str(info.value)
    assert password not in message and "http://alice:***@127.0.0.1" in message, message
    assert basic not in message and "Basic ***" in message


def test_a_429_s_retry_after_is_waited_for_within_a_bound() -> None:
    """A probe's find: a 429 saying `Retry-After: 3` was retried after 0.5 s and 1 s, then
    given up, where waiting as told would have worked. The wait is what the server asks
    (seconds, an HTTP date, or `retry-after-ms`), at least the backoff, at most
    MAX_RETRY_AFTER_S."""
    import email.utils
    import time

    import httpx
    import openai

    from codur.models.retry import MAX_RETRY_AFTER_S, Transient, retry_after, retrying

    def limited(headers: dict[str, str]) -> openai.RateLimitError:
        request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
        response = httpx.Response(429, headers=headers, request=request)
        return openai.RateLimitError("Rate limit reached", response=response, body=None)

    assert retry_after(limited({"retry-after": "3"})) == 3.0
    assert retry_after(limited({"retry-after-ms": "1500"})) == 1.5
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < (retry_after(limited({"retry-after": later})) or 0) <= 30
    assert retry_after(limited({"retry-after": "soon"})) is None
    assert retry_after(limited({})) is None and retry_after(ValueError("x")) is None

    waits: list[float] = []
    asked = iter([3.0, 3600.0, None, None])

    def attempt() -> None:
        raise Transient("429", next(asked))

    policy = retrying(4, 0.5, waits.append, lambda attempt, reason, delay: None)
    with pytest.raises(Transient):
        policy(attempt)
    assert waits == [3.0, MAX_RETRY_AFTER_S, 2.0]  # as asked, capped, then the backoff


def test_a_404_from_a_base_url_without_v1_says_the_url_is_likely_wrong(
    openai_server: OpenAIServer,
) -> None:
    """A probe's find: `base_url: http://host:8000` (no /v1) for vLLM read as the model
    missing (`OpenAIModelNotFoundError: Error code: 404`). Said now as the wrong URL it
    most likely is, once; a 404 under /v1 stays the server's own."""
    openai_server.default = Fail(404, "Not Found")
    root = openai_server.base_url.removesuffix("/v1")
    client, _ = make_client(root)
    with pytest.raises(ModelError, match="404 - Not Found \\(at /chat/completions: is base_url an"):
        client.invoke([HumanMessage("hi")])
    assert len(openai_server.requests) == 1
    for versioned in (openai_server.base_url, f"{root}/v1beta/openai"):  # Gemini's, say
        client, _ = make_client(versioned)
        with pytest.raises(ModelError, match="Error code: 404") as info:
            client.invoke([HumanMessage("hi")])
        assert "ending in /v1" not in str(info.value)


def test_a_server_rejecting_stream_options_is_asked_without_them(
    openai_server: OpenAIServer,
) -> None:
    """A probe's find: a gateway answering 400 to `stream_options` (a known proxy error)
    failed every call (exit 3) with no setting to turn it off. Such a server is asked
    again without it, then always without it (no token counts from it)."""
    openai_server.script(
        Fail(400, "Unrecognized request argument supplied: stream_options"), Reply("ok")
    )
    openai_server.default = Reply("again")
    client, _ = make_client(openai_server.base_url)
    assert client.invoke([HumanMessage("hi")]).content == "ok"
    assert client.invoke([HumanMessage("hi")]).content == "again"
    sent = [r.body for r in openai_server.requests]
    assert "stream_options" in sent[0] and not any("stream_options" in b for b in sent[1:])
    assert len(sent) == 3  # the second call asks without it at once
