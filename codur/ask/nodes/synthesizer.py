"""synthesizer: the markdown answer from the retrieved code and the findings, citing
`path:line`, each part of a multi-part question under its own heading; definitions it
names in backticks without a location get one from the code index (ground.py)."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from codur.ask.ground import ground
from codur.ask.nodes import ask_config, asked, client, evidence, traced
from codur.ask.state import AskState
from codur.session import Session
from codur.tools.code import code_index


@traced("synthesizer")
def synthesizer(state: AskState, runtime: Runtime[Session]) -> dict:
    cfg = ask_config(runtime)
    prompts = runtime.context.prompts
    parts = state.get("parts") or []
    listed = "\n".join(f"{n}. {part}" for n, part in enumerate(parts, 1))
    text = prompts.render(
        "ask_synthesizer",
        question=state["question"],
        parts=prompts.render("ask_parts", count=len(parts), parts=listed) if len(parts) > 1 else "",
        findings=evidence(state, cfg.max_finding_chars),
    )
    reply = client(runtime).invoke([SystemMessage(text), HumanMessage(asked(state, runtime))])
    session = runtime.context
    answer, added = ground(
        str(reply.content).strip(),
        code_index(session.tool_context()),
        set(state.get("files_read") or []),
    )
    if added:
        session.bus.emit("ask.grounded", added=added)
    return {"answer": answer}
