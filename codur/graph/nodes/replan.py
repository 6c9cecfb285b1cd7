"""Replan (plan_verify mode): the last plan's work was not accepted (the model
verifier said NOT_VERIFIED, or a check failed); one model call (prompts/replan.md) makes
an improved plan from the reasons and the execution trace. The plan iteration goes up and
the agent starts on the new plan; review's table ends the run before a plan past
planning.max_plan_iterations. A reply that lists no steps keeps the last plan."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.plans import adopt, agent_tools, draw, render
from codur.graph.state import AgentState
from codur.graph.transcript import transcript
from codur.session import Session


@traced("replan")
def replan(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    iteration = state.get("plan_iteration", 1)
    previous = list(state.get("plan", []))
    reasons = state.get("replan_reasons", []) or ["no reason was given"]
    text = session.prompts.render(
        "replanner",
        task=state["task"],
        iteration=iteration,
        previous_plan=render(previous, iteration).split("\n", 1)[-1],
        verification_feedback="\n".join(f"- {r}" for r in reasons),
        trace_section=transcript(state, session),
        max_steps=session.config.planning.max_plan_steps,
        tool_instructions=agent_tools(state, session),
    )
    steps = draw(state, session, "replan", text, previous or [" ".join(state["task"].split())])
    return adopt(steps, iteration + 1, session, reasons=reasons)
