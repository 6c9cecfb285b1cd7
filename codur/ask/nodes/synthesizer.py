"""synthesizer: the markdown answer from the retrieved code and the findings, citing
`path:line`; definitions it names in backticks without a location get one from the code
index (ground.py).

A question of several parts (each asks something: `codur.ask.parts`) is answered part
by part, one call each under a heading of its own, every call from the same evidence (a
later part may say "it" for an earlier one's subject): a small model asked for every part
in one reply left one part uncited in 4 of 6 two-part questions (bench/ask.py). The
evidence comes before the question in the prompt, so the calls share its prefix and
the embedded model evaluates it once."""

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
    parts = state.get("parts") or []
    if len(parts) < 2:
        text = _answer(state, runtime, state["question"], "")
    else:
        sections = []
        for n, part in enumerate(parts, 1):
            focus = runtime.context.prompts.render(
                "ask_part", n=n, count=len(parts), question=state["question"]
            )
            sections.append(f"### {n}. {part}\n\n{_answer(state, runtime, part, focus)}")
        text = "\n\n".join(sections)
    session = runtime.context
    index = code_index(session.tool_context())
    answer, added = ground(text, index, set(state.get("files_read") or []))
    if added:
        session.bus.emit("ask.grounded", added=added)
    return {"answer": answer}


def _answer(state: AskState, runtime: Runtime[Session], question: str, focus: str) -> str:
    """One answer call: `question` (the question, or one part of it, `focus` saying which)
    from the evidence gathered in `state`."""
    prompt = runtime.context.prompts.render(
        "ask_synthesizer",
        question=question,
        parts=focus,
        findings=evidence(state, ask_config(runtime).max_finding_chars),
    )
    human = asked({**state, "question": question}, runtime)
    reply = client(runtime).invoke([SystemMessage(prompt), HumanMessage(human)])
    return str(reply.content).strip()
