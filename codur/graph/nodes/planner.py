"""Planner (plan_verify mode): a short step plan for the task, which seeds the
todo list; the agent works through it next. One model call (prompts/step_plan.md); a
reply that lists no steps gives a one-step plan: the task itself."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.plans import adopt, agent_tools, draw
from codur.graph.state import AgentState
from codur.session import Session


@traced("planner")
def planner(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    task = state["task"]
    text = session.prompts.render(
        "step_planner",
        task=task,
        files=", ".join(state.get("context_files", {})) or "none",
        max_steps=session.config.planning.max_plan_steps,
        tool_instructions=agent_tools(state, session),
    )
    return adopt(draw(state, session, "planner", text, [" ".join(task.split())]), 1, session)
