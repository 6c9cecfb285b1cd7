"""Task texts for a bug: one names the failing tests, the other describes only the symptom,
as an issue would, from what the failing test saw (its statement and the error), never
from the mutation."""

from __future__ import annotations

import difflib
import re


def named_task(failing: list[str]) -> str:
    shown = ", ".join(failing[:3]) + (f" and {len(failing) - 3} more" if len(failing) > 3 else "")
    verb = "fails" if len(failing) == 1 else "fail"
    return f"{shown} {verb}: fix the bug in the package's code (the tests are right)."


def _first_lines(error: str, limit: int = 300) -> str:
    text = " ".join(line.strip() for line in error.strip().splitlines()[:4] if line.strip())
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def symptom_task(package: str, version: str, record: dict) -> str:
    """`record`: the failing test's outcome (plugin/realrepo_outcomes.py): the statement of
    the test that failed and the error's first lines."""
    statement = re.sub(r"\s+", " ", record.get("statement", "")).strip()
    error = _first_lines(record.get("error", ""))
    where = f"In {package} {version}, "
    if statement.startswith("assert ") or "assert" in statement.split("(")[0]:
        return f"{where}this check fails: `{statement}` ({error}). It should hold; please fix."
    if statement:
        return f"{where}`{statement}` raises {error}. It should not; please fix."
    return f"{where}a call fails with {error}. Please fix."


def patch_of(path: str, before: str, after: str) -> str:
    """A unified diff `git apply` takes (a/ and b/ prefixes)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
        n=3,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
