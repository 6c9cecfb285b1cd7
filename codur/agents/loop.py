"""The model <-> tools loop: an agent's (the execute step's subgraph) and ask's research
step alike, as LangGraph nodes.

    agent --route--> tools --after_tools--> agent ...
          \\--route--> remind --> agent          \\--after_tools--> done
          \\--route--> done

`agent` calls the model once with the prompt and the turns so far; `route` (pure) looks
at its last reply: tool calls and rounds left -> `tools`, else `done`; `tools` runs the
calls through the registry and adds one result per call. A failing tool (a ToolError, a
refused path, an exception) is a result with status "error" that the model reads: the
loop goes on; a tool the turn did not offer is refused the same way (`Turn.refusal`). At
most `Turn.max_rounds` rounds of tools; a reply that still calls tools after the last
round ends the loop, and `hit_cap` says so.

With `Turn.completion` (plan_verify mode) `attempt_completion` is the only way
out: a reply without tool calls goes to `remind` (a reminder turn, counted as a round)
and back to the agent; `after_tools` (pure) ends the loop once an attempt_completion call
succeeded. There `max_rounds` bounds the agent's replies (each followed by tools or a
reminder): a loop that runs out of them ends without a completion. The task's todo list
(`todos`) is put on the tool context before a round of tools and taken back after.

Models without native tool calling (`Turn.native` false) write their calls as text: they
are read from the reply (`detect_tool_calls`) into the same `tool_calls`, and the turns
are shown to the model as text (`model_view`). The embedded model calls tools natively
through constrained decoding (`codur.models.local`).

`add_loop` adds the nodes to a graph under the names and the tracing its user gives
(the execute step: agent / tools / remind; ask: executor_llm / tool_node, no completion);
`build_loop()` is the loop on its own (used by `CoderAgent.propose`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from codur.agents.loop_routes import after_tools, last_reply, route
from codur.agents.turn import LoopState, Turn
from codur.errors import ApprovalRequired
from codur.session import Session

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

Node = Callable[[Any, Runtime[Session]], Any]
Tracing = Callable[[str], Callable[[Node], Node]]


@dataclass(frozen=True)
class LoopNodes:
    """The loop's node names in the graph that holds it."""

    agent: str = "agent"
    tools: str = "tools"
    remind: str = "remind"


def agent(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """One model call on the prompt and the turns so far; the reply (its tool calls read
    from the text for a model without native tools)."""
    from codur.agents.tool_detection import detect_tool_calls

    session, turn = runtime.context, state["turn"]
    turns = state.get("turns", [])
    client = session.client(turn.profile)
    variation = session.usage.calls if turns and turn.vary else turn.sample
    reply = client.invoke(
        [*turn.prompt, *model_view(turns, turn.native)],
        tools=list(turn.bound),
        **client.sampling(variation),
        max_tokens=turn.budget,
        stop=turn.stop,
    )
    text = reply.content if isinstance(reply.content, str) else str(reply.content)
    if not reply.tool_calls and turn.names and turn.detect_from_text:
        found = detect_tool_calls(text, list(turn.names))
        if found:
            calls = [
                {"name": c["name"], "args": c["args"], "id": f"text_{len(turns)}_{i}"}
                for i, c in enumerate(found)
            ]
            meta = {**reply.response_metadata, "calls_from_text": True}
            reply = AIMessage(text, tool_calls=calls, response_metadata=meta)
    if reply.invalid_tool_calls:  # told, not dropped
        reply = _unreadable_calls(reply)
    return {"turns": [reply]}


UNREADABLE = "unreadable_calls"
"""A reply's metadata key: its calls whose arguments could not be read, by id."""


def _unreadable_calls(reply: AIMessage) -> AIMessage:
    """`reply` with its calls whose arguments are no JSON object (the provider's
    `invalid_tool_calls`) among its calls, each answered with what was wrong (`tools`);
    its content, usage and id as they were."""
    calls, unreadable = [], {}
    for n, call in enumerate(reply.invalid_tool_calls):
        key = call.get("id") or f"unreadable_{n}"
        calls.append({"name": call.get("name") or "unnamed", "args": {}, "id": key})
        why = call.get("error") or "not valid JSON"
        unreadable[key] = (why, str(call.get("args") or "")[:200])
    meta = {**reply.response_metadata, UNREADABLE: unreadable}
    update = {"tool_calls": [*reply.tool_calls, *calls], "invalid_tool_calls": []}
    return reply.model_copy(update={**update, "response_metadata": meta})


def tools(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Run the last reply's tool calls through the registry: one ToolMessage a call,
    status "error" for a failure (the model reads it and goes on)."""
    session = runtime.context
    reply = last_reply(state["turns"])
    assert reply is not None and reply.tool_calls  # route sends only such a reply here
    ctx = session.tool_context()
    todos = list(state.get("todos", []))
    ctx.todos = list(todos)  # the state's list, for todo_write / todo_read
    unreadable = reply.response_metadata.get(UNREADABLE) or {}
    results = [
        _told(c, unreadable[c["id"]], state["turn"])
        if c["id"] in unreadable
        else run_call(c, session, state["turn"])
        for c in reply.tool_calls
    ]
    update: dict[str, Any] = {"turns": results, "loop_rounds": state.get("loop_rounds", 0) + 1}
    if ctx.todos != todos:
        update["todos"] = list(ctx.todos)
    return update


def remind(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """A reply without tool calls where attempt_completion is the only way out: tell the
    model so, and give it another round."""
    rounds, session = state.get("loop_rounds", 0), runtime.context
    session.bus.emit("agent.reminded", round=rounds)
    reminder = HumanMessage(session.prompts.render("completion_reminder"))
    return {"turns": [reminder], "loop_rounds": rounds + 1}


def _told(call: dict[str, Any], problem: tuple[str, str], turn: Turn) -> ToolMessage:
    error, raw = problem
    text = turn.unreadable.format(name=call["name"], error=error, raw=repr(raw))
    return ToolMessage(text, tool_call_id=call["id"], name=call["name"], status="error")


def run_call(call: dict[str, Any], session: Session, turn: Turn) -> ToolMessage:
    """Run one call of the reply; a tool the turn did not offer is refused (its result
    says which it may call), never run."""
    from codur.tools.registry import invoke

    name, offered = call["name"], turn.names
    if name not in offered:
        session.bus.emit("tool.refused", tool=name, offered=list(offered))
        listed = ", ".join(offered) or "none"
        return ToolMessage(
            turn.refusal.format(name=name, tools=listed),
            tool_call_id=call["id"],
            name=name,
            status="error",
        )
    try:
        result = invoke(name, call["args"], session.tool_context())
        ok, output = result.ok, result.output
    except (ApprovalRequired, GraphBubbleUp):
        raise  # nobody can approve it / an interrupt: not an observation
    except Exception as exc:  # noqa: BLE001 - a tool's bug is the model's observation
        session.bus.emit("tool.error", tool=name, error=f"{type(exc).__name__}: {exc}")
        ok, output = False, f"{name} failed: {type(exc).__name__}: {exc}"
    return ToolMessage(
        output, tool_call_id=call["id"], name=name, status="success" if ok else "error"
    )


def model_view(turns: list[BaseMessage], native: bool) -> list[BaseMessage]:
    """The turns as the model reads them: as they are with native tools; else each reply
    as its text and the results of its calls as one user turn."""
    if native:
        return list(turns)
    out: list[BaseMessage] = []
    results: list[str] = []
    for msg in turns:
        if isinstance(msg, ToolMessage):
            state = "ok" if msg.status == "success" else "error"
            results.append(f"Result of {msg.name} ({state}):\n{msg.content}")
            continue
        if results:
            out.append(HumanMessage("\n\n".join(results)))
            results = []
        text = msg.content if isinstance(msg.content, str) else str(msg.content)
        out.append(AIMessage(text) if isinstance(msg, AIMessage) else msg)
    if results:
        out.append(HumanMessage("\n\n".join(results)))
    return out


def round_span(name: str) -> Callable[[Node], Node]:
    """The execute step's tracing of a loop node: node.start / node.end with its round."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: Any, runtime: Runtime[Session]) -> Any:
            rounds = state.get("loop_rounds", 0)
            with runtime.context.bus.span("node", node=name, round=rounds):
                return func(state, runtime)

        return node

    return wrap


def add_loop(
    graph: StateGraph,
    done: str,
    names: LoopNodes = LoopNodes(),
    trace: Tracing = round_span,
    completion: bool = True,
) -> None:
    """Add the loop's nodes to `graph` (whose state has LoopState's keys), each wrapped
    by `trace(name)`: `names.agent` is entered from outside; a reply without tool calls
    (or past the round limit), or a successful attempt_completion where it is the way
    out, goes to `done`. `completion` false: a loop without that way out (no remind
    node; its turns must not be completion turns)."""

    def add(name: str, func: Node) -> None:
        # the graph's whole state in, so `trace` can tag what that graph tracks (ask's
        # iteration); from the bare function LangGraph would pass LoopState's keys only
        graph.add_node(name, trace(name)(func), input_schema=graph.state_schema)

    add(names.agent, agent)
    add(names.tools, tools)
    ways = {"tools": names.tools, "done": done}
    if completion:
        add(names.remind, remind)
        graph.add_edge(names.remind, names.agent)
        ways["remind"] = names.remind
        graph.add_conditional_edges(names.tools, after_tools, {"agent": names.agent, "done": done})
    else:
        graph.add_edge(names.tools, names.agent)
    graph.add_conditional_edges(names.agent, route, ways)


def build_loop() -> CompiledStateGraph:
    """The loop on its own: the turn in, the turns out."""
    graph = StateGraph(LoopState, context_schema=Session)
    add_loop(graph, END)
    graph.add_edge(START, "agent")
    return graph.compile()


def run_loop(turn: Turn, session: Session) -> list[BaseMessage]:
    """Run the loop for `turn`; the turns (the last is the final reply)."""
    limit = 2 * turn.max_rounds + 5
    state = build_loop().invoke({"turn": turn}, {"recursion_limit": limit}, context=session)
    return list(state.get("turns", []))
