"""What the fixtures of a test file (or of a conftest.py) do to the tests that use them,
and the words of a file's tests that ran: verify/calls.py reads the suite with them."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Fixtures:
    """What a file's fixtures do to the tests that ask for them (a conftest's: the tests
    under its folder)."""

    skipping: frozenset[str] = frozenset()
    """Fixtures that may skip the test asking for them."""
    patching: dict[str, frozenset[str]] = field(default_factory=dict)
    autouse: frozenset[str] = frozenset()
    always: frozenset[str] = frozenset()
    """Fixtures that skip whatever the test (a stop at the top of the body): an autouse
    one that skips only under a condition (a marker, a platform) skips some tests, not
    every test."""

    def merged(self, other: Fixtures) -> Fixtures:
        patching = {**self.patching, **other.patching}
        skipping, autouse = self.skipping | other.skipping, self.autouse | other.autouse
        return Fixtures(skipping, patching, autouse, self.always | other.always)

    def words_run(
        self,
        runs: Iterable[RunLike],
        own: frozenset[str],
        ran: Collection[tuple[str, str]] | None = None,
        may_run: bool = False,
    ) -> dict[frozenset[str], set[str]]:
        """The words of the tests `runs` that may run, by what each patches (with the
        fixtures it asks for, or that are autouse; `owner.name`: `blocked_names`);
        `own`: fixtures their file defines itself, which take the place of these; `ran`:
        (class, name) of the file's tests a run passed (class `*`: any; None: not
        known), which decide
        instead of what the files say; `may_run`: a test the files say may not run
        counts (a run's list of passes will say)."""
        found: dict[frozenset[str], set[str]] = {}
        for run in runs:
            asked = (run.asked | self.autouse) - own
            if ran is not None and not {(run.owner, run.name), ("*", run.name)} & set(ran):
                continue
            skipped = (run.asked - own) & self.skipping or (self.autouse - own) & self.always
            if ran is None and not may_run and (run.may_skip or skipped):
                continue
            blocked = run.patched.union(*(self.patching.get(f, ()) for f in asked))
            found.setdefault(blocked, set()).update(run.words)
        return found


NO_FIXTURES = Fixtures()


class RunLike(Protocol):
    words: frozenset[str]
    asked: frozenset[str]
    name: str
    patched: frozenset[str]
    may_skip: bool
    owner: str
