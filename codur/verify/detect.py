"""Which test suite a folder has and how it runs, in this order: the configured command
(`verify.test_command`); pytest's configuration (pytest.ini, .pytest.ini, pyproject.toml's
[tool.pytest.ini_options], tox.ini's [pytest], setup.cfg's [tool:pytest], the order pytest
reads them in) with its `testpaths`; unittest discovery, when every test file holds
unittest.TestCase classes only (no pytest import, no test functions, no conftest.py) and
unittest's pattern (`test*.py`) finds them all; else pytest on the `tests/` or `test/`
tree that holds every test file, or on the whole folder.
"""

from __future__ import annotations

import ast
import glob
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from codur import source_encoding
from codur.config.schema import VerifyConfig
from codur.scope.pytest_ini import ini_options
from codur.verify.suite import Runner

TREES = ("tests", "test")


@dataclass(frozen=True)
class Suite:
    """How the folder's whole test suite runs."""

    runner: Runner
    paths: list[str]
    """pytest: the files and folders it collects; unittest: the folder discovery starts in."""
    command: list[str] | None
    """The configured test command (runner `command`)."""
    why: str
    """Where it was found, for the verdict's reasoning."""


def suite(root: Path, cfg: VerifyConfig, tests: list[str]) -> Suite:
    """The folder's suite; `tests`: its test files (workspace paths, conftest.py too)."""
    if cfg.test_command:
        return Suite("command", ["."], cfg.test_command, "the configured test command")
    found = pytest_config(root)
    if found is not None:
        source, testpaths = found
        paths = _existing(root, testpaths) or ["."]
        shown = f", testpaths {' '.join(paths)}" if testpaths else ""
        return Suite("pytest", paths, None, f"pytest's configuration in {source}{shown}")
    tree = next((t for t in TREES if tests and all(_under(p, t) for p in tests)), None)
    if tests and _unittest_only(root, tests):
        start = tree or "."
        return Suite("unittest", [start], None, f"unittest test cases only (discovered in {start})")
    if tree is not None:
        return Suite("pytest", [tree], None, f"the {tree}/ tree")
    return Suite("pytest", ["."], None, f"{len(tests)} test file(s) in the folder")


def pytest_config(root: Path) -> tuple[str, list[str]] | None:
    """(the file holding pytest's configuration, its testpaths), as pytest finds it at the
    folder's root; None: no configuration there."""
    found = ini_options(root)
    return None if found is None else (found[0], found[1]["testpaths"])


def _existing(root: Path, testpaths: list[str]) -> list[str]:
    """The testpaths (globs, as pytest reads them) that name files or folders inside."""
    found: list[str] = []
    for pattern in testpaths:
        if PurePosixPath(pattern).is_absolute() or ".." in PurePosixPath(pattern).parts:
            continue
        for match in sorted(glob.glob(pattern, root_dir=root)) or []:
            rel = PurePosixPath(match).as_posix()
            if (root / rel).exists() and rel not in found:
                found.append(rel)
    return found


def _under(path: str, tree: str) -> bool:
    return PurePosixPath(path).parts[:1] == (tree,)


def _unittest_only(root: Path, tests: list[str]) -> bool:
    """Every test module defines unittest.TestCase classes and nothing pytest alone runs,
    unittest's discovery pattern finds each of them, and no conftest.py is there."""
    names = [PurePosixPath(t).name for t in tests]
    modules = [t for t, n in zip(tests, names, strict=True) if n.startswith("test")]
    if "conftest.py" in names or any(n.endswith("_test.py") for n in names):
        return False
    return bool(modules) and all(_test_cases_only(root / t) for t in modules)


def _test_cases_only(path: Path) -> bool:
    try:
        tree = ast.parse(source_encoding.read(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    cases = False
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(n.split(".")[0] == "pytest" for n in names):
                return False
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test"):
                return False  # a test function: pytest's, unittest never runs it
        elif isinstance(node, ast.ClassDef):
            cases |= any(_base_name(b).endswith("TestCase") for b in node.bases)
    return cases


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
