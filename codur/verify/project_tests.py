"""The project's tests as a check: which files are its test files, and the staged check
of its suite (verify/tests_check.py) with the reasons for it: its command, the tests that
failed first, those importing the changed code, and whether the tests reach and call
what the run changed (verify/reach.py, verify/calls.py)."""

from __future__ import annotations

import shlex
from collections.abc import Collection, Mapping
from pathlib import Path

from codur.config.schema import VerifyConfig
from codur.scope.support import closure
from codur.scope.test_modules import runs_doctests, suite_files
from codur.verify import calls, detect
from codur.verify.reach import source_text, unreached
from codur.verify.target import is_test, python_files
from codur.verify.tests_check import TestCheck


def suite_of(root: Path) -> tuple[list[str], list[str]]:
    """The folder's test files (conftest.py and a tests/ tree's helpers too), and of them
    the test modules (`scope.test_modules.suite_files`)."""
    suite = suite_files(root, python_files(root))
    return sorted(suite.every), sorted(suite.modules)


def _apart(root: Path, named: list[str]) -> list[str]:
    """The task's Python files, when no test reaches any of them (else none); with the
    modules' doctests in the suite (`--doctest-modules`), a file's own doctests reach it."""
    targets = [f for f in dict.fromkeys(named) if f.endswith(".py") and not is_test(f)]
    missed = unreached(root, targets)
    if runs_doctests(root):
        missed = [f for f in missed if ">>>" not in (source_text(root, f) or ">>>")]
    return missed if targets and len(missed) == len(targets) else []


def staged_tests(
    root: Path,
    cfg: VerifyConfig,
    files: tuple[list[str], list[str]],
    named: list[str],
    failing: Collection[str],
    before: Mapping[str, str | None] | None = None,
) -> tuple[TestCheck, list[str]]:
    """The project's tests as a staged check (verify/tests_check.py), and why; `files`:
    its test files and, of them, its test modules (`suite_of`); `named`: the files the
    task names or the run changed; `failing`: ids of tests that failed earlier; `before`:
    the changed files' text before the run (None: nothing changed yet)."""
    found, modules = files
    suite = detect.suite(root, cfg, found, modules)
    related = _relevant_tests(root, modules, named) if cfg.relevant_tests_only else []
    related = [] if set(related) >= set(modules) else related  # the suite is no more
    # the user's command is the project's verdict, whatever its test files import
    apart = [] if related or suite.runner == "command" else _apart(root, named)
    own = suite.runner == "command" or apart or not before
    changed = {} if own else calls.changed_in(root, before or {})
    # pytest lists the tests it passed: they decide after the run (tests_check)
    uncalled = calls.uncalled_of(root, changed, suite.paths, may_run=suite.runner == "pytest")
    # a check's ids for files outside the folder (the docstrings' generated tests) are
    # no tests of the project's
    first = [i for i in dict.fromkeys(failing) if _in_folder(root, i)]
    held: list[str] = []
    if suite.runner != "command" and set(modules) <= {i.split("::")[0] for i in first}:
        first, held = [], first  # they are the whole suite: run it once, held to them
    check = TestCheck(
        paths=suite.paths,
        runner=suite.runner,
        command=suite.command,
        first=first,
        held=held,
        related=related,
        budget_s=cfg.suite_budget_s,
        unreached=apart,
        uncalled=uncalled,
        changed=changed if suite.runner == "pytest" else {},
    )
    shown = suite.command and shlex.join(suite.command)
    reasons = [f"the test suite: {shown or ' '.join(suite.paths)} ({suite.why})"]
    if first:
        reasons.append(f"first the tests that failed: {', '.join(first[:5])}")
    if related:
        reasons.append(f"then the tests that import the changed code: {', '.join(related)}")
    if apart:
        reasons.append(f"no test reaches {', '.join(apart)}: they say nothing of it")
    if uncalled:
        reasons.append(f"no test calls {', '.join(uncalled)}: they say nothing of it")
    return check, reasons


def _in_folder(root: Path, test_id: str) -> bool:
    """Whether a pytest id's file is in the folder (a unittest id: always)."""
    return "::" not in test_id or (root / test_id.split("::")[0]).is_file()


def _relevant_tests(root: Path, tests: list[str], files: list[str]) -> list[str]:
    """The test files among `files`, and those importing a module among `files`, directly
    or through the folder's other modules (codur/scope/support.py)."""
    targets = {f for f in files if f.endswith(".py") and not is_test(f)}
    chosen = [t for t in tests if t in files]
    if not targets:
        return chosen
    modules = set(python_files(root))
    for test in tests:
        if test not in chosen and closure(root, [test], modules) & targets:
            chosen.append(test)
    return chosen
