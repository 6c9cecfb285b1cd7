"""The executor of one research step: setup_executor starts a fresh turn of the model
<-> tools loop (codur.agents.loop, wired in as executor_llm <-> tool_node), aggregate
stores what the step found under it and clears the turns (RemoveMessage).

The step's own rules: at most ask.max_executor_steps model calls (the loop's rounds of
tools are one fewer); only read-only tools are offered, and any other call is refused
with a reason the model reads: an answer never edits.
"""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime

from codur.agents.loop import LoopNodes
from codur.agents.turn import Turn
from codur.ask.nodes import ask_config, client, evidence, traced
from codur.ask.reads import mentioned_files, strings
from codur.ask.state import AskState
from codur.session import Session
from codur.tools.registry import ToolSpec, all_tools

ASK_TOOLS = (
    "search_codebase",
    "get_callers",
    "get_callees",
    "read_file",
    "list_files",
    "grep_files",
)
"""The executor's tools: search, the call graph and reading; none writes."""

NODES = LoopNodes(agent="executor_llm", tools="tool_node")
"""The loop's nodes in the ask graph."""

REFUSAL = (
    "{name} is not available when answering a question (answers never change files). Tools: {tools}"
)


def clear(messages: list[AnyMessage]) -> list[RemoveMessage]:
    return [RemoveMessage(id=m.id) for m in messages if m.id]


def _specs() -> list[ToolSpec]:
    tools = all_tools()
    return [tools[name] for name in ASK_TOOLS if name in tools and not tools[name].writes]


@traced("setup_executor")
def setup_executor(state: AskState, runtime: Runtime[Session]) -> dict:
    """A fresh turn for the next step: the task context and the step, the read-only
    tools, ask.max_executor_steps model calls."""
    session, cfg = runtime.context, ask_config(runtime)
    plan, step = state.get("plan") or [], state.get("current_step", 0)
    instruction = plan[step] if step < len(plan) else "No more steps to execute"
    system = session.prompts.render(
        "ask_executor",
        question=state["question"],
        findings=evidence(state, cfg.max_finding_chars),
    )
    specs = _specs()
    native = client(runtime).profile.native_tools
    if not native:
        lines = "\n".join(f"- {s.usage}: {s.description}" for s in specs)
        calls = session.prompts.render("tool_text_calls")
        system += f"\n\n## Available tools\n{lines}\n\n{calls}"
    session.bus.emit("ask.step", step=step + 1, of=len(plan), instruction=instruction)
    turn = Turn(
        profile=cfg.profile,
        prompt=(SystemMessage(system), HumanMessage(instruction)),
        names=tuple(s.name for s in specs),
        bound=tuple(s.structured_tool for s in specs) if native else (),
        native=native,
        budget=None,
        vary=False,
        max_rounds=cfg.max_executor_steps - 1,
        detect_from_text=session.config.runtime.detect_tool_calls_from_text,
        refusal=REFUSAL,
    )
    return {"turn": turn, "turns": clear(state.get("turns") or []), "loop_rounds": 0}


def files_named(turn: Turn, turns: list[BaseMessage], runtime: Runtime[Session]) -> set[str]:
    """The workspace files the step's offered tool calls named or returned."""
    ws, config = runtime.context.ws, runtime.context.config
    log = [ws.relative(config.log_path(ws.root))] if config.log.enabled else []
    texts: list[str] = []
    for m in turns:
        if isinstance(m, AIMessage):
            texts += [
                s for c in m.tool_calls if c["name"] in turn.names for s in strings(c["args"])
            ]
        elif isinstance(m, ToolMessage) and m.name in turn.names:
            texts.append(str(m.content))
    return mentioned_files(texts, ws, log)


@traced("aggregate")
def aggregate(state: AskState, runtime: Runtime[Session]) -> dict:
    """Store the step's tool results and the executor's summary as its findings, the
    files its tools read (`files_read`: the answer cache's key), clear the turns and
    advance to the next step."""
    turns = state.get("turns") or []
    parts = []
    for m in turns:
        if isinstance(m, ToolMessage):
            parts.append(f"[{m.name}]\n{m.content}")
        elif isinstance(m, AIMessage) and not m.tool_calls and str(m.content).strip():
            parts.append(str(m.content).strip())
    plan, step = state.get("plan") or [], state.get("current_step", 0)
    findings = dict(state.get("findings") or {})
    description = plan[step] if step < len(plan) else "extra step"
    findings[f"step_{len(findings) + 1}: {description}"] = (
        "\n---\n".join(parts) if parts else "No results found"
    )
    read = set(state.get("files_read") or []) | files_named(state["turn"], turns, runtime)
    return {
        "findings": findings,
        "current_step": step + 1,
        "turns": clear(turns),
        "files_read": sorted(read),
    }
