"""Working memory (the first of three tiers, docs/memory.md): what a task knows about
itself while it runs.

It is the graph state, not a copy of it: the attempts (one record each, their summaries
the feedback history), the last outcome and verdict, the last exception a node raised
(`last_error`, written by the error handler), the iteration count (the retries). The
step the run is at is the graph's own (LangGraph's checkpoint holds the next node).
`working_memory` reads them as one small record, the feedback history cut to the last
few, for whoever sums a task up (a `codur chat` session remembers it with the exchange).
"""

from __future__ import annotations

from dataclasses import dataclass

from codur.graph.attempts import failure_line
from codur.graph.state import AgentState


@dataclass(frozen=True)
class WorkingMemory:
    file: str
    """The file in hand: the last attempt's first changed file, else the first file read
    into context ("" when there is none)."""
    retries: int
    """Attempts after the first (rounds of the edit-verify loop)."""
    last_error: str
    """Why the task did not succeed: the exception that ended it (a node's, retried no
    more), else the last attempt's rejection, else the check's failure ("" if none)."""
    feedback: tuple[str, ...]
    """The last attempts' one-line summaries, oldest first (at most `keep`)."""


def working_memory(state: AgentState, keep: int) -> WorkingMemory:
    attempts = state.get("attempts", [])
    outcome = state.get("outcome")
    verdict = state.get("verification")
    changed = [f for a in attempts[::-1] for f in a.get("files_changed", [])]
    file = changed[0] if changed else next(iter(state.get("context_files", {})), "")
    failure = state.get("last_error")
    error = ""
    if failure is not None and state.get("status") == "error":
        error = f"{failure.node}: {failure.error}"
    elif outcome is not None and outcome.error:
        error = outcome.error
    elif verdict is not None and not verdict.passed:
        error = failure_line(verdict)
    summaries = [a["summary"] for a in attempts if a.get("summary")]
    return WorkingMemory(
        file=file,
        retries=max(0, state.get("iterations", 0) - 1),
        last_error=error,
        feedback=tuple(summaries[-keep:]) if keep > 0 else (),
    )
