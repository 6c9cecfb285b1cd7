"""agent:ollama: the coding agent speaking to an Ollama server (a real HTTP server on
127.0.0.1 with /api/tags and /api/chat: fake_servers.OllamaServer), through
`python -m codur` and in process; unreachable or without the model, it cannot run and
the fallback takes over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_servers import OllamaServer, Reply, unused_port
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    debug_log,
    delegate_to,
    run_cli,
    run_in_process,
    whole_file,
)

from codur.agents.ollama import has_model
from codur.config import load_config
from codur.errors import AgentUnavailable


def agent_flags(host: str, model: str = "codellama:7b") -> list[str]:
    return [
        "agents.configs.ollama.type=ollama",
        f"agents.configs.ollama.host={host}",
        f"agents.configs.ollama.model={model}",
        "agents.preferences.default_agent=agent:ollama",
    ]


@pytest.mark.slow
def test_end_to_end_agent_ollama(tmp_path: Path, ollama_server: OllamaServer) -> None:
    """The planner (an Ollama profile) picks agent:ollama, whose own model on the same
    server sends the fix over /api/chat; Codur applies it and verifies."""
    ollama_server.models = ["qwen2.5-coder:1.5b", "codellama:7b"]
    ollama_server.script(Reply(delegate_to("agent:ollama")), Reply(whole_file("main.py", FIXED)))
    root = buggy_folder(tmp_path / "proj")
    args: list[str] = []
    for flag in [
        *agent_flags(ollama_server.url),
        "llm.profiles.planner.provider=ollama",
        f"llm.profiles.planner.base_url={ollama_server.url}",
        "llm.profiles.planner.model=qwen2.5-coder:1.5b",
        "repair.enabled=false",
    ]:
        args += ["-o", flag]
    done = run_cli([*args, "--profile", "planner", "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "main.py").read_text() == FIXED
    requests = [(r.method, r.path) for r in ollama_server.requests]
    assert requests == [("POST", "/api/chat"), ("GET", "/api/tags"), ("POST", "/api/chat")]
    agent_call = ollama_server.requests[2].body
    assert agent_call["model"] == "codellama:7b"  # the agent's model, not the planner's
    assert "Actual output:\n```\n6\n```" in agent_call["messages"][-1]["content"]
    events = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    responses = [e["profile"] for e in events if e["event"] == "model.response"]
    assert responses == ["planner", "agent:ollama"]


def test_unreachable_ollama_falls_back_to_the_coder(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "proj")
    host = f"http://127.0.0.1:{unused_port()}"
    overrides = [*agent_flags(host), "agents.preferences.fallback_order=[agent:coder]"]
    replies = [delegate_to("agent:ollama"), whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(root, replies, overrides=overrides)
    assert result.status == "verified" and (root / "main.py").read_text() == FIXED
    (switch,) = [e.data for e in events if e.kind == "agent.fallback"]
    assert (switch["agent"], switch["to"]) == ("agent:ollama", "agent:coder")
    assert switch["error"].startswith(f"agent:ollama cannot reach Ollama at {host} (")
    assert switch["error"].endswith(
        "install Ollama (https://ollama.com/download) and start it with `ollama serve`"
    )


def test_a_model_the_server_lacks_names_the_pull(
    tmp_path: Path, ollama_server: OllamaServer
) -> None:
    ollama_server.models = ["qwen2.5-coder:1.5b"]
    root = buggy_folder(tmp_path / "proj")
    with pytest.raises(AgentUnavailable) as err:
        run_in_process(
            root, [delegate_to("agent:ollama")], overrides=agent_flags(ollama_server.url)
        )
    assert str(err.value) == (
        f"agent:ollama: the Ollama server at {ollama_server.url} does not have the model "
        "codellama:7b: run `ollama pull codellama:7b`"
    )
    assert [r.path for r in ollama_server.requests] == ["/api/tags"]  # no chat was tried
    assert (root / "main.py").read_text() == BUGGY


def test_the_agent_profile_takes_host_and_model_over_its_base(tmp_path: Path) -> None:
    cfg = load_config(
        tmp_path,
        overrides=[
            "llm.profiles.ollama.context_window=16384",
            "agents.configs.big.type=ollama",
            "agents.configs.big.model=qwen2.5-coder:7b",
        ],
        environ={},
    ).config
    name, profile = cfg.profile("agent:big")
    assert name == "agent:big" and profile.provider == "ollama"
    assert (profile.base_url, profile.model) == ("http://127.0.0.1:11434", "qwen2.5-coder:7b")
    assert profile.context_window == 16384  # the rest from the `ollama` profile
    _, bare = cfg.profile("agent:ollama")  # the registered agent with no entry
    assert bare.model == "qwen2.5-coder:1.5b"


def test_model_names_match_as_ollama_lists_them() -> None:
    assert has_model(["qwen2.5-coder:latest"], "qwen2.5-coder")
    assert has_model(["qwen2.5-coder:1.5b"], "qwen2.5-coder:1.5b")
    assert not has_model(["qwen2.5-coder:1.5b"], "qwen2.5-coder")
