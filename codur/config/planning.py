"""The `planning` config section: how a task is planned, and plan_verify mode (a
step plan, the agent's attempt_completion, the model verifier, replans). Same rules as
the rest of the schema: every field documented, unknown keys are errors."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from codur.config.sections import _Section


class PlanningConfig(_Section):
    enabled: bool = True
    """Ask the model how to handle the task (pre-plan and plan). Off: every task that
    phase 0 does not settle goes straight to the default agent (the Python API's
    `enable_planning=False`)."""
    max_retry_attempts: int = Field(3, ge=0)
    """Planner retries when its reply cannot be parsed, before the default agent is used."""
    pre_plan_confidence: float = Field(0.9, ge=0, le=1)
    """Phase-1 classification may route directly only above this confidence."""
    pre_plan_max_tokens: int = Field(160, gt=0)
    """Most tokens the phase-1 classification reply may take: its kind and confidence
    come first and are read from a cut reply too (a short answer to a greeting fits)."""
    replan_on_retry: bool = False
    """After a failed verification, plan again (phases 1-2) instead of handing the
    feedback straight back to the agent that made the attempt."""
    keep_feedback_messages: int = Field(6, gt=0)
    """Message pruning: the most recent verification-feedback turns (with the attempts
    they answer) kept in the conversation; the original task is always kept."""
    max_tool_rounds: int = Field(3, ge=0)
    """Rounds of tool calls the planner may make, each result going back to it, before it
    must delegate or answer ("list the files, then fix the bug"); past it the run ends
    with the last results."""
    mode: Literal["auto", "check", "plan_verify"] = "auto"
    """How an edit task is driven. check: the check-driven loop (the agent edits, the
    checks judge, their failure goes back to it); plan_verify: plan, work, verify,
    replan (a step plan seeds a todo list, the agent works through it with tools and ends with
    attempt_completion, a model verifier judges the work against the task, a NOT_VERIFIED
    verdict replans); auto: plan_verify where nothing checks behaviour (no expected
    output or tests, even waiting for a program; no check derived from the task, nor a
    model-written test that runs), check otherwise. A check, where there is one,
    outranks the model verifier."""
    max_plan_iterations: int = Field(3, gt=0)
    """plan_verify: plans at most (the first and each replan); when the last one's work
    is not verified either, the run ends unverified with the verifier's reasons."""
    max_plan_steps: int = Field(6, gt=0)
    """plan_verify: steps kept from one plan (the rest are dropped)."""
    max_agent_rounds: int = Field(15, gt=0)
    """plan_verify: the agent's replies in one attempt (each followed by its tool calls,
    or by a reminder when it called none); a loop that ends without attempt_completion
    ends the run with status limit."""
    verifier_trace_chars: int = Field(6000, gt=0)
    """plan_verify: the execution trace the verifier and replan read (the plan and todo
    list, tool calls and results cut short, the diff of the files changed) is cut to
    this many characters."""
