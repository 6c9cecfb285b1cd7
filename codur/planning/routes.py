"""The routes a task can take after planning (edit, explain, run_command, ...), each a
branch of the one agent graph.

Phase 0 (`codur.planning.textual`) picks a route only for forms that cannot mean anything
else; otherwise the planner's structured reply names it (`PlanDecision.route`).
"""

from __future__ import annotations

from typing import Literal

Route = Literal[
    "edit",
    "explain",
    "run_command",
]
"""edit: the coding agent changes code, checked and looped until verified (delegate);
explain: a question or an explanation answered from the files by the ask graph, which
never edits (explain); run_command: one shell command, run by the run_command tool after
the user's approval (run_command)."""
