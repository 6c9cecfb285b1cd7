"""The graph's table for an exception a node raised: a pure function of `ErrorFacts`
(gathered by `nodes.node_error`), tested row by row in tests/test_decide.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_NODE_RETRIES = 3  # runtime.max_node_retries's default
"""Retries after a node raised (each with the error in the model's context) before the
run ends with status error."""

ErrorAction = Literal["fallback", "raise", "retry", "end"]
"""What the error handler does (node_error.py carries it out: review, raise, the node
again, or the end)."""


@dataclass(frozen=True)
class ErrorFacts:
    """What the graph's error handler knows about an exception a node raised."""

    typed: bool
    """A CodurError (a limit, an approval nobody can give, the model unreachable, a bad
    config or path) or a LangGraph interrupt: it carries its own ending and exit code."""
    errors: int
    """Node exceptions in the run so far, this one included."""
    fallback: bool = False
    """The agent could not run (not installed, its server or model unreachable) and an
    agent of agents.preferences.fallback_order that has not failed is left."""
    max_retries: int = MAX_NODE_RETRIES
    """runtime.max_node_retries."""
    repeatable: bool = True
    """Running the node again does not repeat an effect outside the run's state (the
    tool node's calls and run_command's command may have run before it raised)."""


def on_error(f: ErrorFacts) -> ErrorAction:
    """An exception in a node, rows first match wins:

    | facts                            | decision                                         |
    | -------------------------------- | ------------------------------------------------ |
    | the agent could not run, a       | fallback: a failed outcome, review hands the     |
    | fallback agent left              | task to the next agent                           |
    | typed (its own ending)           | raise: the run ends as that error says           |
    | not repeatable                   | end: its effects must not happen twice           |
    | errors so far <= max_retries     | retry the node (the error in the model's context) |
    | otherwise                        | end: status error, one line (exit code 4)        |
    """
    if f.fallback:
        return "fallback"
    if f.typed:
        return "raise"
    if f.repeatable and f.errors <= f.max_retries:
        return "retry"
    return "end"
