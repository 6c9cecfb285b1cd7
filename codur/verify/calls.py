"""Do the tests call the functions a run changed? A conservative, static answer.

A run changes a function when it adds it or changes its code (its docstring aside). The
tests call a function when code they can run uses its name: a test file of the suite
(under its `testpaths`; not a test under a skip or xfail marker) or a conftest.py, the
code a module the tests reach (verify/reach.py) runs on import (outside every function:
a dispatch table, a class body, a decorator's argument; its `__main__` block only when a
test runs it as a script), or a function the tests call, and so on. A method needs its
class (or a subclass) used too; its special methods (`__eq__`) then count as called. A
function under a decorator that may register it (`@app.route`) counts as called;
`@property`, `@staticmethod`, `@lru_cache` and their kind register nothing. Uses are
names and attributes in code and words in its strings (`getattr(m, "sub")`); imports,
`__all__`, comments and docstrings use nothing. The answer errs towards "called" (any
use of the name counts, whatever object it is on); a changed function is set aside only
when nothing the tests can run uses its name (a new `sub()` no test uses), and then
passing tests say nothing about it. A function called only by a name built at run time
(`getattr(self, "visit_" + kind)`) is not seen.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Collection, Mapping
from pathlib import Path

from codur.scope.test_modules import suite_files, test_functions
from codur.verify.call_graph import CallGraph
from codur.verify.calls_index import Module, index, module_of, parse
from codur.verify.fixtures import NO_FIXTURES, Fixtures
from codur.verify.reach import reached_modules, source_text
from codur.verify.target import is_test, python_files
from codur.verify.test_reading import blocked_names

_Def = ast.FunctionDef | ast.AsyncFunctionDef


def _code(node: _Def) -> str:
    """A function as compared across the run: its AST without its docstring."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:] if isinstance(body[0].value.value, str) else body
    return ast.dump(node.args) + "".join(ast.dump(n) for n in [*node.decorator_list, *body])


def _numbered(tree: ast.Module) -> dict[tuple[str, int], str | None]:
    """Each function's code (None: too deep to compare), keyed by its qualified name and
    how many came before it by that name (`@overload`, a definition under `if`)."""
    seen: Counter[str] = Counter()
    numbered: dict[tuple[str, int], str | None] = {}
    for name, node in index(tree, "").defs:
        try:
            numbered[(name, seen[name])] = _code(node)
        except RecursionError:
            numbered[(name, seen[name])] = None
        seen[name] += 1
    return numbered


def changed_functions(before: str | None, after: str) -> list[str]:
    """Qualified names of the functions in `after` that `before` lacks or has otherwise
    (`before` None: the file is new). None of them when `after` does not parse; not one
    too deep to compare."""
    new = parse(after)
    if new is None:
        return []
    old = _numbered(parse(before or "") or ast.Module(body=[], type_ignores=[]))
    changed = (
        name
        for (name, n), code in _numbered(new).items()
        if code is not None and code != old.get((name, n))
    )
    return list(dict.fromkeys(changed))


def _in_suite(path: str, paths: Collection[str]) -> bool:
    """A conftest.py, or a test file under one of the suite's paths."""
    if Path(path).name == "conftest.py":
        return True
    return any(p in (".", "") or path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


Uses = dict[frozenset[str], set[str]]
"""The words the tests use, by the names they patched (none: the empty set)."""


def _project(
    root: Path,
    paths: Collection[str],
    ran: Mapping[str, set[tuple[str, str]]] | None = None,
    may_run: bool = False,
) -> tuple[dict[str, Module], Uses, dict[str, set[str]]] | None:
    """The folder's modules, the words the suite's tests (those under `paths`; `ran`: the
    names of the tests a run passed, by file, when known) use, and the names imports
    bind to others; None when a file cannot be read (too large: it may use anything)."""
    every = sorted(python_files(root))
    found = suite_files(root, every)
    suite = found.every
    functions = test_functions(root)
    # a test module outside the suite's paths never runs; its helpers may (by import)
    files = [f for f in every if f not in found.modules or _in_suite(f, paths)]
    reached = reached_modules(root, files, tests={f for f in files if f in suite})
    modules: dict[str, Module] = {}
    uses: Uses = {frozenset(): set()}
    texts: list[str] = []
    aliases: dict[str, set[str]] = {}
    suite_modules: dict[str, Module] = {}
    for path in (f for f in files if f in reached or f in suite):  # no other code runs
        text = source_text(root, path)
        if text is None:
            return None
        module = module_of(text, functions if path in suite else None)
        for alias, name in module.aliases:
            aliases.setdefault(alias, set()).add(name)
        modules[path] = module  # a test file's helpers and fixtures are called too
        if path in suite:
            suite_modules[path] = module
            texts.append(text)
    conftests = {p: m.fixtures for p, m in suite_modules.items() if p.endswith("conftest.py")}
    tests = uses[frozenset()]
    for path, module in suite_modules.items():
        around = _conftest_fixtures(path, conftests)
        tests |= module.test_rest
        passed = None if ran is None else ran.get(path, set())
        runs = around.words_run(module.test_runs, module.defined, passed, may_run)
        for blocked, found in runs.items():
            uses.setdefault(blocked, set()).update(found)
    for path in reached:
        module = modules[path]
        tests |= module.top
        if module.main and any(_runs(t, path) for t in texts):
            tests |= module.main
    return modules, uses, aliases


def _conftest_fixtures(path: str, conftests: Mapping[str, Fixtures]) -> Fixtures:
    """The fixtures of the conftest.py files whose folder holds `path` (not its own)."""
    found = NO_FIXTURES
    for conftest, fixtures in conftests.items():
        folder = str(Path(conftest).parent)
        if conftest != path and (folder == "." or path.startswith(folder + "/")):
            found = found.merged(fixtures)
    return found


def _runs(test: str, path: str) -> bool:
    """Whether a test's text runs `path` as a script: by its file name, or `-m` and its
    dotted name (`python -m pkg.cli`, `[sys.executable, "-m", "pkg.cli"]`)."""
    if Path(path).name in test:
        return True
    parts = path.removesuffix(".py").split("/")
    dotted = (".".join(parts[i:]) for i in range(len(parts)))
    return any(re.search(rf"-m\W+{re.escape(name)}\b", test) for name in dotted)


def changed_in(root: Path, before: Mapping[str, str | None]) -> dict[str, list[str]]:
    """The functions the run changed, by file (`before`: the changed files' text before
    the run, None for a new file); test files are not judged."""
    changed: dict[str, list[str]] = {}
    for path, old in before.items():
        if not path.endswith(".py") or is_test(path):
            continue
        now = source_text(root, path)
        if now and (found := changed_functions(old, now)):
            changed[path] = found
    return changed


def uncalled(
    root: Path,
    before: Mapping[str, str | None],
    paths: Collection[str] = (".",),
    passed: Collection[str] | None = None,
) -> list[str]:
    """`path: name` for each function the run changed (`before`, as `changed_in`) that no
    test of the suite (the test files under `paths`: a `testpaths` leaves out the others)
    can call; `passed`: the ids of the tests a run of the suite passed (pytest's), which
    then decide which tests ran."""
    return uncalled_of(root, changed_in(root, before), paths, passed)


def uncalled_of(
    root: Path,
    changed: Mapping[str, list[str]],
    paths: Collection[str] = (".",),
    passed: Collection[str | dict] | None = None,
    may_run: bool = False,
) -> list[str]:
    """`uncalled` of the functions `changed` (as `changed_in` gives them); `passed`: the
    tests a run passed (pytest's ids, or Codur's plugin's records); `may_run`: a
    test the files say may not run counts (a run's list of passes will say)."""
    ran = None if passed is None else _by_file(root, passed)
    if not changed or (project := _project(root, paths, ran, may_run)) is None:
        return []
    modules, uses, aliases = project
    graph = CallGraph(modules, aliases)
    owners = {part for p in modules for part in Path(p).with_suffix("").parts}
    owners |= set(graph.classes)  # modules, the packages they are in, classes
    by_block: dict[frozenset[str], set[str]] = {}
    for patched, words in uses.items():  # what the patches replace in the project
        by_block.setdefault(blocked_names(patched, owners), set()).update(words)
    wanted = {(path, name) for path, names in changed.items() for name in names}
    missing = wanted - graph.called(by_block.pop(frozenset(), set()))
    missing -= _doctested(root, changed, passed or ())
    for blocked, words in _at_most(by_block, MAX_WALKS):  # the tests that patch, apart
        if not missing:
            break
        missing -= graph.called(words - blocked, blocked)
    return [
        f"{path}: {name}"
        for path, names in changed.items()
        for name in names
        if (path, name) in missing
    ]


MAX_WALKS = 16
"""Walks of the call graph for the tests that patch, one per kind of patch; past this,
the rest walk together with only the names all of them patch set aside."""


def _at_most(
    by_block: dict[frozenset[str], set[str]], limit: int
) -> list[tuple[frozenset[str], set[str]]]:
    groups = sorted(by_block.items(), key=lambda item: -len(item[1]))
    if len(groups) <= limit:
        return groups
    rest = groups[limit - 1 :]
    common = frozenset.intersection(*(blocked for blocked, _ in rest))
    return [*groups[: limit - 1], (common, set().union(*(words for _, words in rest)))]


def _doctested(
    root: Path, changed: Mapping[str, list[str]], ids: Collection[str | dict]
) -> set[tuple[str, str]]:
    """The changed functions whose own doctest passed (`calc.py::calc.Vector.scale`: the
    id names the module, then the function's qualified name)."""
    found = set()
    for test in ids:
        if isinstance(test, dict):  # Codur's plugin's record: its files, its name
            named = [(_inside(root, f), str(test["name"])) for f in test.get("files") or []]
        else:
            path, _, rest = test.partition("::")
            named = [(path, rest)]
        for path, rest in named:
            parts = (path or "").removesuffix(".py").split("/")
            modules = {".".join(parts[i:]) for i in range(len(parts))}
            for name in changed.get(path or "", ()):
                if any(rest == f"{module}.{name}" for module in modules):
                    found.add((path, name))
    return found


def _by_file(root: Path, ids: Collection[str | dict]) -> dict[str, set[tuple[str, str]]]:
    """The tests that passed as (class, name) by file: pytest's ids
    (`tests/test_x.py::TestC::test_y[1]`), or the records of Codur's plugin (every file
    a test is written in, every class its class inherits from)."""
    found: dict[str, set[tuple[str, str]]] = {}
    for test in ids:
        if isinstance(test, dict):
            classes = [c for c in test.get("classes") or [""] if isinstance(c, str)]
            for file in (_inside(root, f) for f in test.get("files") or []):
                if file:
                    found.setdefault(file, set()).update((c, test["name"]) for c in classes)
            continue
        path, _, rest = test.partition("::")
        parts = rest.split("[", 1)[0].split("::")
        if rest and parts[-1]:
            found.setdefault(path, set()).add((".".join(parts[:-1]), parts[-1]))
    return found


def _inside(root: Path, file: object) -> str | None:
    """A recorded file's path in the folder (None: outside it)."""
    if not isinstance(file, str):
        return None
    try:
        return Path(file).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
