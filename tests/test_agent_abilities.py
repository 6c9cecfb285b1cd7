"""What an agent can do besides `run` it declares (`AgentBackend.loops`,
`AgentBackend.proposes`); nothing probes for methods. The declarations must agree with what
each agent has."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.agents.registry import can_sample, registered, resolve
from codur.config import load_config

LOOPS_AND_PROPOSES = {"coder": (True, True), "ollama": (True, True)}
"""The model-driven agents; the CLI agents (codex, claude_code) do neither."""


@pytest.mark.parametrize("name", sorted(registered()))
def test_each_agent_declares_its_abilities_and_has_them(name: str, tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={}).config
    agent = resolve(f"agent:{name}", cfg).build()
    assert (agent.loops, agent.proposes) == LOOPS_AND_PROPOSES.get(name, (False, False))
    assert can_sample(f"agent:{name}", cfg) is agent.proposes
    for method in ("start", "settle"):  # codur.agents.loop.LoopAgent
        assert callable(getattr(agent, method, None)) is agent.loops, method
    assert callable(getattr(agent, "propose", None)) is agent.proposes
