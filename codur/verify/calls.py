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
from collections import Counter, deque
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from codur.scope.test_modules import suite_files, test_functions
from codur.verify.calls_index import Module, index, module_of, parse
from codur.verify.reach import reached_modules, source_text
from codur.verify.target import is_test, python_files
from codur.verify.test_reading import NO_FIXTURES, Fixtures

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


def _called(
    modules: dict[str, Module], tests: Iterable[str], aliases: dict[str, set[str]]
) -> set[tuple[str, str]]:
    """(path, qualified name) of every function the tests can call, from the words they
    use (`tests`) outward; `aliases`: the names imports bind to others."""
    functions = {}
    classes: dict[str, list] = {}
    for path, module in modules.items():
        for unit in module.functions:
            functions.setdefault(unit.name, []).append((path, unit))
        for cls in module.classes:
            classes.setdefault(cls.name, []).append((path, cls))
    words: set[str] = set()
    queue: deque[str] = deque()
    done: set[tuple[str, str]] = set()
    used_classes: set[tuple[str, str]] = set()

    def use(found: Iterable[str]) -> None:
        for word in found:
            if word not in words:
                words.add(word)
                queue.append(word)

    def call(path: str, unit) -> None:
        if (path, unit.qualname) not in done:
            done.add((path, unit.qualname))
            use(unit.words)

    def instantiate(path: str, cls) -> None:
        if (path, cls.qualname) in used_classes:
            return
        used_classes.add((path, cls.qualname))
        for unit in modules[path].functions:
            if unit.owner == cls.qualname and (unit.implicit or unit.name in words):
                call(path, unit)
        for base in cls.bases:  # a subclass's instances run its bases' methods
            for where, other in classes.get(base, ()):
                instantiate(where, other)

    use(tests)
    for path, module in modules.items():
        for unit in module.functions:
            if unit.registered and unit.owner is None:
                call(path, unit)
        for cls in module.classes:
            if cls.registered:
                instantiate(path, cls)
    while queue:
        word = queue.popleft()
        use(aliases.get(word, ()))
        for path, cls in classes.get(word, ()):
            instantiate(path, cls)
        for path, unit in functions.get(word, ()):
            if unit.owner is None or (path, unit.owner) in used_classes:
                call(path, unit)
    return done


def _in_suite(path: str, paths: Collection[str]) -> bool:
    """A conftest.py, or a test file under one of the suite's paths."""
    if Path(path).name == "conftest.py":
        return True
    return any(p in (".", "") or path == p or path.startswith(p.rstrip("/") + "/") for p in paths)


def _project(
    root: Path, paths: Collection[str]
) -> tuple[dict[str, Module], set[str], dict[str, set[str]]] | None:
    """The folder's modules, the words the suite's tests (those under `paths`) use, and
    the names imports bind to others; None when a file cannot be read (too large: it may
    use anything)."""
    every = sorted(python_files(root))
    suite = suite_files(root, every).every
    functions = test_functions(root)
    files = [f for f in every if f not in suite or _in_suite(f, paths)]
    reached = reached_modules(root, files, tests={f for f in files if f in suite})
    modules: dict[str, Module] = {}
    tests: set[str] = set()
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
        if path in suite:
            suite_modules[path] = module
            texts.append(text)
        else:
            modules[path] = module
    conftests = {p: m.fixtures for p, m in suite_modules.items() if p.endswith("conftest.py")}
    for path, module in suite_modules.items():
        around = _conftest_fixtures(path, conftests)
        tests |= module.test_rest | around.words_run(module.test_runs, module.defined)
    for path in reached:
        module = modules[path]
        tests |= module.top
        if module.main and any(_runs(t, path) for t in texts):
            tests |= module.main
    return modules, tests, aliases


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


def uncalled(
    root: Path, before: Mapping[str, str | None], paths: Collection[str] = (".",)
) -> list[str]:
    """`path: name` for each function the run changed (`before`: the changed files'
    text before the run, None for a new file) that no test of the suite (the test files
    under `paths`: a `testpaths` leaves out the others) can call."""
    changed: dict[str, list[str]] = {}
    for path, old in before.items():
        if not path.endswith(".py") or is_test(path):
            continue
        now = source_text(root, path)
        if now and (found := changed_functions(old, now)):
            changed[path] = found
    if not changed or (project := _project(root, paths)) is None:
        return []
    called = _called(*project)
    return [
        f"{path}: {name}"
        for path, names in changed.items()
        for name in names
        if (path, name) not in called
    ]
