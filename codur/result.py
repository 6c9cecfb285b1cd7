"""RunResult: how a run of a task ended, what it changed and what it cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codur.errors import ExitCode
from codur.verify.strength import Strength

EXIT_CODES: dict[str, ExitCode] = {
    "verified": ExitCode.OK,
    "checked": ExitCode.CHECKED,
    "done": ExitCode.OK,
    "unverified": ExitCode.NOT_VERIFIED,
    "stuck": ExitCode.NOT_VERIFIED,
    "limit": ExitCode.NOT_VERIFIED,
    "approval": ExitCode.APPROVAL_NEEDED,
    "error": ExitCode.ERROR,
    "failed": ExitCode.MODEL_UNREACHABLE,
    "refused": ExitCode.USAGE,
    "unrunnable": ExitCode.PROJECT_ENV,
}
"""The exit code of a run's status (`refused`: stopped before anything ran, by bad
input or config; `unrunnable`: stopped then because the project's Python cannot run
the check, e.g. it has no pytest)."""


@dataclass
class RunResult:
    status: str
    message: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    diff: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    final_response: str = ""
    check: str = ""
    """What the verdict rests on: the checks that ran (empty: none)."""
    evidence: Strength | None = None
    """A passing run (verified, checked): how strong its evidence is; None otherwise."""
    outside_changes: list[str] = field(default_factory=list)
    """Files changed during the run, by Codur or by the programs it ran, outside the code
    under test (none, in an honest pass)."""
    run_id: str = ""
    run_changes: list[str] = field(default_factory=list)
    """Every file the run changed, created or deleted, by Codur or by the programs it ran
    (its snapshots differ there; `codur undo` puts them back)."""
    model_test: str = ""
    """The test the model wrote when nothing else could check the task (shown)."""
    cached_prompt_tokens: int = 0
    """Of prompt_tokens, those the provider reused from its cache (not evaluated again)."""
    files_read: list[str] = field(default_factory=list)
    """Files read into the task's context (`@file`) or by its tools (read_file, ...), for
    a chat session's memory."""
    last_error: str = ""
    """Working memory's last error when the run ended ("" if none)."""
    messages: list[Any] = field(default_factory=list)
    """The run's conversation (LangChain messages), for the Python API."""
    plan: list[str] = field(default_factory=list)
    """plan_verify mode: the last step plan (empty: the run was not in that mode)."""
    plan_iteration: int = 0
    """plan_verify mode: plans made (1: the first one only); 0: not in that mode."""
    todos: list[dict[str, str]] = field(default_factory=list)
    """plan_verify mode: the todo list as it ended, `{"text", "status"}` each."""
    verifier_verdict: str = ""
    """plan_verify mode: the model verifier's last verdict, VERIFIED or NOT_VERIFIED ("":
    it was not asked)."""
    verifier_reasons: list[str] = field(default_factory=list)
    """...and its reasons."""
    repair_reviews: list[dict[str, str]] = field(default_factory=list)
    """Each review of a repair-search fix that only changed constants: `change`,
    `verdict` (confirmed, overruled: not applied, unconfirmed) and `by` (differential,
    model, none); codur/repair/review.py."""

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_CODES[self.status]

    def end_record(self) -> dict[str, Any]:
        """The fields of the run's end record (`run.end`)."""
        return {
            "status": self.status,
            "message": self.message,
            "iterations": self.iterations,
            "files_changed": self.files_changed,
            "diff": self.diff,
            "model_calls": self.model_calls,
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "wall_s": self.wall_s,
            "check": self.check,
            "evidence": self.evidence.record() if self.evidence is not None else None,
            "outside_changes": self.outside_changes,
            "run_changes": self.run_changes,
            "final_response": self.final_response,
            "plan": self.plan,
            "plan_iteration": self.plan_iteration,
            "todos": self.todos,
            "verifier_verdict": self.verifier_verdict,
            "verifier_reasons": self.verifier_reasons,
            "repair_reviews": self.repair_reviews,
        }
