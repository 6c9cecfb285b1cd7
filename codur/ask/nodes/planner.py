"""planner: the research steps for the question (or the rest of the current plan)."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from codur.ask.nodes import ask_config, asked, client, evidence, traced
from codur.ask.parse import fallback_plan, parse_plan
from codur.ask.state import AskState
from codur.session import Session

REPLAN = "Steps already ran (see the findings): plan only what is still missing to answer.\n"


@traced("planner")
def planner(state: AskState, runtime: Runtime[Session]) -> dict:
    """Keep the current plan while steps of it remain; else ask the model for a plan
    (a re-plan after the first round targets what the findings still lack). A reply
    that is no list of steps falls back to one search step."""
    cfg = ask_config(runtime)
    bus = runtime.context.bus
    iterations = state.get("iterations", 0) + 1
    plan, step = state.get("plan") or [], state.get("current_step", 0)
    if step < len(plan):
        bus.emit("ask.plan", steps=plan[step:], kept=True, fallback=False)
        return {"iterations": iterations}
    findings = state.get("findings") or {}
    text = runtime.context.prompts.render(
        "ask_planner",
        max_steps=cfg.max_plan_steps,
        replan=REPLAN if findings else "",
        question=state["question"],
        findings=evidence(state, cfg.max_finding_chars),
    )
    reply = client(runtime).invoke([SystemMessage(text), HumanMessage(asked(state, runtime))])
    steps = parse_plan(str(reply.content), cfg.max_plan_steps)
    fallback = steps is None
    if steps is None:
        steps = fallback_plan(state["question"])
    bus.emit("ask.plan", steps=steps, kept=False, fallback=fallback)
    return {"plan": steps, "current_step": 0, "iterations": iterations, "plan_fallback": fallback}
