"""How strong the evidence of a pass is, and the status it earns: one pure function of
the checks that ran (`strength`), tested row by row (tests/test_strength.py).

`verified` is kept for a check the project owns; a pass that rests only on evidence
derived from the task, the docstrings or the model is `checked`, and says what it was.
The strongest passing check that checked something decides (hollow tests, static and
oracle checks are no evidence of behaviour), except that a whole suite cut short keeps
the pass `partial` whatever else passed:

| the strongest passing check                                   | level     | status   |
| ------------------------------------------------------------- | --------- | -------- |
| the folder's expected-output file, its own tests that reach   | project   | verified |
|   the code (the whole suite)                                  |           |          |
| part of its tests: those that failed and those of the changed | partial   | checked  |
|   code passed, the whole suite stopped at its time budget     |           |          |
| an output, its values or calls the task states                | task      | checked  |
| the docstrings' examples                                      | docstring | checked  |
| a test the model wrote from the task                          | model     | checked  |
| none of these (a checkpoint of an older Codur)                | None      | checked  |
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from codur.verify.evidence import Basis, Evidence

Level = Literal["project", "partial", "task", "docstring", "model"]
"""How strong a pass's evidence is, strongest first (`LEVELS`)."""
LEVELS: tuple[Level, ...] = ("project", "partial", "task", "docstring", "model")
PassStatus = Literal["verified", "checked"]
PASSED: tuple[PassStatus, ...] = ("verified", "checked")
"""The statuses of a run whose behavioural check passed (exit codes 0 and 10)."""

LEVEL_OF: dict[Basis, Level] = {
    "expected_output": "project",
    "project_tests": "project",
    "partial_tests": "partial",
    "task_output": "task",
    "task_values": "task",
    "task_claims": "task",
    "docstrings": "docstring",
    "model_test": "model",
}


@dataclass(frozen=True)
class Strength:
    """What a passing run's verdict rests on."""

    level: Level
    description: str
    """One line, as the user reads it: `verified (project tests, 6 passed)`, `checked
    against 3 docstring examples`, `checked by a test the model wrote from the task`."""

    @property
    def owned(self) -> bool:
        """The project's own check (its expected output, its tests) passed."""
        return self.level == "project"

    @property
    def status(self) -> PassStatus:
        return status_of(self.level)

    def record(self) -> dict[str, str | bool]:
        """As `run.end` and the run record hold it."""
        return {"level": self.level, "owned": self.owned, "description": self.description}


def status_of(level: Level | None) -> PassStatus:
    """`verified` for the project's own evidence, `checked` for anything less (unknown
    evidence included: never `verified` without knowing the project vouched)."""
    return "verified" if level == "project" else "checked"


def strength(evidence: Iterable[Evidence]) -> Strength | None:
    """The strength of the passing behavioural checks in `evidence` (None: there are none)."""
    held = [e for e in evidence if e.passed and e.ran and e.basis is not None]
    if not held:
        return None
    level = min((LEVEL_OF[e.basis] for e in held if e.basis), key=LEVELS.index)
    if level == "project" and any(e.basis == "partial_tests" for e in held):
        level = "partial"  # a suite cut short: whatever else passed, not the project's word
    top = [e for e in held if e.basis and LEVEL_OF[e.basis] == level]
    parts = list(dict.fromkeys(_part(e) for e in top))
    if level == "project":
        return Strength(level, f"verified ({'; '.join(parts)})")
    if level == "model":
        return Strength(level, "checked by a test the model wrote from the task")
    if level == "partial":
        return Strength(level, f"checked by part of the project tests ({'; '.join(parts)})")
    return Strength(level, f"checked against {' and '.join(parts)}")


def _part(e: Evidence) -> str:
    """What one passing check judged by, in a few words."""
    if e.basis == "expected_output":
        return "expected output"
    if e.basis == "project_tests":
        return f"project tests, {e.cases} passed" if e.cases else "the project's test command"
    if e.basis == "partial_tests":
        return f"{e.cases} passed; the whole suite stopped at verify.suite_budget_s"
    if e.basis == "task_output":
        return "the output stated in the task"
    if e.basis == "task_values":
        return "the values the task states, in order"
    if e.basis == "task_claims":
        return f"{_count(e.cases, 'call', 'calls')} stated in the task"
    return f"{_count(e.cases, 'docstring example', 'docstring examples')}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
