"""synthesizer: the markdown answer from the retrieved code and the findings, citing
`path:line`; definitions it names in backticks without a location get one from the code
index (ground.py).

A question of several parts (each asks something: `codur.ask.parts`) is answered part
by part, one call each under a heading of its own, every call from the same evidence (a
later part may say "it" for an earlier one's subject): a small model asked for every part
in one reply left one part uncited in 4 of 6 two-part questions (bench/ask.py). The
evidence comes before the question in the prompt, so the calls share its prefix and
the embedded model evaluates it once. Each part's answer is tidied (`codur.ask.tidy`): a
paragraph written again is dropped, and an answer citing no location gets the locations
the search retrieved for its part."""

from __future__ import annotations

from collections.abc import Iterator

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from codur.ask.ground import ground
from codur.ask.nodes import ask_config, asked, client, evidence, traced
from codur.ask.state import AskState
from codur.ask.tidy import with_sources, without_repeats
from codur.session import Session
from codur.tools.code import code_index


@traced("synthesizer")
def synthesizer(state: AskState, runtime: Runtime[Session]) -> dict:
    session = runtime.context
    parts = state.get("parts") or []
    sources = state.get("sources") or []
    index = code_index(session.tool_context())
    read = set(state.get("files_read") or [])
    asks = [(state["question"], "")] if len(parts) < 2 else list(_focused(parts, state, runtime))
    sections, grounded = [], 0
    for n, (question, focus) in enumerate(asks):
        text, added = ground(without_repeats(_answer(state, runtime, question, focus)), index, read)
        grounded += added
        text = with_sources(text, sources[n] if n < len(sources) else [])
        sections.append(f"### {n + 1}. {question}\n\n{text}" if focus else text)
    if grounded:
        session.bus.emit("ask.grounded", added=grounded)
    return {"answer": "\n\n".join(sections)}


def _focused(
    parts: list[str], state: AskState, runtime: Runtime[Session]
) -> Iterator[tuple[str, str]]:
    """Each part, and the text telling the answer call which part of the question it is."""
    for n, part in enumerate(parts, 1):
        yield (
            part,
            runtime.context.prompts.render(
                "ask_part", n=n, count=len(parts), question=state["question"]
            ),
        )


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
