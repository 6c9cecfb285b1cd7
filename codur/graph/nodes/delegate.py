"""Delegate: settle which agent runs the task (the planner's choice, else the default);
on the first round, with `repair.before_first_attempt`, check the files first."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import resolve
from codur.errors import ConfigError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("delegate")
def delegate(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    cfg = runtime.context.config
    default = cfg.agents.preferences.default_agent
    agent = state.get("selected_agent") or default
    try:
        resolve(agent, cfg)
    except ConfigError as exc:
        runtime.context.bus.emit(
            "delegate.fallback", requested=agent, error=str(exc), agent=default
        )
        resolve(default, cfg)  # a bad default agent is a config error: let it surface
        agent = default
    repair = cfg.repair
    first = not state.get("attempts") and not state.get("repairs_tried")
    search_first = repair.enabled and repair.before_first_attempt
    check_first = first and (search_first or not runtime.context.model_allowed)
    return {
        "selected_agent": agent,
        "agent_outcome": {"agent": agent, "status": "delegated"},
        "next_action": "verify" if check_first else "execute",
    }
