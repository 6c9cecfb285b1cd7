"""The anthropic provider (the `anthropic` extra), driven through ModelClient and the real
CLI against a real HTTP server speaking Anthropic's Messages API on 127.0.0.1."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fake_servers import AnthropicServer, Fail, Reply, api_key
from faults import codur, ended, records, workdir
from helpers import BUGGY, FIXED, debug_log, whole_file
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from codur.config.schema import LLMProfile
from codur.errors import ConfigError, ModelError, ModelUnreachable
from codur.events import Event, EventBus
from codur.log import JsonlLog
from codur.models.client import ModelClient
from codur.models.finish import finish_reason
from codur.redaction import Redactor, secret_values

KEY_VAR = "CODUR_TEST_ANTHROPIC_KEY"
KEY = "sk-ant-test-0123456789abcdef"


@tool
def read_file(path: str) -> str:
    """Read a text file from the workspace."""
    return f"contents of {path}"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)


def make_client(server: AnthropicServer, **overrides: Any) -> tuple[ModelClient, list[Event]]:
    settings: dict[str, Any] = {
        "provider": "anthropic",
        "model": "claude-test",
        "base_url": server.url,
        "api_key_env": KEY_VAR,
        "max_tokens": 256,
        "timeout_s": 5.0,
        "max_retries": 2,
        "retry_backoff_s": 0.01,
    }
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    profile = LLMProfile(**(settings | overrides))
    return ModelClient("claude", profile, bus, progress_every_s=0), events


def test_a_streamed_tool_call_and_the_turn_after_it(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(
        Reply("Let me look.", tool_calls=[("read_file", {"path": "app.py"})], cached_tokens=4),
        Reply("All done.", prompt_tokens=30, completion_tokens=3),
    )
    client, events = make_client(anthropic_server)
    messages: list[Any] = [SystemMessage("You are terse."), HumanMessage("show me app.py")]

    first = client.invoke(messages, tools=[read_file])

    assert [(c["name"], c["args"]) for c in first.tool_calls] == [("read_file", {"path": "app.py"})]
    assert first.content == "Let me look." and finish_reason(first) == "tool_calls"
    (request,) = anthropic_server.requests
    assert request.path == "/v1/messages" and api_key(request.headers) == KEY
    body = request.body
    assert (body["model"], body["max_tokens"], body["stream"]) == ("claude-test", 256, True)
    assert body["system"] in ("You are terse.", [{"type": "text", "text": "You are terse."}])
    assert body["tools"][0]["name"] == "read_file"
    assert body["tools"][0]["input_schema"]["properties"]["path"]["type"] == "string"
    progress = [e.data for e in events if e.kind == "model.progress"]
    assert progress  # streamed: the reply reached the call's progress as it came

    call = first.tool_calls[0]
    messages += [first, ToolMessage("print('hi')", tool_call_id=call["id"])]
    final = client.invoke(messages, tools=[read_file])

    assert final.content == "All done." and finish_reason(final) == "stop"
    sent = anthropic_server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    result = sent[2]["content"][0]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", call["id"])
    response = [e.data for e in events if e.kind == "model.response"]
    assert (response[0]["cached_tokens"], response[1]["prompt_tokens"]) == (4, 30)
    assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (41, 10)


def test_overloaded_is_retried_a_bad_key_is_not(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fail(529, "overloaded"), Reply("ok"))
    client, events = make_client(anthropic_server)
    assert client.invoke([HumanMessage("hi")]).content == "ok"
    retry = next(e for e in events if e.kind == "model.retry")
    assert "529" in retry.data["error"] and len(anthropic_server.requests) == 2

    anthropic_server.script(Fail(401, "invalid x-api-key"))
    with pytest.raises(ModelError, match="401"):
        client.invoke([HumanMessage("hi")])

    anthropic_server.default = Fail(500, "down")
    with pytest.raises(ModelUnreachable, match="gave up after 3 attempts"):
        make_client(anthropic_server)[0].invoke([HumanMessage("hi")])


def test_a_reply_cut_by_the_output_cap_says_length(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply("def f(", finish_reason="length"))
    client, _ = make_client(anthropic_server)
    assert finish_reason(client.invoke([HumanMessage("hi")], max_tokens=5)) == "length"
    assert anthropic_server.requests[0].body["max_tokens"] == 5


def test_a_stream_cut_mid_way_is_retried(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply("one two three four five", cut_after=4), Reply("whole"))
    client, events = make_client(anthropic_server)
    assert client.invoke([HumanMessage("hi")]).content == "whole"
    assert [e.kind for e in events].count("model.retry") == 1


def test_no_key_is_a_config_error(anthropic_server: AnthropicServer, monkeypatch) -> None:
    client, _ = make_client(anthropic_server, api_key_env=None)
    with pytest.raises(ConfigError, match="needs api_key_env"):
        client.invoke([HumanMessage("hi")])
    monkeypatch.delenv(KEY_VAR)
    with pytest.raises(ConfigError, match=f"{KEY_VAR} is not set"):
        make_client(anthropic_server)[0].invoke([HumanMessage("hi")])
    assert anthropic_server.requests == []


def test_api_key_never_reaches_the_debug_log(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    # a careless server echoing the key in an error: it lands in the model.retry event
    anthropic_server.script(Fail(500, f"upstream rejected key {KEY}"), Reply("ok"))
    client, _ = make_client(anthropic_server)
    log = JsonlLog(tmp_path / "debug.log", "run-1", Redactor(secret_values(os.environ)), 4000)
    client.bus.subscribe(log)

    client.invoke([HumanMessage("hi")])
    log.close()

    text = (tmp_path / "debug.log").read_text(encoding="utf-8")
    assert api_key(anthropic_server.requests[-1].headers) == KEY
    assert KEY not in text
    retry = next(json.loads(line) for line in text.splitlines() if '"model.retry"' in line)
    assert "***" in retry["error"]


@pytest.mark.slow
def test_the_cli_fixes_a_program_with_an_anthropic_model(
    tmp_path: Path, anthropic_server: AnthropicServer
) -> None:
    anthropic_server.default = Reply(whole_file("main.py", FIXED))
    work = workdir(tmp_path)
    profile = {"provider": "anthropic", "model": "claude-test", "base_url": anthropic_server.url}
    flags = [f"-o llm.profiles.claude.{k}={v}" for k, v in profile.items()]
    flags += [f"-o llm.profiles.claude.api_key_env={KEY_VAR}", "-o repair.enabled=false"]
    flags += ["-o sampling.candidates=0", "--profile claude"]
    args = [part for flag in flags for part in flag.split(" ", 1)]

    result = codur([*args, "fix @main.py"], work, env={KEY_VAR: KEY}, timeout=600)

    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "main.py").read_text() == FIXED
    assert api_key(anthropic_server.requests[0].headers) == KEY
    log = debug_log(work).read_text()
    assert KEY not in log and KEY not in result.stdout + result.stderr
    end = records(work)[-1]
    assert (end["event"], end["status"]) == ("run.end", "verified")


HIDE_ANTHROPIC = """import sys


class HideAnthropic:
    \"\"\"Imports of the `anthropic` extra fail, as where it is not installed.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"anthropic", "langchain_anthropic"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, HideAnthropic())
"""


@pytest.mark.slow
def test_without_the_extra_the_cli_names_it_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where `codur[anthropic]` is not installed, a run on an anthropic profile ends at
    once with exit code 7 (a missing extra) and one line naming the pip command; nothing
    in the folder changes."""
    monkeypatch.delenv(KEY_VAR)  # a CODUR_ variable would add a warning line
    hide = tmp_path / "site"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE_ANTHROPIC)
    work = workdir(tmp_path)
    profile = {"provider": "anthropic", "model": "claude-test", "api_key_env": "TEST_ANTHROPIC_KEY"}
    flags = [f"-o llm.profiles.claude.{k}={v}" for k, v in profile.items()]
    flags += ["-o repair.enabled=false", "-o sampling.candidates=0", "--profile claude"]
    args = [part for flag in flags for part in flag.split(" ", 1)]
    path = os.pathsep.join(p for p in (str(hide), os.environ.get("PYTHONPATH")) if p)

    env = {"TEST_ANTHROPIC_KEY": KEY, "PYTHONPATH": path}
    result = codur([*args, "fix @main.py"], work, env=env)

    ended(result, work, 7, "pip install 'codur[anthropic]'")
    assert "needs langchain_anthropic" in result.stderr or "needs anthropic" in result.stderr
    assert (work / "main.py").read_text() == BUGGY
