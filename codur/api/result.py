"""What an API run returns: `Result` (how it ended, what changed, the usage) and, from
it, the run's trace as `codur trace` shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.errors import UsageError
from codur.verify.strength import PASSED, Strength


@dataclass
class Usage:
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    wall_s: float = 0.0


@dataclass
class Result:
    """How a run ended. `result["final_answer"]` works too (dict access, for callers
    that treat a result as a dict)."""

    status: str
    """verified, checked, done, unverified, stuck, limit, approval, failed (the agent
    failed, no fallback agent left) or error (docs/verification.md)."""
    message: str
    final_answer: str
    """What the run answers: the agent's or planner's reply, else the status message."""
    is_verified: bool
    """The project's own check (its expected-output file, its tests that reach the code)
    passed on the changed code (status verified). Never true on derived evidence (the
    task's statements, docstring examples, a test the model wrote: status checked) nor on
    a model's word."""
    files_changed: list[str]
    diff: str
    messages: list[Any]
    """The run's conversation (LangChain messages)."""
    plan_iteration: int
    """plan_verify mode (docs/verification.md): plans made, 1 plus one per replan after
    a failed verification; 0: the run used the check-driven loop."""
    usage: Usage
    run_id: str
    exit_code: int
    check: str = ""
    """What the verdict rests on (the checks that ran)."""
    evidence: Strength | None = None
    """A passing run (verified or checked): how strong its evidence is, `.level` (project,
    task, docstring, model), `.owned` (the project's own check) and `.description` (one
    line: `checked against 3 docstring examples`); None for any other ending."""
    plan: list[str] = field(default_factory=list)
    """plan_verify mode: the last step plan."""
    verifier_verdict: str = ""
    """plan_verify mode: the model verifier's last verdict (VERIFIED / NOT_VERIFIED)."""
    extra: dict[str, Any] = field(default_factory=dict)
    log: Path | None = None
    """The debug log the run was recorded in (None: `log.enabled` off)."""

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    @property
    def passed_checks(self) -> bool:
        """A behavioural check passed on the changed code: verified (the project's own)
        or checked (derived from the task, the docstrings or the model; see `evidence`)."""
        return self.status in PASSED

    def trace(self, full: bool = False) -> str:
        """The run as `codur trace RUN_ID` (`--full`: `full`) prints it: nodes, model calls
        with tokens and times, tool calls and results, verification. UsageError when the
        run has no debug log (`log.enabled` off) or the log no longer holds it."""
        from codur.traces.text import trace_text

        if self.log is None:
            raise UsageError(f"run {self.run_id}: no debug log to trace (log.enabled is off)")
        return trace_text(self.log, self.run_id, full)


def from_run(run: Any, log: Path | None) -> Result:
    """The API's Result of a finished run (`codur.result.RunResult`) logged in `log`."""
    return Result(
        status=run.status,
        message=run.message,
        final_answer=run.final_response or run.message,
        is_verified=run.evidence is not None and run.evidence.owned,
        files_changed=list(run.files_changed),
        diff=run.diff,
        messages=list(run.messages),
        plan_iteration=run.plan_iteration,
        usage=Usage(
            run.model_calls,
            run.prompt_tokens,
            run.completion_tokens,
            run.cached_prompt_tokens,
            run.wall_s,
        ),
        run_id=run.run_id,
        exit_code=int(run.exit_code),
        check=run.check,
        evidence=run.evidence,
        plan=list(run.plan),
        verifier_verdict=run.verifier_verdict,
        log=log,
    )
