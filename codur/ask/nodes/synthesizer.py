"""synthesizer: the markdown answer from the findings, citing `path:line`."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from codur.ask.nodes import ask_config, client, evidence, traced
from codur.ask.state import AskState
from codur.resources import prompt
from codur.session import Session


@traced("synthesizer")
def synthesizer(state: AskState, runtime: Runtime[Session]) -> dict:
    cfg = ask_config(runtime)
    text = prompt("ask_synthesize.md").format(
        question=state["question"],
        findings=evidence(state, cfg.max_finding_chars),
    )
    reply = client(runtime).invoke([SystemMessage(text), HumanMessage(state["question"])])
    return {"answer": str(reply.content).strip()}
