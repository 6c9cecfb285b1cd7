"""Evidence: the outcome of one verification check, and the traceback parsing it uses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

Basis = Literal[
    "expected_output",
    "project_tests",
    "partial_tests",
    "task_output",
    "task_values",
    "task_claims",
    "docstrings",
    "model_test",
]
"""What a behavioural check judged by: the project's expected-output file or its own tests,
part of them (the whole suite stopped at its budget), an output, its values or calls the
task states, docstring examples, or a test the model wrote (codur/verify/strength.py
ranks them)."""


class Location(BaseModel):
    """A place in the workspace a failing run's traceback went through."""

    path: str
    line: int
    function: str = ""


class Evidence(BaseModel):
    """The outcome of one check."""

    check: Literal["output", "tests", "derived", "syntax", "import", "lint", "oracle"]
    passed: bool
    command: str
    summary: str
    """One line: what ran and how it went."""
    feedback: str = ""
    """For a failed check: the message the coding agent reads (expected/actual/error)."""
    fingerprint: str = ""
    """Identifies 'the same failure' across attempts."""
    duration_s: float = 0.0
    timed_out: bool = False
    """The program was stopped at its timeout (its duration says nothing of a normal run)."""
    locations: list[Location] = Field(default_factory=list)
    """Workspace frames of the failing traceback, outermost first."""
    exceptions: list[str] = Field(default_factory=list)
    """Exception class names the failing run printed (e.g. KeyError)."""
    first_wrong_line: int | None = None
    """0-based index of the first output line that differs from the expected output."""
    failing_tests: list[str] = Field(default_factory=list)
    """pytest ids of the failing tests (tests checks)."""
    hint: str = ""
    """A short pointer to the failure (first wrong output line, failing test)."""
    ran: bool = True
    """The check checked something of the task. False (hollow): no test body ran (pytest
    stopped at collection errors only, or every test was skipped or xfailed), or the tests
    reach none of the files the task is about."""
    basis: Basis | None = None
    """What a behavioural check judged by; None: a static or oracle check."""
    cases: int = 0
    """Tests that passed (a derived check: one a claim or example; 1: an output check)."""


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_PYTEST_FRAME = re.compile(r"^([^\s:][^:\n]*\.py):(\d+):(?: in (\S+))?", re.MULTILINE)
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")
_PROGRESS = re.compile(r"^[.FEsxX]+(?=/)")
"""pytest -q's progress characters run into an absolute path printed after them on the
same line (`....EFE.../src/pkg/mod.py:12: ...`)."""


def frames(text: str) -> list[tuple[str, int, str]]:
    """(path as printed, line, function) for each traceback frame in `text`, in order."""
    found = [(m[1], int(m[2]), m[3]) for m in _FRAME.finditer(text)]
    found += [
        (_PROGRESS.sub("", m[1]), int(m[2]), m[3] or "") for m in _PYTEST_FRAME.finditer(text)
    ]
    return found


def exception_names(text: str) -> list[str]:
    return list(dict.fromkeys(_EXCEPTION.findall(text)))


def locations(text: str, root: Path) -> list[Location]:
    """The traceback frames of `text` that are files under `root`, as workspace paths."""
    found: list[Location] = []
    for printed, line, function in frames(text):
        path = Path(printed)
        try:
            path = (path if path.is_absolute() else root / path).resolve()
            here = path.is_relative_to(root) and path.is_file()
        except OSError:  # no file by that name can exist (too long, say): not a frame
            continue
        if here:
            loc = Location(path=path.relative_to(root).as_posix(), line=line, function=function)
            if loc not in found:
                found.append(loc)
    return found
