"""Which test suite a folder has and how it runs, in this order: the configured command
(`verify.test_command`); pytest's configuration (`scope.pytest_ini`: pytest.toml,
pytest.ini, pyproject.toml, tox.ini, setup.cfg, the order pytest reads them in) with its
`testpaths`; unittest discovery, when every test file holds
unittest.TestCase classes only (no pytest import, no test functions, no conftest.py), or
the modules by name when unittest's pattern (`test*.py`) misses some; else pytest on the
`tests/` or `test/` tree that holds every test file, or on the whole folder. A test
module found by what it defines (`scope.test_modules`) that pytest's names miss makes
pytest run every test module by its path (given a folder, pytest would pass it over).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

from codur import source_encoding
from codur.config.schema import VerifyConfig
from codur.scope.pytest_ini import DEFAULT_TEST_FILES, existing, ini_options, matches
from codur.scope.test_modules import base_name
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


def suite(
    root: Path, cfg: VerifyConfig, tests: list[str], modules: list[str] | None = None
) -> Suite:
    """The folder's suite; `tests`: its test files (workspace paths, conftest.py too);
    `modules`: of them the test modules (None: those pytest's default names find). A test
    module pytest's names miss (`calc_tests.py`, defining test cases) has every module run
    by its path (by its name under unittest), unless pytest's configuration says what the
    suite is."""
    if modules is None:
        modules = [t for t in tests if matches(t, DEFAULT_TEST_FILES)]
    if cfg.test_command:
        return Suite("command", ["."], cfg.test_command, "the configured test command")
    found = pytest_config(root)
    if found is not None:
        source, testpaths = found
        paths = existing(root, testpaths) or ["."]
        shown = f", testpaths {' '.join(paths)}" if testpaths else ""
        return Suite("pytest", paths, None, f"pytest's configuration in {source}{shown}")
    tree = next((t for t in TREES if tests and all(_under(p, t) for p in tests)), None)
    if modules and _unittest_only(root, tests, modules):
        if all(fnmatch(PurePosixPath(m).name, "test*.py") for m in modules):
            start = tree or "."
            why = f"unittest test cases only (discovered in {start})"
            return Suite("unittest", [start], None, why)
        if all(_importable(root, m) for m in modules):
            why = f"unittest test cases only ({len(modules)} module(s), run by name)"
            return Suite("unittest", modules, None, why)
    if any(not matches(m, DEFAULT_TEST_FILES) for m in modules):  # a folder would miss it
        return Suite("pytest", modules, None, f"{len(modules)} test module(s), by path")
    if tree is not None:
        return Suite("pytest", [tree], None, f"the {tree}/ tree")
    return Suite("pytest", ["."], None, f"{len(tests)} test file(s) in the folder")


def pytest_config(root: Path) -> tuple[str, list[str]] | None:
    """(the file holding pytest's configuration, its testpaths), as pytest finds it at the
    folder's root; None: no configuration there."""
    found = ini_options(root)
    return None if found is None else (found[0], found[1]["testpaths"])


def _importable(root: Path, module: str) -> bool:
    """Whether `module` imports by its dotted name from the root, its siblings by theirs:
    it lies at the root or in packages (a `tests/` folder without `__init__.py` would
    need its own folder on the path, as pytest puts it there)."""
    folders = PurePosixPath(module).parents
    return all((root / f / "__init__.py").is_file() for f in folders if str(f) != ".")


def _under(path: str, tree: str) -> bool:
    return PurePosixPath(path).parts[:1] == (tree,)


def _unittest_only(root: Path, tests: list[str], modules: list[str]) -> bool:
    """Every test module defines unittest.TestCase classes and nothing pytest alone runs,
    and no conftest.py is there."""
    if "conftest.py" in (PurePosixPath(t).name for t in tests):
        return False
    return all(_test_cases_only(root / m) for m in modules)


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
            cases |= any(base_name(b).endswith("TestCase") for b in node.bases)
    return cases
