"""What a run learns about its edit scope as it goes, kept in the graph's state
(`AgentState.scope_learned`) as a record the verify node returns: files the failure was
found to happen in (made editable), the functions a failing test called directly (code
under test, no test helpers) and the tests that failed first. The scope decided at the
start (`EditScope`) knows them through `EditScope.knowing`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ScopeLearned:
    widened: dict[str, str] = field(default_factory=dict)
    """Context files made editable during the run (the failing run's traceback ends
    there), and why."""
    failing_calls: dict[str, list[str]] = field(default_factory=dict)
    """Functions a failing test called directly that raised (the first check's
    traceback), by file: the task is about them, so they are no test helpers."""
    failing_tests: tuple[str, ...] = ()
    """The tests that failed in the run's first check (their ids): the helpers that judge
    the task are theirs (`codur.scope.test_focus`)."""

    def __post_init__(self) -> None:  # a checkpoint revives tuples as lists
        object.__setattr__(self, "failing_tests", tuple(self.failing_tests))

    def __bool__(self) -> bool:
        return bool(self.widened or self.failing_calls or self.failing_tests)


def learn(old: ScopeLearned | None, new: ScopeLearned | None) -> ScopeLearned:
    """The reducer of `scope_learned`: what is learned adds to what was (a file made
    editable stays so; a function seen failing stays code under test)."""
    old, new = old or ScopeLearned(), new or ScopeLearned()
    calls = {p: list(names) for p, names in old.failing_calls.items()}
    for path, names in new.failing_calls.items():
        calls[path] = [*calls.get(path, []), *(n for n in names if n not in calls.get(path, []))]
    return ScopeLearned(
        {**new.widened, **old.widened}, calls, old.failing_tests or tuple(new.failing_tests)
    )
