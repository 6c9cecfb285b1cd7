"""The oracle: the files a check judges by. They are captured at the start of a run and
never edited unless the task explicitly asks for it (or the user allows it).

- expected-output files (`verify.expected_file`, wherever it lies);
- test files by pytest's discovery rules (`test_*.py`, `*_test.py`, and the project's
  `python_files` patterns), modules that define unittest test cases whatever their
  names (`scope.test_modules`), `conftest.py`, and
  everything under a `tests/` or `test/` folder (fixtures, data);
- what pytest loads besides the tests (`codur.scope.support`): its configuration
  (`pytest.ini`, `.pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`), site hooks
  (`sitecustomize.py`, `usercustomize.py`, `*.pth`), the plugins the configuration names
  and the helper modules the tests import that are not code under test;
- the fixtures tests read: files a test file names in a string literal; a module the
  tests import and a test only runs as a program (`[sys.executable, "pkg/cli.py"]`) is
  code under test;
- the folder's files the configured test command names (`python run_tests.py`: the
  script), `command_files`.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from codur import source_encoding
from codur.scope.pytest_ini import DEFAULT_TEST_FILES, matches
from codur.scope.support import closure, helpers, loaded_by_name, plugins, shadows
from codur.scope.test_modules import in_test_folder, suite_files
from codur.workspace import project_tree

MAX_CAPTURE_BYTES = 5_000_000
"""Oracle files larger than this are protected by path but not captured."""


def is_test_file(path: str) -> bool:
    """pytest's default discovery rule for test modules, plus conftest.py."""
    name = PurePosixPath(path).name
    return name == "conftest.py" or matches(path, DEFAULT_TEST_FILES)


def looks_like_oracle(path: str, expected_name: str) -> bool:
    """Whether a file at `path` (existing or new) would be part of a check by its name."""
    name = PurePosixPath(path).name
    test = is_test_file(path) or in_test_folder(path)
    return name == expected_name or test or loaded_by_name(path)


def judges(path: str, expected_name: str) -> bool:
    """Whether an oracle file at `path` holds a check (expected output, a test module, the
    tests' data) rather than shaping one (pytest's configuration, plugins and site hooks,
    the tests' helper modules); a test module named otherwise is the scope's to say."""
    if loaded_by_name(path):
        return False
    return looks_like_oracle(path, expected_name) or not path.endswith(".py")


def all_files(root: Path, ignore: set[str]) -> list[str]:
    """Every regular file under `root` (workspace-relative, POSIX), skipping caches and
    venvs. A symlink leading out of `root`, a dangling one, a loop or a FIFO is no file of
    the folder: it is never read (nor captured, nor judged by)."""
    found = []
    top = root.resolve()
    for folder, names in project_tree(root, ignore):  # a gitignored file judges too
        rel = folder.relative_to(root)
        found += [(rel / n).as_posix() for n in names if _own_file(top, folder / n)]
    return found


def _own_file(top: Path, path: Path) -> bool:
    """Whether `path` is a regular file that lies (symlinks followed) inside `top`."""
    real = Path(os.path.realpath(path))
    return (real == top or top in real.parents) and real.is_file()


def _fixtures(root: Path, test: str, files: set[str]) -> tuple[set[str], set[str]]:
    """Workspace files a test file names in a string literal (relative to the root or to
    the test's folder): (those it may read, those it only runs as a program: a string in
    a list beside `sys.executable`, or an argument of `subprocess.*`, `os.system`,
    `runpy.run_path`)."""
    try:
        tree = ast.parse(source_encoding.read(root / test))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return set(), set()
    here = PurePosixPath(test).parent
    running = {id(c) for node in ast.walk(tree) for c in _program_strings(node)}
    read: set[str] = set()
    run: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            text = node.value.strip()
            if len(text) > 200 or "\n" in text:
                continue
            for candidate in (PurePosixPath(text), here / text):
                if candidate.as_posix() in files:
                    (run if id(node) in running else read).add(candidate.as_posix())
    return read, run


RUNNERS = ("subprocess.", "os.system", "os.spawn", "os.exec", "runpy.run_path")
"""Calls whose string arguments name a program to run, not a file to read."""


def _program_strings(node: ast.AST) -> list[ast.AST]:
    """The string constants `node` gives as a program to run: the items of a command list
    holding `sys.executable`, the arguments of a call to one of RUNNERS."""
    listed = isinstance(node, ast.List | ast.Tuple)
    if listed and any(ast.unparse(e) == "sys.executable" for e in node.elts):
        return list(node.elts)
    if isinstance(node, ast.Call) and ast.unparse(node.func).startswith(RUNNERS):
        return [c for arg in node.args for c in ast.walk(arg) if isinstance(c, ast.Constant)]
    return []


def find_oracle(
    root: Path,
    expected_name: str,
    ignore: set[str],
    named: list[str] | None = None,
    command: Iterable[str] = (),
) -> list[str]:
    """The oracle's files in `root`; `named`: the files the task names (what they import
    is code under test, not a test helper); `command`: the configured test command."""
    files = all_files(root, ignore)
    present = set(files)
    chosen = {path for path in files if looks_like_oracle(path, expected_name)}
    suite = suite_files(root, files)
    chosen |= suite.modules | suite.cases
    chosen |= command_files(root, command)
    tests = sorted(p for p in chosen if p.endswith(".py"))
    chosen |= plugins(root, present) | helpers(root, tests, present, named or [])
    imported = closure(root, tests, present)  # code under test (or helpers, added above)
    for test in tests:
        read, run = _fixtures(root, test, present)
        chosen |= read | (run - imported)
    return sorted(chosen)


def command_files(root: Path, command: Iterable[str]) -> set[str]:
    """The folder's regular files among a test command's arguments (its script)."""
    found = set()
    for arg in command:
        path = PurePosixPath(arg)
        if arg.startswith("-") or path.is_absolute() or ".." in path.parts:
            continue
        if (root / arg).is_file() and not (root / arg).is_symlink():
            found.add(path.as_posix().removeprefix("./"))
    return found


def loaded_files(root: Path) -> list[str]:
    """The files in `root` that pytest or Python's start-up load by name, or that would be
    imported in place of the standard library or the test framework, in every folder
    (`tools.ignore` too: pytest does not skip it)."""
    return [p for p in all_files(root, set()) if loaded_by_name(p) or shadows(p)]


def created(root: Path, known: Iterable[str]) -> list[str]:
    """Files pytest or Python's start-up load by name (or that shadow the standard library
    or the test framework) that are in `root` now but not among `known`: those there at
    the start of the run, and the ones it may create."""
    seen = set(known)
    return [p for p in loaded_files(root) if p not in seen]


def capture(root: Path, paths: list[str]) -> dict[str, bytes | None]:
    """The contents of `paths` now (None: too large to keep; protected by path only)."""
    captured: dict[str, bytes | None] = {}
    for path in paths:
        target = root / path
        captured[path] = target.read_bytes() if target.stat().st_size <= MAX_CAPTURE_BYTES else None
    return captured
