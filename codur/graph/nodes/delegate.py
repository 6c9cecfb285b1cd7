"""Delegate: settle which agent runs the task (the planner's choice, else the default),
resolved once (again only if a replanning chose another, or review handed the task to
the next agent after a failure: never back to an agent that failed); the nodes after it
use it. The first round checks the files before the agent runs (the one verification path: a
failure found there may go to the repair search first)."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.registry import resolve, resolve_offered
from codur.errors import ConfigError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("delegate")
def delegate(state: AgentState, runtime: Runtime[Session]) -> Command[Literal["execute", "verify"]]:
    cfg = runtime.context.config
    default = cfg.agents.preferences.default_agent
    agent = state.get("agent")
    wanted = state.get("selected_agent") or default
    if agent and wanted in state.get("agents_failed", []):  # never back to a failed one
        wanted = agent
    if not agent or wanted != agent:  # once a run, unless planning chose again
        try:
            fallbacks = cfg.agents.preferences.fallback_order  # review's successors
            agent = resolve_offered(wanted, cfg, fallbacks).reference
        except ConfigError as exc:
            runtime.context.bus.emit(
                "delegate.fallback", requested=wanted, error=str(exc), agent=default
            )
            agent = resolve(default, cfg).reference  # a bad default agent: a config error
    first = not state.get("attempts") and not state.get("repair_searches")
    update = {"agent": agent, "selected_agent": agent, "outcome": None}
    return Command(update=update, goto="verify" if first else "execute")
