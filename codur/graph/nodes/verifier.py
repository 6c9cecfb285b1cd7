"""Verifier (plan_verify mode): one model call judges the agent's completion
against the task and the execution trace (codur.graph.transcript), and returns VERIFIED
or NOT_VERIFIED with reasons (prompts/verify_answer.md; read strictly by
codur.planning.verdict: an unreadable reply is NOT_VERIFIED, saying so).

It is asked only when no check Codur ran fails (review's table), and its VERIFIED never
outranks a check: the run is `verified` (or `checked`) only when a behavioural check passed
too."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.graph.transcript import transcript
from codur.planning.verdict import parse_verdict
from codur.session import Session


@traced("verifier")
def verifier(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    outcome = state.get("outcome")
    iteration = state.get("plan_iteration", 0)
    answer = (outcome.reply.strip() if outcome is not None else "") or "(no answer)"
    room = session.config.planning.verifier_trace_chars // 3  # a reply with whole files
    if len(answer) > room:
        answer = f"{answer[:room]}\n[... cut: {len(answer) - room} more characters]"
    text = session.prompts.render(
        "verifier", task=state["task"], answer=answer, trace_section=transcript(state, session)
    )
    reply = session.client().invoke([HumanMessage(text)])
    content = reply.content if isinstance(reply.content, str) else str(reply.content)
    verdict = parse_verdict(content, iteration)
    session.bus.emit(
        "verifier.verdict",
        verdict=verdict.verdict,
        reasons=list(verdict.reasons),
        plan_iteration=iteration,
    )
    return {"verifier_verdict": verdict}
