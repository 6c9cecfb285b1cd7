"""refinery: enough to answer (FINISH -> synthesizer) or more research (CONTINUE ->
planner), with a reason. The iteration cap forces FINISH before any model call."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.ask.nodes import ask_config, client, evidence, traced
from codur.ask.parse import fallback_decision, parse_decision
from codur.ask.state import AskState
from codur.session import Session


@traced("refinery")
def refinery(
    state: AskState, runtime: Runtime[Session]
) -> Command[Literal["planner", "synthesizer"]]:
    cfg = ask_config(runtime)
    plan, step = state.get("plan") or [], state.get("current_step", 0)
    iterations = state.get("iterations", 0)
    if iterations >= cfg.max_iterations:
        decision, reason = "FINISH", f"ask.max_iterations ({cfg.max_iterations}) reached"
    else:
        text = runtime.context.prompts.render(
            "ask_refinery",
            done=step,
            total=len(plan),
            question=state["question"],
            findings=evidence(state, cfg.max_finding_chars),
        )
        reply = client(runtime).invoke([SystemMessage(text), HumanMessage("Decide.")])
        decision, reason = parse_decision(str(reply.content)) or fallback_decision(step, len(plan))
    runtime.context.bus.emit("ask.decision", decision=decision, reason=reason)
    return Command(
        update={"decision": decision, "decision_reason": reason},
        goto="planner" if decision == "CONTINUE" else "synthesizer",
    )
