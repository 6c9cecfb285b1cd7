"""The graph's error handler (LangGraph's `error_handler`, set for every node of the run
graph in build.py): an exception a node raised is recorded in working memory
(`last_error`, `error_count`) and on the bus (`node.error`, with the traceback, into the
debug log); `decide.on_error` chooses: raise (a typed error keeps its own ending), retry
the node (its model reads the error: the planner's prompt, the agent's earlier attempts),
or end the run with status error and one line (exit code 4). Never an unbounded retry:
the count is the run's, and the handler itself is never retried."""

from __future__ import annotations

import traceback
from typing import Literal

from langgraph.errors import GraphBubbleUp, NodeError
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.errors import CodurError
from codur.graph.decide import ErrorFacts, on_error
from codur.graph.state import AgentState, NodeFailure
from codur.session import Session

Goto = Literal[
    "textual_pre_plan",
    "llm_pre_plan",
    "llm_plan",
    "tool",
    "explain",
    "run_command",
    "delegate",
    "execute",
    "verify",
    "review",
    "repair",
    "sample",
    "planner",
    "verifier",
    "replan",
    "__end__",
]
"""The failed node (a retry) or the end."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def node_error(state: AgentState, error: NodeError, runtime: Runtime[Session]) -> Command[Goto]:
    exc = error.error
    count = state.get("error_count", 0) + 1
    typed = isinstance(exc, CodurError | GraphBubbleUp)
    decision = on_error(ErrorFacts(typed=typed, errors=count))
    runtime.context.bus.emit(
        "node.error",
        node=error.node,
        error=one_line(exc),
        count=count,
        decision=decision,
        traceback="".join(traceback.format_exception(exc)),
    )
    if decision == "raise":
        raise exc
    update = {"last_error": NodeFailure(error.node, one_line(exc), count), "error_count": count}
    if decision == "retry":
        return Command(update=update, goto=error.node)
    message = f"the {error.node} step failed {count} times; the last error: {one_line(exc)}"
    return Command(update={**update, "status": "error", "status_message": message}, goto=END)
