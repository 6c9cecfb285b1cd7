"""The ask graph's state: what each node writes, one meaning a field."""

from __future__ import annotations

from typing import Literal

from codur.agents.turn import LoopState

Decision = Literal["CONTINUE", "FINISH"]


class AskState(LoopState, total=False):
    """With the model <-> tools loop's keys (`turn`, `turns`, `loop_rounds`): the
    current research step's turn and its conversation only (setup_executor starts them,
    aggregate clears the turns with RemoveMessage)."""

    question: str
    """The user's question (set once)."""
    plan: list[str]
    """The research steps of the current plan (planner)."""
    plan_fallback: bool
    """The planner's reply was not a list of steps: the one-step fallback plan is used."""
    current_step: int
    """Index into `plan` of the next step to run (planner resets, aggregate advances)."""
    parts: list[str]
    """The question's parts (`codur.ask.parts`; one for a simple question; retrieve)."""
    sources: list[list[str]]
    """For each part, the `path:start-end` of the chunks retrieved for it, best first;
    none for a part retrieval covers weakly (retrieve; listed under an answer citing no
    location)."""
    retrieved: str
    """The code index's chunks and callers for each part, as markdown (retrieve; set once)."""
    findings: dict[str, str]
    """Evidence by step, `step_N: description` -> what the tools and the executor found
    (aggregate; never cleared)."""
    iterations: int
    """Planner -> executor -> refinery rounds so far (capped: ask.max_iterations)."""
    decision: Decision
    """The refinery's last decision."""
    decision_reason: str
    """Why: the refinery model's reason, or the rule that decided (cap, parse failure)."""
    answer: str
    """The synthesizer's markdown answer."""
    files_read: list[str]
    """Workspace files the tool calls named or returned (retrieve, aggregate), sorted: with the
    answer's citations, what a cached answer depends on."""
