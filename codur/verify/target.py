"""Decide what to run to verify a task, from what is in the folder (never a fixed main.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from codur import source_encoding
from codur.config.schema import VerifyConfig
from codur.scope.pytest_ini import DEFAULT_TEST_FILES, matches
from codur.tools.python import CONVENTIONAL_ENTRY_POINTS
from codur.workspace import Workspace, project_tree

NOT_ENTRY_POINTS = {"setup.py", "conftest.py", "noxfile.py"}


@dataclass(frozen=True)
class Target:
    """A verification: run `command` in the workspace; compare stdout with `expected_file`
    when there is one, else success is exit code 0 (e.g. a pytest run). For messages only:
    `expected_file` names what the output is compared with (a file, or where an expected
    output given inline came from)."""

    command: list[str]
    entry: str
    expected_file: str | None = None

    def describe(self) -> str:
        against = f", compared with {self.expected_file}" if self.expected_file else ""
        return f"{' '.join([Path(self.command[0]).name, *self.command[1:]])}{against}"


def is_test(path: str) -> bool:
    """A test module by pytest's default names, or a file of a `tests/` tree (the files
    a project's own rules make tests: `scope.test_modules.suite_files`)."""
    return matches(path, DEFAULT_TEST_FILES) or "tests/" in path


_LIBRARY_STATEMENTS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


def runs_something(path: Path) -> bool:
    """Does running this file do anything beyond defining things (a script, not a
    library module like `inventory/stock.py` that main.py imports)?"""
    try:
        tree = ast.parse(source_encoding.read(path))
    except (SyntaxError, UnicodeDecodeError):
        return True  # broken code: running it is how its error shows
    body = [
        n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    return any(not isinstance(node, _LIBRARY_STATEMENTS) for node in body)


def entry_point(ws: Workspace, refs: list[str], cfg: VerifyConfig) -> str | None:
    """Config first, then a referenced script, then the folder's one obvious script."""
    if cfg.entry_point:
        return cfg.entry_point
    for ref in refs:
        path = ws.resolve(ref)
        if ref.endswith(".py") and not is_test(ref) and path.is_file() and runs_something(path):
            return ref
    for name in CONVENTIONAL_ENTRY_POINTS:
        if (ws.root / name).is_file():
            return name
    scripts = [
        p.name
        for p in sorted(ws.root.glob("*.py"))
        if p.name not in NOT_ENTRY_POINTS and not is_test(p.name)
    ]
    return scripts[0] if len(scripts) == 1 else None


def python_files(root: Path) -> Iterator[str]:
    """The project's Python files (workspace-relative), as Python sees them
    (`codur.workspace.project_tree`)."""
    for folder, names in project_tree(root):
        rel = folder.relative_to(root)
        yield from ((rel / n).as_posix() for n in names if n.endswith(".py"))
