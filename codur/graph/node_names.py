"""The run graph's node names: one vocabulary for build.py (which adds each node by its
name), the routers (review's decision table, the error handler, the planning nodes),
and the trace. tests/test_graph_names.py checks that the compiled graph's nodes are
exactly these."""

from __future__ import annotations

from typing import Final, Literal, get_args

Node = Literal[
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
    "crosscheck",
    "planner",
    "verifier",
    "replan",
]
"""A node of the run graph (the execute step's own nodes are its subgraph's)."""

End = Literal["__end__"]
"""The run ends (LangGraph's END)."""

END: Final[End] = "__end__"

NODES: Final[tuple[Node, ...]] = get_args(Node)

Target = Literal[Node, End]
"""Where a router may send the run: a node, or the end."""
