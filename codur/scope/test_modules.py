"""Which files of a folder are its tests, as its suite collects them: by pytest's names
(`python_files`, the project's or pytest's own) and by what they define. A module that
defines a `unittest.TestCase` class with a test method is a test module whatever its name
(Django's `app/tests.py`, `calc_tests.py` run by `python -m unittest calc_tests`), and is
protected as the check like any test file."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from codur import source_encoding
from codur.scope.pytest_ini import DEFAULT_TEST_FILES, existing, ini_options, matches

MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class SuiteFiles:
    modules: frozenset[str]
    """The test modules the suite runs: named as `python_files` says (a file only the
    project's own pattern names counts under `testpaths` and when it defines a test:
    `python_files = *.py` names every module); with no pytest configuration, also the
    modules that define test cases."""
    support: frozenset[str]
    """conftest.py files and the other Python files of a `tests/` or `test/` tree."""
    cases: frozenset[str]
    """The modules that define test cases, whether the suite runs them or not."""

    @property
    def every(self) -> frozenset[str]:
        return self.modules | self.support


def suite_files(root: Path, files: Iterable[str]) -> SuiteFiles:
    """The test files among `files` (workspace paths) of the folder at `root`."""
    found = ini_options(root)
    options = found[1] if found else {}
    own = tuple(options.get("python_files") or ())
    under = existing(root, options.get("testpaths") or [])
    functions = tuple(options.get("python_functions") or ["test"])
    classes = tuple(options.get("python_classes") or ["Test"])
    modules, support, cases = set(), set(), set()
    for path in (f for f in files if f.endswith(".py")):
        name = PurePosixPath(path).name
        text = None if matches(path, DEFAULT_TEST_FILES) else _text(root / path)
        if text is not None and defines_test_cases(text):
            cases.add(path)
        if name == "conftest.py":
            support.add(path)
        elif (
            matches(path, own or DEFAULT_TEST_FILES)
            and (
                matches(path, DEFAULT_TEST_FILES)
                or (_under(path, under) and _defines_tests(text or "", functions, classes))
            )
            or found is None
            and path in cases
        ):
            modules.add(path)
        elif in_test_folder(path):
            support.add(path)
    return SuiteFiles(frozenset(modules), frozenset(support), frozenset(cases))


def test_functions(root: Path) -> tuple[str, ...]:
    """pytest's `python_functions` for the folder (prefixes or globs; `test` unset)."""
    found = ini_options(root)
    return tuple(found[1]["python_functions"] if found else ()) or ("test",)


def runs_doctests(root: Path) -> bool:
    """Whether pytest's configuration makes the modules' doctests tests of the suite
    (`addopts = --doctest-modules`): a project may have no other."""
    found = ini_options(root)
    return found is not None and "--doctest-modules" in found[1]["addopts"]


def own_test_names(root: Path) -> tuple[str, ...]:
    """The project's `python_files` patterns beyond pytest's own that name some files,
    not all (`check_*.py`; not `*.py`)."""
    found = ini_options(root)
    patterns = found[1]["python_files"] if found else []
    return tuple(
        p
        for p in patterns
        if p not in DEFAULT_TEST_FILES and PurePosixPath(p).name.strip("*?").removesuffix(".py")
    )


def in_test_folder(path: str) -> bool:
    return any(part in ("tests", "test") for part in PurePosixPath(path).parts[:-1])


def _under(path: str, paths: list[str]) -> bool:
    return not paths or any(path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


def _text(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        return source_encoding.read(path)
    except (OSError, UnicodeDecodeError):
        return None


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def defines_test_cases(text: str) -> bool:
    """A module-level class based on a `...TestCase` with a `test*` method."""
    tree = _parse(text) if "TestCase" in text else None
    return tree is not None and any(_case(node) for node in tree.body)


def _case(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.ClassDef)
        and any(base_name(b).endswith("TestCase") for b in node.bases)
        and any(_is_def(f) and f.name.startswith("test") for f in node.body)
    )


def _defines_tests(text: str, functions: tuple[str, ...], classes: tuple[str, ...]) -> bool:
    """A test function or class by pytest's `python_functions` / `python_classes` (prefixes
    or globs), or a test case."""
    tree = _parse(text)
    if tree is None:
        return False
    for node in tree.body:
        if _is_def(node) and _named(node.name, functions):
            return True
        if isinstance(node, ast.ClassDef) and (_named(node.name, classes) or _case(node)):
            return True
    return False


def _named(name: str, rules: tuple[str, ...]) -> bool:
    return any(fnmatch(name, r) if "*" in r or "?" in r else name.startswith(r) for r in rules)


def _is_def(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)


def base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""
