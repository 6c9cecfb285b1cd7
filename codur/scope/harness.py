"""The harness of an entry point: the code that drives and judges the code under test.

A program that checks itself (prints PASSED / FAILED, asserts, or prints the results of
calls on fixed inputs for expected.txt to compare) has two parts: the code under test
and the harness (the driver statements, the `__main__` block, `main()`, the helpers that
build the test inputs or judge the results). An edit to the harness changes the check,
not the program, so the repair search never makes one and a model's is not accepted.
The rules are AST facts, and conservative by design (a missed repair is cheap, a faked
pass is not):

1. The driver is the module-level code other than imports, definitions and docstrings.
   A module-level assignment is driver data (test inputs, expected values) unless code
   under test reads it (then it is part of the program, like a precedence table).
2. A file whose driver reaches no function or class of the file is a plain script: its
   statements are the program and it has no harness.
3. When the task names functions or classes of the file, the code under test is those and
   everything they reference; every other definition the driver reaches is harness.
4. Otherwise a definition reached only from the harness is harness when it is `main`, when
   it judges (an `assert`, or a comparison whose outcome decides what is printed or
   returned as a verdict), or when it only builds data (no loops or branches).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.AugAssign)
_CONTROL = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, ast.With, ast.Match)


@dataclass(frozen=True)
class Harness:
    """The protected part of one entry point."""

    definitions: tuple[str, ...]
    """Top-level functions and classes that are harness (`main`, `check`, data builders)."""
    lines: frozenset[int]
    """Every source line of the harness: driver statements, driver data, definitions."""
    code_under_test: tuple[str, ...]
    """The top-level definitions that are the program being fixed."""
    program_names: frozenset[str] = frozenset()
    """Module-level names the code under test reads (their assignments are program)."""
    reasons: tuple[str, ...] = field(default=())
    constants: tuple[str, ...] = ()
    """Module-level names the tests read that the fix must leave alone (test_helpers)."""
    driver: bool = True
    """The file has driver code of its own (False: only the tests' helpers are harness)."""

    def touches(self, first: int, last: int) -> bool:
        return any(n in self.lines for n in range(first, last + 1))

    def describe(self) -> str:
        parts = [f"{name}()" for name in self.definitions] + list(self.constants)
        return ", ".join([*parts, *(["the module-level driver code"] if self.driver else [])])


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _targets(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        return {n for t in node.targets for n in _names(t)}
    return _names(node.target) if isinstance(node, ast.AnnAssign | ast.AugAssign) else set()


def _span(node: ast.stmt) -> range:
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    return range(first, (node.end_lineno or node.lineno) + 1)


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _callables(func: ast.AST, defs: set[str]) -> set[str]:
    """Names a function calls as code under test: the file's definitions, its parameters."""
    params = set()
    if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        args = func.args
        params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return defs | params


def _judges(func: ast.AST, defs: set[str]) -> bool:
    """An assert, or a comparison of what a call into the code returned (`f(x) == 3`,
    `actual = f(x)` ... `actual != expected`)."""
    callables = _callables(func, defs)

    def is_result(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and (node.func.id in callables)
        )

    results = {
        name
        for sub in ast.walk(func)
        if isinstance(sub, ast.Assign) and is_result(sub.value)
        for target in sub.targets
        for name in _names(target)
    }

    def qualifies(node: ast.AST) -> bool:
        return any(
            isinstance(c, ast.Compare)
            and any(
                is_result(s) or (isinstance(s, ast.Name) and s.id in results)
                for s in [c.left, *c.comparators]
            )
            for c in ast.walk(node)
        )

    for sub in ast.walk(func):
        if isinstance(sub, ast.Assert):
            return True
        if isinstance(sub, ast.If | ast.IfExp) and qualifies(sub.test) and _reports(sub):
            return True
        if _is_print(sub) and qualifies(sub):
            return True
    return False


def _is_print(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (node.func.id == "print")
    )


def _reports(branch: ast.If | ast.IfExp) -> bool:
    """The branch prints, or yields a constant (a verdict such as "PASSED" or False)."""
    if isinstance(branch, ast.IfExp):
        return any(isinstance(v, ast.Constant) for v in (branch.body, branch.orelse))
    parts = [*branch.body, *branch.orelse]
    return any(_is_print(n) for part in parts for n in ast.walk(part)) or any(
        isinstance(n, ast.Return) and isinstance(n.value, ast.Constant)
        for part in parts
        for n in ast.walk(part)
    )


def _builds_data(node: ast.AST) -> bool:
    """A function of no arguments with no loops, branches or comprehensions: it only
    builds values (the test inputs of a driver: `def graph7(): ...`)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    args = node.args
    if args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg:
        return False
    return not any(
        isinstance(sub, (*_CONTROL, ast.comprehension)) for sub in ast.walk(node) if sub is not node
    )


def find_harness(source: str, named: list[str] | None = None) -> Harness | None:
    """The harness of the program in `source` (None: a plain script, or no driver)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    defs = {n.name: n for n in tree.body if isinstance(n, _DEFS)}
    data = [n for n in tree.body if isinstance(n, _ASSIGNS)]
    driver = [
        n
        for n in tree.body
        if not isinstance(n, (*_DEFS, *_ASSIGNS, ast.Import, ast.ImportFrom))
        and not _is_docstring(n)
    ]
    refs = {name: _names(node) & set(defs) - {name} for name, node in defs.items()}
    reached = set().union(*(_names(s) & set(defs) for s in [*driver, *data]))
    if not reached:
        return None  # rule 2: a plain script
    named_here = [n.split(".")[0] for n in named or [] if n.split(".")[0] in defs]
    reasons: list[str] = []
    if named_here:
        under_test = _closure(set(named_here), refs)
        harness = {name for name in _closure(reached, refs) if name not in under_test}
        reasons.append(f"the task names {', '.join(sorted(set(named_here)))}")
    else:
        harness = _grow_harness(defs, refs, reached)
        under_test = set(defs) - harness
    read_by_code = set().union(*(_names(defs[n]) for n in under_test)) if under_test else set()
    lines: set[int] = set()
    for node in driver:
        lines.update(_span(node))
    for node in data:
        if not (_targets(node) & read_by_code):
            lines.update(_span(node))
    for name in harness:
        lines.update(_span(defs[name]))
    order = [n for n in defs if n in harness]
    return Harness(
        definitions=tuple(order),
        lines=frozenset(lines),
        code_under_test=tuple(n for n in defs if n in under_test),
        program_names=frozenset(read_by_code),
        reasons=tuple(reasons),
    )


def _closure(start: set[str], refs: dict[str, set[str]]) -> set[str]:
    seen, todo = set(start), list(start)
    while todo:
        for ref in refs.get(todo.pop(), set()):
            if ref not in seen:
                seen.add(ref)
                todo.append(ref)
    return seen


def _grow_harness(
    defs: dict[str, ast.stmt], refs: dict[str, set[str]], reached: set[str]
) -> set[str]:
    """Rule 4, to a fixed point: definitions reached only from the harness that are
    `main`, judge results or only build data."""
    harness: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, node in defs.items():
            if name in harness:
                continue
            users = {user for user, used in refs.items() if name in used}
            only_harness = (name in reached or users) and users <= harness
            judges = _judges(node, set(defs))
            if only_harness and (name == "main" or judges or _builds_data(node)):
                harness.add(name)
                changed = True
    return harness
