"""The graph's error handler (LangGraph's `error_handler`, set for every node of the run
graph in build.py): an exception a node raised is recorded in working memory
(`last_error`, `error_count`) and on the bus (`node.error`, with the traceback, into the
debug log); `on_error.on_error` chooses: the agent's failure (an agent that cannot run,
with a fallback agent left: review hands the task on), raise (a typed error keeps its
own ending), retry the node (its model reads the error: the planner's prompt, the
agent's earlier attempts), or end the run with status error and one line (exit code 4).
Never an unbounded retry: the count is the run's, and the handler itself is never
retried."""

from __future__ import annotations

import traceback
from typing import cast

from langgraph.errors import GraphBubbleUp, NodeError
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.registry import fallback as next_agent
from codur.errors import (
    AgentUnavailable,
    CodurError,
    ModelError,
    ModelUnreachable,
    cannot_write,
)
from codur.graph.node_names import Node, Target
from codur.graph.on_error import ErrorFacts, on_error
from codur.graph.outcome import Outcome
from codur.graph.state import AgentState, NodeFailure
from codur.session import Session

NOT_REPEATABLE: frozenset[Node] = frozenset({"tool", "run_command"})
"""Nodes whose work reaches outside the run's state before they may raise (tool calls,
the user's command): run again, it would happen twice."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


AGENT_NODES: frozenset[Node] = frozenset({"execute", "sample"})
"""Nodes that run the agent: an error there saying it cannot run is the agent's failure."""
CANNOT_RUN = (AgentUnavailable, ModelUnreachable, ModelError)
"""The agent is not installed, its server or its model cannot be reached or refuses."""


def node_error(state: AgentState, error: NodeError, runtime: Runtime[Session]) -> Command[Target]:
    exc = error.error
    node = cast(Node, error.node)  # the handler is set for the run graph's nodes only
    if isinstance(exc, KeyboardInterrupt):  # a stop (a signal, a cancel) is no node's failure
        raise exc
    if (machine := cannot_write(exc)) is not None:  # a full disk: no retry will write it
        raise machine from exc
    count = state.get("error_count", 0) + 1
    typed = isinstance(exc, CodurError | GraphBubbleUp)
    agent = state.get("agent", "")
    cannot_run = node in AGENT_NODES and isinstance(exc, CANNOT_RUN) and bool(agent)
    failed = [*state.get("agents_failed", []), agent]
    fallback = cannot_run and next_agent(runtime.context.config, failed) is not None
    facts = ErrorFacts(
        typed=typed,
        errors=count,
        max_retries=runtime.context.config.runtime.max_node_retries,
        repeatable=node not in NOT_REPEATABLE,
        fallback=fallback,
    )
    decision = on_error(facts)
    # a typed error (a limit, an approval) is an ending, not a bug: no traceback
    trace = {} if typed else {"traceback": "".join(traceback.format_exception(exc))}
    runtime.context.bus.emit(
        "node.error", node=node, error=one_line(exc), count=count, decision=decision, **trace
    )
    if decision == "fallback":  # review hands the task to the next agent
        failure = Outcome("agent_failed", agent=agent, error=str(exc))
        return Command(update={"outcome": failure}, goto="review")
    if decision == "raise":
        raise exc
    update = {"last_error": NodeFailure(node, one_line(exc), count), "error_count": count}
    if decision == "retry":
        return Command(update=update, goto=node)
    failed = (
        f"failed {count} times"
        if facts.repeatable
        else "failed (not run again: its effects would repeat)"
    )
    message = f"the {node} step {failed}; the last error: {one_line(exc)}"
    return Command(update={**update, "status": "error", "status_message": message}, goto=END)
