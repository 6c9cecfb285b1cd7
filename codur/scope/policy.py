"""The edit scope of a run: which files the coder, the repair search and every writing
tool may change. Decided once, at the start of the run, and logged (`scope` event).

- The oracle (`codur.scope.oracle`) is never editable unless the task explicitly asks to
  change it (`codur.scope.request`) or the user allows it (`--allow-edit FILE`,
  `verify.allow_edit`); its contents are captured now, and checks compare with the
  captured copy. An oracle file the task names without asking to change it stays locked,
  and the scope's reasons say how to unlock it.
- When the task names files to fix (`@file`, or a bare `in utils.py`), those are the
  targets; other existing files are read-only context, unless a failing run's traceback
  shows the failure happening in one of them (`widening`, logged).
- In any Python file with a harness (`codur.scope.harness`), the harness is out of bounds:
  the repair search makes no mutation there, and a model edit that changes it is refused.
  The functions, classes and constants the tests use, other than the ones the task is
  about, count as harness too (`codur.scope.test_helpers`).
- New files may be created, except ones that would become part of a check (a test file,
  conftest.py, an expected-output file, pytest configuration).
- Code under test may not take up the test framework: an edit that adds a framework
  use a module did not have (a framework module imported or named, a skip or failure of
  the framework's, an attribute set on it) is refused (`codur.scope.framework`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from codur import source_encoding
from codur.scope.captured import CapturedOracle
from codur.scope.compiled import stamps
from codur.scope.framework import takes_up_framework
from codur.scope.harness import Harness, find_harness
from codur.scope.harness_edits import harness_changed, harness_lines, without_harness_changes
from codur.scope.learned import ScopeLearned
from codur.scope.modules import names_in
from codur.scope.oracle import judges, loaded_files, looks_like_oracle
from codur.scope.pytest_ini import matches
from codur.scope.support import shadows
from codur.scope.test_helpers import Frame, failing_calls, protect, test_files, test_helpers
from codur.scope.test_uses import TestUses, test_uses
from codur.task import code_mentions


class ScopeError(ValueError):
    """An edit outside the run's edit scope; the message goes back to the model."""

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.path = path
        """The workspace-relative path refused (empty: not said)."""


@dataclass
class EditScope(CapturedOracle):
    root: Path
    expected_name: str
    targets: tuple[str, ...] = ()
    """Files the task names (empty: every file but the oracle is editable)."""
    oracle: dict[str, bytes | None] = field(default_factory=dict)
    """Oracle files and their contents at the start of the run."""
    oracle_editable: tuple[str, ...] = ()
    """Oracle files the task explicitly asks to change, or the user allowed to change."""
    locked: tuple[str, ...] = ()
    """Oracle files the task names without asking to change them (they stay as they are)."""
    present: tuple[str, ...] | None = None
    """The files pytest or Python's start-up load by name that were in the folder when the
    run started, ignored folders too (None: found now). None of them counts as created,
    so none is ever removed."""
    compiled: dict[str, str] | None = None
    """The compiled modules in `__pycache__` when the run started (`scope.compiled`;
    None: found now): one created or changed since was planted, and is removed."""
    task: str = ""
    reasons: list[str] = field(default_factory=list)
    learned: ScopeLearned = field(default_factory=ScopeLearned)
    """What the run learned since (files made editable, functions seen failing): the
    graph state's record, which `knowing` gives a scope."""
    test_names: tuple[str, ...] = ()
    """The project's own `python_files` patterns that name some files, not all
    (`check_*.py`, not `*.py`): a new file they name is a test."""
    test_modules: tuple[str, ...] = ()
    """Test modules of the oracle that their names do not tell (`calc_tests.py` defining
    test cases, the project's `python_files`: `scope.test_modules`)."""
    site_dirs: tuple[str, ...] = ()
    """The site-packages folders of the project's Python (`watch_site`)."""
    site_hooks: dict[str, bytes] = field(default_factory=dict)
    """The site hooks there when the run started (absolute path -> contents)."""
    _harness: dict[str, Harness | None] = field(default_factory=dict, repr=False)
    _uses: dict[str, TestUses] | None = field(default=None, repr=False)
    _harness_source: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.targets, self.oracle_editable = tuple(self.targets), tuple(self.oracle_editable)
        self.locked = tuple(self.locked)
        self.present = tuple(loaded_files(self.root) if self.present is None else self.present)
        self.compiled = stamps(self.root) if self.compiled is None else dict(self.compiled)

    @property
    def widened(self) -> dict[str, str]:
        """Context files made editable during the run, and why."""
        return self.learned.widened

    @property
    def failing_calls(self) -> dict[str, list[str]]:
        """Functions a failing test called directly that raised, by file."""
        return self.learned.failing_calls

    def knowing(self, learned: ScopeLearned) -> EditScope:
        """This scope with what the run learned (itself when that is nothing new); what it
        found of each file is kept, but for the files with new failing functions."""
        if learned == self.learned:
            return self
        if learned.failing_tests != self.learned.failing_tests:  # what the tests use, again
            return replace(self, learned=learned, _harness={}, _uses=None)
        found = {
            p: h
            for p, h in self._harness.items()
            if learned.failing_calls.get(p) == self.failing_calls.get(p)
        }
        return replace(self, learned=learned, _harness=found)

    @property
    def judges(self) -> list[str]:
        """The oracle files that hold a check: expected output, the tests and their data
        (not the configuration, plugins or helpers that only shape one)."""
        return [p for p in self.oracle if judges(p, self.expected_name) or p in self.test_modules]

    # --- what may change -----------------------------------------------------------

    def protected_oracle(self, path: str) -> bool:
        if path in self.oracle_editable:
            return False
        if self.judged_by_name(path):
            return True
        return shadows(path) and path not in (self.present or ())

    def judged_by_name(self, path: str) -> bool:
        """Whether `path` is oracle by being one or by its name (not only by shadowing):
        a new file the project's `python_files` names would be collected, and imported,
        as a test (`test_names`)."""
        if path in self.oracle or looks_like_oracle(path, self.expected_name):
            return True
        return matches(path, self.test_names) and not (self.root / path).exists()

    def why_not(self, path: str) -> str | None:
        """Why `path` may not be changed at all (None: it may, harness rules aside)."""
        if path in self.oracle_editable:
            return None
        if self.protected_oracle(path) and not self.judged_by_name(path):
            return (
                f"{path} would be imported in place of a module of the standard library or "
                "the test framework, which would change what the check says; name the "
                "module differently"
            )
        if self.protected_oracle(path):
            return (
                f"{path} is part of the check (expected output, tests, their data and "
                "helpers, pytest's configuration and plugins); it stays as it is unless the "
                "task explicitly asks to change it (or the user allows it with --allow-edit "
                f"{path}). Change the code under test instead"
            )
        exists = (self.root / path).is_file()
        if exists and self.targets and path not in self.targets and path not in self.widened:
            named = ", ".join(self.targets)
            return (
                f"the task names {named} as the file(s) to fix; {path} is read-only context "
                f"(name it in the task with @{path} to allow changing it)"
            )
        return None

    def harness(self, path: str) -> Harness | None:
        """The harness of `path` as the run found it (computed on first use)."""
        if path not in self._harness:
            source = self._original_text(path)
            found = None
            if source is not None and path.endswith(".py"):
                defs = names_in(source, "def")
                found = find_harness(source, code_mentions(self.task, defs))
                found = protect(found, source, self.test_helpers(path, source))
                self._harness_source[path] = source
            self._harness[path] = found
        return self._harness[path]

    def test_helpers(self, path: str, source: str) -> dict[str, str]:
        """The names of `path` (whose text is `source`) that the tests use and the task
        is not about: they stay as they are (name -> why)."""
        if path in self.oracle or path in self.oracle_editable:
            return {}
        named = code_mentions(self.task, names_in(source))
        failing = self.failing_calls.get(path, [])
        return test_helpers(path, source, self.test_uses().get(path), named, failing)

    def test_uses(self) -> dict[str, TestUses]:
        """What the tests use and judge of each file of the code (read once): the tests
        that failed first, once the run knows them; else the whole suite."""
        if self._uses is None:
            tests = test_files([*self.oracle, *self.oracle_editable], self.test_modules)
            self._uses = test_uses(self.root, tests, self.learned.failing_tests)
        return self._uses

    def failing_found(self, locations: Sequence[Frame]) -> ScopeLearned:
        """The functions a failing test called directly that raised (the first check's
        traceback) and that the run did not know of: the task is about them."""
        called = failing_calls(locations, self._original_text, self.protected_oracle)
        new = {
            p: [n for n in names if n not in self.failing_calls.get(p, [])]
            for p, names in called.items()
        }
        return ScopeLearned(failing_calls={p: names for p, names in new.items() if names})

    def allows_lines(self, path: str, first: int, last: int) -> bool:
        """May the repair search change lines first..last of `path`?"""
        if self.why_not(path) is not None:
            return False
        harness = self.harness(path)
        if harness is None:
            return True
        current = self._original_text(path)
        if current is None or current == self._harness_source.get(path):
            return not harness.touches(first, last)
        moved = harness_lines(current, harness)  # an edit since moved the harness
        return moved is not None and not any(n in moved for n in range(first, last + 1))

    def check_write(self, path: str, old: str | None, new: str) -> None:
        """Raise ScopeError if writing `new` over `old` at `path` leaves the scope."""
        reason = self.why_not(path) or self._framework(path, old, new)
        if reason is not None:
            raise ScopeError(reason)
        harness = self.harness(path) if old is not None else None
        if harness is not None and harness_changed(old or "", new, harness):
            raise ScopeError(
                f"the edit changes the harness of {path} ({harness.describe()}): the code "
                "that sets up the inputs and checks the results stays as it is. Change the "
                f"code under test instead ({', '.join(harness.code_under_test) or 'the functions'})"
            )

    def admit(self, path: str, old: str | None, new: str) -> str:
        """The text to write for an edit of `path` from `old` to `new`: `new` itself, or,
        when it also changes the harness, `old` with only the edit's changes to the code
        under test (the harness kept as it was). ScopeError when nothing is left."""
        try:
            self.check_write(path, old, new)
            return new
        except ScopeError:
            harness = self.harness(path) if old is not None else None
            if harness is None or old is None:
                raise
            kept = without_harness_changes(path, old, new, harness)
            if kept is None or kept == old or harness_changed(old, kept, harness):
                raise
            if reason := self._framework(path, old, kept):
                raise ScopeError(reason) from None
            return kept

    def _framework(self, path: str, old: str | None, new: str) -> str | None:
        """Why an edit of code under test that takes up the test framework is refused
        (codur.scope.framework); the tests themselves may use it."""
        if looks_like_oracle(path, self.expected_name) or path in self.test_modules:
            return None
        return takes_up_framework(path, old, new)

    def widening(self, path: str, why: str) -> ScopeLearned | None:
        """Making the context file `path` editable, as what the run learned (None: it is
        editable already, or may never be)."""
        if path in self.widened or not self.targets or path in self.targets:
            return None
        if self.protected_oracle(path) or not (self.root / path).is_file():
            return None
        return ScopeLearned(widened={path: why})

    def _helpers_of(self, path: str) -> dict[str, str]:
        source = self._original_text(path)
        return self.test_helpers(path, source) if source is not None else {}

    def _original_text(self, path: str) -> str | None:
        target = self.root / path
        try:
            return source_encoding.read(target) if target.is_file() else None
        except (OSError, UnicodeDecodeError):
            return None

    def outside(self, changed: list[str], existed: Collection[str] = ()) -> list[str]:
        """Of the files changed during the run, those outside the code under test.
        `existed`: the files there were when the run started (one deleted since counts
        as the file it was: read-only context unless the task names it)."""
        return [
            p
            for p in changed
            if self.why_not(p) is not None
            or self.protected_oracle(p)
            or (p in existed and self.targets and p not in self.targets and p not in self.widened)
        ]

    def summary(self) -> dict:
        return {
            "targets": list(self.targets) or "every file but the oracle",
            "oracle": sorted(self.oracle),
            "oracle_editable": list(self.oracle_editable),
            "locked": list(self.locked),
            "test_helpers": {
                p: list(h) for p in sorted(self.test_uses()) if (h := self._helpers_of(p))
            },
            "reasons": self.reasons,
        }
