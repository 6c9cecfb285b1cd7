"""The ReAct executor of one research step: setup_executor fills a fresh message buffer,
executor_llm <-> tool_node loop (at most ask.max_executor_steps model calls), aggregate
stores what was found under the step and clears the buffer (RemoveMessage).

Only read-only tools are offered, and tool_node refuses any other: an answer never edits.
"""

from __future__ import annotations

import json
from typing import Literal

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.tool_detection import detect_tool_calls
from codur.ask.nodes import ask_config, client, evidence, traced
from codur.ask.reads import mentioned_files, strings
from codur.ask.state import AskState
from codur.session import Session
from codur.tools.registry import all_tools, invoke

ASK_TOOLS = (
    "search_codebase",
    "get_callers",
    "get_callees",
    "read_file",
    "list_files",
    "grep_files",
)
"""The executor's tools: search, the call graph and reading; none writes."""


def clear(messages: list[AnyMessage]) -> list[RemoveMessage]:
    return [RemoveMessage(id=m.id) for m in messages if m.id]


def _specs() -> list:
    tools = all_tools()
    return [tools[name] for name in ASK_TOOLS if name in tools and not tools[name].writes]


@traced("setup_executor")
def setup_executor(state: AskState, runtime: Runtime[Session]) -> dict:
    """A fresh buffer for the next step: the task context and the step."""
    cfg = ask_config(runtime)
    plan, step = state.get("plan") or [], state.get("current_step", 0)
    instruction = plan[step] if step < len(plan) else "No more steps to execute"
    system = runtime.context.prompts.render(
        "ask_executor",
        question=state["question"],
        findings=evidence(state, cfg.max_finding_chars),
    )
    if not client(runtime).profile.native_tools:
        lines = "\n".join(f"- {s.usage}: {s.description}" for s in _specs())
        calls = runtime.context.prompts.render("tool_text_calls")
        system += f"\n\n## Available tools\n{lines}\n\n{calls}"
    runtime.context.bus.emit("ask.step", step=step + 1, of=len(plan), instruction=instruction)
    fresh = [SystemMessage(system), HumanMessage(instruction)]
    return {"messages": [*clear(state.get("messages") or []), *fresh], "executor_calls": 0}


def _as_text(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The buffer for a model without native tool calling: calls and results as text."""
    out: list[AnyMessage] = []
    for m in messages:
        if isinstance(m, AIMessage) and m.tool_calls:
            calls = [{"tool": c["name"], "args": c["args"]} for c in m.tool_calls]
            out.append(AIMessage(f"{m.content}\n{json.dumps(calls)}".strip()))
        elif isinstance(m, ToolMessage):
            out.append(HumanMessage(f"Result of {m.name}:\n{m.content}"))
        else:
            out.append(m)
    return out


@traced("executor_llm")
def executor_llm(
    state: AskState, runtime: Runtime[Session]
) -> Command[Literal["tool_node", "aggregate"]]:
    """One model call of the step; its tool calls go to tool_node while the step's
    model calls are under ask.max_executor_steps, else the step ends (aggregate)."""
    cfg = ask_config(runtime)
    model = client(runtime)
    messages = state.get("messages") or []
    specs = _specs()
    if model.profile.native_tools:
        reply = model.invoke(messages, [s.structured_tool for s in specs])
        calls = [
            {"name": c["name"], "args": c["args"], "id": c.get("id") or f"call_{n}"}
            for n, c in enumerate(reply.tool_calls)
        ]
    else:
        reply = model.invoke(_as_text(messages))
        found = detect_tool_calls(str(reply.content), [s.name for s in specs])
        calls = [
            {"name": c["name"], "args": c["args"], "id": f"text_{n}"} for n, c in enumerate(found)
        ]
    message = AIMessage(content=reply.content, tool_calls=calls)
    count = state.get("executor_calls", 0) + 1
    go = "tool_node" if calls and count < cfg.max_executor_steps else "aggregate"
    return Command(update={"messages": [message], "executor_calls": count}, goto=go)


@traced("tool_node")
def tool_node(state: AskState, runtime: Runtime[Session]) -> dict:
    """Run the last reply's tool calls through the registry, one after the other; a tool
    that is not offered (any that writes) is refused, and the model reads why. The files
    the calls named or returned are recorded (`files_read`: the answer cache's key)."""
    last = (state.get("messages") or [])[-1]
    ctx = runtime.context.tool_context()
    offered = {s.name for s in _specs()}
    results = []
    read = set(state.get("files_read") or [])
    ws, config = runtime.context.ws, runtime.context.config
    log = [ws.relative(config.log_path(ws.root))] if config.log.enabled else []
    for call in getattr(last, "tool_calls", []):
        if call["name"] in offered:
            output = invoke(call["name"], call["args"], ctx).output
            read |= mentioned_files([*strings(call["args"]), output], ws, log)
        else:
            output = (
                f"{call['name']} is not available when answering a question (answers never "
                f"change files). Tools: {', '.join(sorted(offered))}"
            )
        results.append(ToolMessage(output, tool_call_id=call["id"], name=call["name"]))
    return {"messages": results, "files_read": sorted(read)}


@traced("aggregate")
def aggregate(state: AskState, runtime: Runtime[Session]) -> dict:
    """Store the step's tool results and the executor's summary as its findings, clear
    the buffer and advance to the next step."""
    messages = state.get("messages") or []
    parts = []
    for m in messages:
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
    return {"findings": findings, "current_step": step + 1, "messages": clear(messages)}
