"""What review's decision table reads and returns: the `Facts` of one round (with plan
mode's own, `PlanFacts`) and the `Decision` (where the run goes, by node name, and what
review records). The table is codur/graph/decide.py (plan mode's rows:
codur/graph/decide_plan.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codur.graph.node_names import END
from codur.graph.outcome import OutcomeKind
from codur.graph.state import Status
from codur.planning.verdict import VerifierVerdict
from codur.verify.strength import Level

MAX_REPEATS = 2
"""Replies identical to an earlier one (each dropped) before the run is stuck."""

Goto = Literal[
    "execute",
    "repair",
    "sample",
    "crosscheck",
    "delegate",
    "llm_plan",
    "planner",
    "verifier",
    "replan",
    "__end__",
]
"""Where review sends the run: the nodes (codur/graph/node_names.py) it may choose."""
Record = Literal["cut", "duplicate", "rejected", "applied", "agent_failed", "completed"]
Mode = Literal["auto", "check", "plan_verify"]
BEHAVIOURAL = ("output", "tests", "hybrid")
"""Strategies that check what the program does (static checks and none do not)."""


@dataclass(frozen=True)
class PlanFacts:
    """What plan mode's table (decide_plan.py) reads besides the round's `Facts`."""

    iteration: int = 1
    """The plan the agent works on (1: the first)."""
    max_iterations: int = 3
    """planning.max_plan_iterations."""
    judged: VerifierVerdict | None = None
    """The model verifier's judgement of this completion (its verdict and reasons);
    None: not judged yet."""
    check_failure: str = ""
    """How the check fails (its feedback): what a replan is told."""


@dataclass(frozen=True)
class Facts:
    """What review knows about the round that just ended."""

    kind: OutcomeKind | None
    """The last attempt's outcome; None: no attempt yet (the check before the first)."""
    first: bool = False
    """No attempt has been recorded yet (a repair that found nothing is not one)."""
    strategy: str | None = None
    """The verdict's strategy (none, static, output, tests, hybrid); None: no verdict."""
    passed: bool = False
    evidence: Level | None = None
    """How strong the passing checks' evidence is (codur/verify/strength.py): project
    (verified) or derived (checked); None: no behavioural check passed."""
    repairable: bool = False
    """Repair enabled, a program or tests fail, and the search has something left to
    search in the code as it is (codur/graph/repairs.py)."""
    repair_first: bool = False
    """repair.before_first_attempt: search a repair before the first model call."""
    model: bool = True
    """A model may be called (not --no-model)."""
    changed_files: bool = False
    """The last attempt changed files."""
    run_changes: tuple[str, ...] = ()
    """The files the run changed (any attempt, any tool)."""
    checks: str = ""
    """What the verdict rests on: the checks that ran, one summary each."""
    repairs_tried: bool = False
    """The repair search has run in this run."""
    repair_kept_out: str = ""
    """Why the repair search's fix was not written (the user declined it, the scope or
    the snapshot refused it; empty: it was, or none was found)."""
    seen_failure: bool = False
    """The current failure was seen in an earlier round."""
    new_failures: bool = True
    """The round's failures (a sampling round: each candidate's) include one not seen."""
    sampled_ran: bool = True
    """A candidate of the sampling round was applied and checked (none: every reply was
    cut, rejected, empty or a repeat)."""
    repeats_rejected: bool = False
    """A duplicate reply repeats one that was rejected."""
    repeats: int = 0
    """Duplicate replies so far, this one included."""
    unshown_fix: bool = False
    """The only behavioural check is a model-written test that passed before the change."""
    iterations: int = 0
    """Rounds done before this one."""
    max_iterations: int = 10
    sampling: bool = False
    """sampling.candidates > 0."""
    model_failed_before: bool = False
    """A model attempt (this one included) has failed: sampling may start."""
    model_changed: bool = False
    """An earlier model attempt changed files (a repair after it edited the model's code)."""
    fallback: bool = False
    """An agent of agents.preferences.fallback_order that has not failed is left."""
    agent_error: str = ""
    """How the agent failed (outcome agent_failed)."""
    replan_on_retry: bool = False
    """A retry plans again (llm_plan) instead of going back to the agent (delegate):
    planning.replan_on_retry, or no agent was chosen yet."""
    mode: Mode = "check"
    """planning.mode: check, plan_verify, or auto (plan_verify when nothing checks
    behaviour)."""
    plan: PlanFacts | None = None
    """Plan mode's own facts; None: the run is not in plan mode."""
    oracle: bool = False
    """The folder holds expected output or tests (the edit scope's `judges`), even where
    they cannot run yet (expected.txt beside no program): auto keeps the check-driven
    loop."""
    examples_only: bool = False
    """The check that ran is only the docstrings' examples (a few calls)."""
    crosscheck: bool = False
    """crosscheck.candidates > 0 and the agent can sample."""
    crosschecked: str = ""
    """How the run's cross-check went; empty: none ran."""
    put_back: bool = False
    """The files the cross-check's written reply replaced are known (crosscheck_kept)."""
    repair_doubt: str = ""
    """Why the repair search's fix that was applied cannot end the run verified (a
    constant-only change no review confirmed: codur/repair/review.py); empty: none."""


@dataclass(frozen=True)
class Decision:
    goto: Goto
    status: Status | None = None
    """For goto END: how the run ends."""
    message: str = ""
    record: Record | None = None
    """The attempt record review adds for this round, if any."""
    feedback: bool = False
    """Another attempt, with the failure or the rejection kept in the conversation."""
    answer: bool = False
    """The last reply is the run's answer (shown in the summary and in --json)."""
    reasons: tuple[str, ...] = ()
    """For goto replan: why the plan's work was not accepted."""
    handoff: bool = False
    """For goto delegate: the agent failed and the next agent of
    agents.preferences.fallback_order takes the task over."""


def end(
    status: Status, message: str, record: Record | None = None, answer: bool = False
) -> Decision:
    return Decision(END, status, message, record, answer=answer)


def behavioural(f: Facts) -> bool:
    """A check of what the program does ran (one that can show a fix)."""
    return f.strategy in BEHAVIOURAL and not f.unshown_fix
