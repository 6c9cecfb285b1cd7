"""What pytest loads besides the tests: its configuration, its plugins and site hooks, and
the helper modules the tests import. Each decides what a test run says, so each is part
of the oracle.

- by name (existing or new): `conftest.py` anywhere, `pytest.ini`, `.pytest.ini`,
  `tox.ini`, `setup.cfg`, `pyproject.toml`, `sitecustomize.py`, `usercustomize.py`, `*.pth`,
  and compiled modules outside `__pycache__` (`*.pyc`, which load without a source);
- by the name it is imported as (new only): a module that would shadow the standard
  library or the test framework (`pytest.py`, `_pytest/`, `unittest.py`, `json.py`) where
  the tests import it from (the folder's root, `src/`, a test's folder);
- plugins the configuration names: `-p NAME` in a config file, `pytest_plugins = [...]`
  in a conftest or test module, `pytest11` entry points in setup.cfg or pyproject.toml;
- helpers: the folder's modules the tests import (directly or through each other) that
  are not code under test. Code under test is what the task names and what that imports;
  when the task names no file, it is every module except those that are test support by
  their content (they import pytest or unittest, or define pytest hooks or fixtures, or
  define a function that returns nothing and asserts or raises AssertionError, and no
  code outside the tests imports them: assertion helpers in the kind of `numpy.testing`).
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

import tomllib

from codur import source_encoding
from codur.scope.modules import module_file

LOADED_BY_NAME = ("conftest.py", "pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini")
LOADED_BY_NAME += ("tox.ini", "setup.cfg")
LOADED_BY_NAME += ("pyproject.toml", "sitecustomize.py", "usercustomize.py")
"""Files pytest or Python's start-up read by their name alone."""
TEST_FRAMEWORKS = frozenset({"pytest", "_pytest", "unittest", "hypothesis"})
SHADOWABLE = frozenset(sys.stdlib_module_names) | TEST_FRAMEWORKS
SHADOWABLE |= {"pluggy", "py", "iniconfig", "packaging", "exceptiongroup", "tomli"}
"""Top-level modules a test run imports from outside the folder: the standard library,
the test frameworks and pytest's own dependencies. A folder module of the same name
would be imported in their place."""
_PLUGIN_FLAG = re.compile(r"(?:^|\s)-p\s*([A-Za-z_][\w.]*)")
MAX_BYTES = 1_000_000
"""A larger Python file is data (a generated table), not parsed for imports, plugins or
what the task states about its code."""


def loaded_by_name(path: str) -> bool:
    """Whether pytest or Python's start-up would load a file at `path` by its name."""
    name = PurePosixPath(path).name
    return name in LOADED_BY_NAME or name.endswith((".pth", ".pyc"))


def shadows(path: str) -> bool:
    """Whether a module at `path` would be imported in place of one of `SHADOWABLE`: its
    top-level name as seen from the folder's root, from `src/`, or from its own folder
    (pytest puts a test's folder first on `sys.path`)."""
    parts = PurePosixPath(path).parts
    if not parts or not parts[-1].endswith((".py", ".pyc")):
        return False
    names = {PurePosixPath(parts[0]).stem, PurePosixPath(parts[-1]).stem}
    if parts[0] == "src" and len(parts) > 1:
        names.add(PurePosixPath(parts[1]).stem)
    if len(parts) > 1 and PurePosixPath(parts[-1]).stem == "__init__":
        names.add(parts[-2])
    return bool(names & SHADOWABLE)


def _text(root: Path, path: str) -> str | None:
    try:
        target = root / path
        return source_encoding.read(target) if target.stat().st_size <= MAX_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None


def _tree(root: Path, path: str) -> ast.Module | None:
    text = _text(root, path)
    try:
        return ast.parse(text) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def imported(root: Path, path: str, files: set[str]) -> set[str]:
    """The folder's files that the module at `path` imports (relative imports included)."""
    tree = _tree(root, path)
    if tree is None:
        return set()
    package = PurePosixPath(path).parent
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.parent
                prefix = ".".join(p for p in up.parts if p not in (".", ""))
                base = ".".join(p for p in (prefix, base) if p)
            names = [base, *(f"{base}.{a.name}" if base else a.name for a in node.names)]
        for name in (n for n in names if n):
            target = module_file(name, files, path)
            if target is not None and target != path:
                found.add(target)
    return found


def closure(root: Path, start: Iterable[str], files: set[str]) -> set[str]:
    """`start` and every folder module they import, transitively."""
    seen, todo = set(start), list(start)
    while todo:
        for module in imported(root, todo.pop(), files) - seen:
            seen.add(module)
            todo.append(module)
    return seen


def is_support_code(root: Path, path: str) -> bool:
    """A module that is test infrastructure by its content: it imports a test framework,
    or defines pytest hooks (`pytest_*`) or fixtures."""
    tree = _tree(root, path)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            modules.append(getattr(node, "module", None) or "")
            if any(m.split(".")[0] in TEST_FRAMEWORKS for m in modules):
                return True
        if isinstance(node, ast.FunctionDef) and node.name.startswith("pytest_"):
            return True
    return False


def plugins(root: Path, files: set[str]) -> set[str]:
    """The folder's modules that pytest's configuration or conftest files load as plugins."""
    names: set[str] = set()
    for path in files:
        name = PurePosixPath(path).name
        if name in LOADED_BY_NAME and not name.endswith(".py"):
            text = _text(root, path) or ""
            names.update(_PLUGIN_FLAG.findall(text))
            names.update(_entry_points(name, text))
        elif name.endswith(".py") and (name == "conftest.py" or name.startswith("test")):
            names.update(_pytest_plugins(root, path))
    return {m for n in names if (m := module_file(n, files)) is not None}


def _pytest_plugins(root: Path, path: str) -> set[str]:
    tree = _tree(root, path)
    found: set[str] = set()
    for node in tree.body if tree is not None else []:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in targets):
                found.update(
                    n.value
                    for n in ast.walk(node.value or ast.Constant(None))
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                )
    return found


def _entry_points(name: str, text: str) -> set[str]:
    """Modules registered as `pytest11` entry points (the part before any `:`)."""
    values: list[str] = []
    if name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return set()
        points = data.get("project", {}).get("entry-points", {}).get("pytest11", {})
        values = [str(v) for v in points.values()] if isinstance(points, dict) else []
    elif name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
            raw = parser.get("options.entry_points", "pytest11", fallback="")
        except configparser.Error:
            return set()
        values = [line.split("=", 1)[-1] for line in raw.splitlines() if line.strip()]
    return {v.split(":")[0].strip() for v in values if v.strip()}


def helpers(root: Path, tests: list[str], files: set[str], named: list[str]) -> set[str]:
    """The modules the tests import that are not code under test (see the docstring)."""
    reached = closure(root, tests, files) - set(tests)
    code = [n for n in named if n.endswith(".py") and n in files and n not in tests]
    if code:
        under_test = closure(root, code, files)
        for path in code:  # the packages the named modules are in
            under_test |= {f"{p.as_posix()}/__init__.py" for p in PurePosixPath(path).parents}
        return {m for m in reached if m not in under_test}
    found = {m for m in reached if is_support_code(root, m)}
    asserting = [m for m in reached - found if _is_assertion_helper(root, m)]
    code = [f for f in files if f.endswith(".py") and f not in tests]
    return found | {m for m in asserting if not _imported_by(root, m, code, files)}


def _is_assertion_helper(root: Path, path: str) -> bool:
    """Whether the module is an assertion helper, as `numpy.testing`'s: it defines a
    function called for its check, not its value: a module-level function that returns
    nothing and asserts or raises AssertionError, itself or through the module's other
    such functions it calls (`assert_close`, `check_close`, `expect_equal`). Such a
    function decides what the tests say when the code under test does not use it. A
    module whose functions assert their own invariants and return their results
    (`tabulate` asserts `isinstance(colalign, Iterable)`, and only its tests import it) is
    code under test: read as a helper, it was locked, and its bugs could not be fixed."""
    text = _text(root, path)
    tree = _tree(root, path) if text and "assert" in text.lower() else None
    if tree is None:
        return False
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    own = {f.name: _own_nodes(f) for f in functions}
    checks = {name for name, nodes in own.items() if not _returns_value(nodes)}
    found: set[str] = set()
    while True:  # those that assert, then those that call them (`assert_close` -> `_check`)
        more = {
            name
            for name in checks - found
            if any(_asserting(n) for n in own[name]) or _calls(own[name]) & found
        }
        if not more:
            return bool(found)
        found |= more


def _calls(nodes: list[ast.AST]) -> set[str]:
    """The names the calls among `nodes` call (`f(...)`, `self.f(...)`: f)."""
    called = [n.func for n in nodes if isinstance(n, ast.Call)]
    return {
        f.id if isinstance(f, ast.Name) else f.attr
        for f in called
        if isinstance(f, ast.Name | ast.Attribute)
    }


def _returns_value(nodes: list[ast.AST]) -> bool:
    """Whether a function with these nodes gives a value back (a `return` of one, or a
    `yield`): what the tests then check is its result."""
    return any(
        (isinstance(n, ast.Return) and n.value is not None
         and not (isinstance(n.value, ast.Constant) and n.value.value is None))
        or isinstance(n, ast.Yield | ast.YieldFrom)
        for n in nodes
    )  # fmt: skip


def _asserting(node: ast.AST) -> bool:
    return isinstance(node, ast.Assert) or (
        isinstance(node, ast.Raise)
        and node.exc is not None
        and ast.unparse(node.exc).split("(")[0].endswith("AssertionError")
    )


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of `function`'s body, not those of functions or classes defined in it."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            todo += ast.iter_child_nodes(node)
    return out


def _imported_by(root: Path, path: str, code: list[str], files: set[str]) -> bool:
    """Whether a module of `code` other than `path` imports it."""
    name = PurePosixPath(path).stem
    for module in (m for m in code if m != path):
        text = _text(root, module)
        if text and name in text and path in imported(root, module, files):
            return True
    return False
