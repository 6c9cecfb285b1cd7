"""The agent loop: an agent's model <-> tools loop as a LangGraph subgraph.

    agent --route--> tools --after_tools--> agent ...
          \\--route--> remind --> agent          \\--after_tools--> done
          \\--route--> done

`agent` calls the model once with the prompt and the turns so far; `route` (pure) looks
at its last reply: tool calls and rounds left -> `tools`, else `done`; `tools` runs the
calls through the registry and adds one result per call. A failing tool (a ToolError, a
refused path, an exception) is a result with status "error" that the model reads: the
loop goes on. At most `Turn.max_rounds` (runtime.max_tool_iterations) rounds of tools;
a reply that still calls tools after the last round ends the loop, and `hit_cap` says so.

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

`build_loop()` is the loop on its own (used by `CoderAgent.propose`); the graph's
`execute` step adds the same nodes with `add_loop` between its own start and finish.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime

from codur.errors import ApprovalRequired
from codur.session import Session
from codur.tools.todo import TodoItem

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

    from codur.agents.registry import AgentRequest, AgentResult


class LoopAgent(Protocol):
    """An agent whose model <-> tools loop runs in the graph: it prepares the turn, the
    loop runs, and it settles the result from the turns (its reply read, its edits
    written)."""

    def start(self, request: AgentRequest, session: Session) -> Turn: ...

    def settle(self, turn: Turn, turns: list[BaseMessage], session: Session) -> AgentResult: ...


@dataclass(frozen=True)
class Turn:
    """One attempt's model call, fixed before the loop: the prompt, the tools offered and
    how, the reply's token budget; and what the agent needs to settle it."""

    profile: str | None
    prompt: tuple[BaseMessage, ...]
    """The system message and the task (files, failure, earlier attempts)."""
    names: tuple[str, ...] = ()
    """The tools the model is offered (none: one model call, no loop)."""
    bound: tuple[Any, ...] = ()
    """LangChain tools bound natively (empty when calls are read from text)."""
    native: bool = True
    budget: int = 2048
    stop: tuple[str, ...] = ()
    """Stop sequences: where the reply has a natural end (codur.agents.reply_shape)."""
    sample: int = 0
    """The first call's sampling (0: the profile's own); later calls vary."""
    max_rounds: int = 5
    detect_from_text: bool = True
    request: AgentRequest | None = None
    edit_format: str = "whole_file"
    written_before: frozenset[str] = frozenset()
    owner: LoopAgent | None = field(default=None, compare=False)
    """The agent that started the turn and settles it."""
    completion: bool = False
    """attempt_completion is the only way out of the loop (plan_verify mode, tools
    offered): a reply without a tool call gets a reminder and another round."""


class LoopState(TypedDict, total=False):
    turn: Turn
    turns: Annotated[list[AnyMessage], add_messages]
    """The loop's conversation after the prompt: replies and tool results."""
    loop_rounds: int
    """Rounds of tools (and reminders) run so far."""
    todos: list[TodoItem]
    """The task's todo list (plan_verify mode): todo_write changes it."""


def last_reply(turns: list[BaseMessage]) -> AIMessage | None:
    return next((m for m in reversed(turns) if isinstance(m, AIMessage)), None)


def route(state: LoopState) -> Literal["tools", "remind", "done"]:
    """Tools while the last reply calls them and rounds are left; a reminder for a reply
    without tool calls when only attempt_completion may end the loop; else done."""
    reply = last_reply(state.get("turns", []))
    rounds_left = state.get("loop_rounds", 0) < state["turn"].max_rounds
    if reply is None or not rounds_left:
        return "done"
    if reply.tool_calls:
        return "tools"
    another = state.get("loop_rounds", 0) + 1 < state["turn"].max_rounds
    return "remind" if state["turn"].completion and another else "done"


def after_tools(state: LoopState) -> Literal["agent", "done"]:
    """Where attempt_completion is the way out: done once it succeeded, or when no round
    is left for another reply (it could not call it); else the agent."""
    turn = state["turn"]
    if not turn.completion:
        return "agent"
    ended = state.get("loop_rounds", 0) >= turn.max_rounds
    return "done" if ended or completion(state.get("turns", [])) is not None else "agent"


def completion(turns: list[BaseMessage]) -> str | None:
    """The result of the attempt_completion call that succeeded in the last round of
    tools; None: none did."""
    results: list[ToolMessage] = []
    for message in reversed(turns):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    done = {m.tool_call_id for m in results if m.name == COMPLETE and m.status == "success"}
    reply = last_reply(turns)
    if not done or reply is None:
        return None
    call = next((c for c in reply.tool_calls if c["id"] in done), None)
    return str(call["args"].get("result", "")).strip() if call is not None else None


COMPLETE = "attempt_completion"
"""The tool whose success ends the loop in plan_verify mode (codur.tools.completion)."""


def hit_cap(turns: list[BaseMessage]) -> bool:
    """The loop ended on a reply that still calls tools: the round limit was reached."""
    reply = last_reply(turns)
    return reply is not None and bool(reply.tool_calls)


def agent(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """One model call on the prompt and the turns so far; the reply (its tool calls read
    from the text for a model without native tools)."""
    from codur.agents.tool_detection import detect_tool_calls

    session, turn = runtime.context, state["turn"]
    turns = state.get("turns", [])
    with session.bus.span("node", node="agent", round=state.get("loop_rounds", 0)):
        client = session.client(turn.profile)
        variation = session.usage.calls if turns else turn.sample
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
        return {"turns": [reply]}


def tools(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """Run the last reply's tool calls through the registry: one ToolMessage a call,
    status "error" for a failure (the model reads it and goes on)."""
    session = runtime.context
    reply = last_reply(state["turns"])
    assert reply is not None and reply.tool_calls  # route sends only such a reply here
    rounds = state.get("loop_rounds", 0)
    ctx = session.tool_context()
    todos = list(state.get("todos", []))
    ctx.todos = list(todos)  # the state's list, for todo_write / todo_read
    with session.bus.span("node", node="tools", round=rounds):
        offered = state["turn"].names
        results = [run_call(c, session, offered) for c in reply.tool_calls]
    update: dict[str, Any] = {"turns": results, "loop_rounds": rounds + 1}
    if ctx.todos != todos:
        update["todos"] = list(ctx.todos)
    return update


def remind(state: LoopState, runtime: Runtime[Session]) -> dict[str, Any]:
    """A reply without tool calls where attempt_completion is the only way out: tell the
    model so, and give it another round."""
    rounds, session = state.get("loop_rounds", 0), runtime.context
    with session.bus.span("node", node="remind", round=rounds):
        session.bus.emit("agent.reminded", round=rounds)
    reminder = HumanMessage(session.prompts.render("completion_reminder"))
    return {"turns": [reminder], "loop_rounds": rounds + 1}


def run_call(call: dict[str, Any], session: Session, offered: tuple[str, ...]) -> ToolMessage:
    """Run one call of the reply; a tool the turn did not offer is refused (its result
    says which it may call), never run."""
    from codur.tools.registry import invoke

    name = call["name"]
    if name not in offered:
        session.bus.emit("tool.refused", tool=name, offered=list(offered))
        listed = ", ".join(offered) or "none"
        return ToolMessage(
            f"{name} is not one of your tools (you may call: {listed})",
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


def add_loop(graph: StateGraph, done: str) -> None:
    """Add the loop's nodes to `graph` (whose state has LoopState's keys): `agent` is
    entered from outside; a reply without tool calls (or past the round limit), or a
    successful attempt_completion where it is the way out, goes to `done`."""
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_node("remind", remind)
    graph.add_conditional_edges(
        "agent", route, {"tools": "tools", "remind": "remind", "done": done}
    )
    graph.add_conditional_edges("tools", after_tools, {"agent": "agent", "done": done})
    graph.add_edge("remind", "agent")


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
