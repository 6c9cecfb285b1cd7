"""Test modules by what they hold, not their names: a module that defines a
`unittest.TestCase` class with a test method (Django's `app/tests.py`, `calc_tests.py`
run by `python -m unittest calc_tests`) is a test module whatever pytest's name patterns
say. It judges the run like any test file, so it is protected as the check."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from codur import source_encoding

MAX_BYTES = 1_000_000


def defines_test_cases(text: str) -> bool:
    """A module-level class based on a `...TestCase` with a `test*` method."""
    if "TestCase" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(
        isinstance(node, ast.ClassDef)
        and any(base_name(b).endswith("TestCase") for b in node.bases)
        and any(
            isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name.startswith("test")
            for f in node.body
        )
        for node in tree.body
    )


def base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def case_modules(root: Path, files: Iterable[str]) -> set[str]:
    """The Python files among `files` (workspace paths) that define test cases."""
    found = set()
    for path in files:
        target = root / path
        if not path.endswith(".py") or not target.is_file() or target.is_symlink():
            continue
        try:
            if target.stat().st_size > MAX_BYTES:
                continue
            text = source_encoding.read(target)
        except (OSError, UnicodeDecodeError):
            continue
        if defines_test_cases(text):
            found.add(path)
    return found
