"""What the test files use of the code, and what they judge: read from their AST.

A test that checks `decode(encode(s)) == s` uses both functions, but judges only
`decode`: `encode` builds its input. A name a test uses is *judged* when its result (a
call's return value, an object whose method or attribute is compared) reaches an
assertion as the value being checked: an `assert` (or `self.assertEqual`, ...) operand,
or a call inside `pytest.raises`. The arguments of a call to the code are its inputs,
not checked values; a call of the code whose arguments hold results of the code and
whose result is only asserted true (`assert is_sorted(sort(xs))`) is a judge, and the
results it judges are the checked values. A test-local helper called with a function of
the code (`check(candidate)`, HumanEval's style) judges that function when it judges the
calls of its parameter.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codur.scope.modules import OnDisk, module_file, read_tree, top_level_names
from codur.scope.test_focus import focused, named

_RAISES = ("raises", "assertRaises", "assertRaisesRegex", "warns", "assertWarns")


@dataclass
class TestUses:
    """What the tests use of one file of the code (top-level names)."""

    used: set[str] = field(default_factory=set)
    """Names the tests refer to (functions, classes, constants)."""
    judged: set[str] = field(default_factory=set)
    """Functions and classes whose results the tests assert on."""


class _Imports:
    """A test file's names bound to the folder's modules or to names in them."""

    def __init__(self, root: Path, test: str, tree: ast.Module) -> None:
        self.modules: dict[str, str] = {}  # local dotted name -> module file
        self.names: dict[str, tuple[str, str]] = {}  # local name -> (file, name there)
        files = OnDisk(root)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    file = module_file(alias.name, files, test)
                    if file:
                        self.modules[alias.asname or alias.name] = file
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                for alias in node.names:
                    sub = module_file(f"{base}.{alias.name}", files, test, node.level)
                    file = module_file(base, files, test, node.level) if base else None
                    if alias.name == "*" and file:
                        for name in _top_level(root, file):
                            self.names.setdefault(name, (file, name))
                    elif sub:
                        self.modules[alias.asname or alias.name] = sub
                    elif file:
                        self.names[alias.asname or alias.name] = (file, alias.name)

    def resolve(self, node: ast.AST) -> tuple[str, str] | None:
        """(file, top-level name) that a Name or dotted Attribute refers to."""
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node.value)
            if dotted is not None and dotted in self.modules:
                return self.modules[dotted], node.attr
        return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _scopes(tree: ast.AST) -> Iterator[tuple[ast.AST, list[str]]]:
    """The module (or function) and every function in it, with the function's parameter
    names."""
    if isinstance(tree, ast.Module):
        yield tree, []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            yield node, [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a scope, nested functions and classes excluded."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


class _Judge:
    """The judged positions of one scope and what reaches them."""

    def __init__(self, imports: _Imports, scope: ast.AST, params: list[str]) -> None:
        self.imports, self.params = imports, set(params)
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.assigned.setdefault(name.id, []).append(node.value)
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                for name in ast.walk(node.optional_vars):
                    if isinstance(name, ast.Name):
                        self.assigned.setdefault(name.id, []).append(node.context_expr)
        self.judged: set[tuple[str, str]] = set()
        self.judged_params: set[str] = set()
        self._seen: set[str] = set()

    def code(self, func: ast.AST) -> tuple[str, str] | None:
        return self.imports.resolve(func)

    def value(self, node: ast.AST | None) -> set[tuple[str, str] | str]:
        """Whose results `node` (a checked value) holds: (file, name) of the code, or a
        parameter's name."""
        found: set[tuple[str, str] | str] = set()
        if node is None or isinstance(node, ast.Lambda):
            return found
        if isinstance(node, ast.Call):
            target = self.code(node.func)
            if target is not None:
                return {target}  # its arguments are its inputs
            if isinstance(node.func, ast.Name) and node.func.id in self.params:
                return {node.func.id}
            if isinstance(node.func, ast.Name) and node.func.id in self.assigned:
                found |= self.value(node.func)  # `f = module.g; f(x)`
            if isinstance(node.func, ast.Attribute):
                found |= self.value(node.func.value)  # a method's result: its object's
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                found |= self.value(arg)
            return found
        if isinstance(node, ast.Name):
            if (target := self.code(node)) is not None:
                return {target}
            if node.id in self.assigned and node.id not in self._seen:
                self._seen.add(node.id)
                for assigned in self.assigned[node.id]:
                    found |= self.value(assigned)
                self._seen.discard(node.id)
            return found
        if isinstance(node, ast.Attribute) and (target := self.code(node)) is not None:
            return {target}
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                found |= self.value(child)
        return found

    def truth(self, node: ast.expr) -> None:
        """`node` is asserted true."""
        if isinstance(node, ast.BoolOp):
            for part in node.values:
                self.truth(part)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.truth(node.operand)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            flags = [
                o
                for o in operands
                if isinstance(o, ast.Constant) and o.value in (True, False, None)
            ]
            for operand in operands:
                if operand not in flags:
                    (self.truth if flags else self.check)(operand)
        elif isinstance(node, ast.Call) and (self.code(node.func) or _is_param(node, self.params)):
            inner = set().union(*(self.value(a) for a in node.args)) if node.args else set()
            self.mark(inner if inner else self.value(node))  # a judge of results, or a checked call
        else:
            self.check(node)

    def check(self, node: ast.expr) -> None:
        """`node` is a checked value."""
        self.mark(self.value(node))

    def mark(self, found: set[tuple[str, str] | str]) -> None:
        for item in found:
            if isinstance(item, str):
                self.judged_params.add(item)
            else:
                self.judged.add(item)

    def scan(self, scope: ast.AST) -> None:
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assert):
                self.truth(node.test)
            elif isinstance(node, ast.Call) and (name := _callee_name(node)):
                if name.startswith("assert") and not self.code(node.func):
                    truthy = "true" in name.lower() or "false" in name.lower() or name == "assert_"
                    for arg in node.args[:1] if truthy else node.args:
                        (self.truth if truthy else self.check)(arg)
            elif isinstance(node, ast.With | ast.AsyncWith) and _expects_raise(node):
                for stmt in node.body:
                    if isinstance(stmt, ast.Expr | ast.Assign):
                        self.check(stmt.value)


def _expects_raise(node: ast.With | ast.AsyncWith) -> bool:
    return any(_callee_name(item.context_expr) in _RAISES for item in node.items)


def _is_param(node: ast.Call, params: set[str]) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id in params


def _callee_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return ""


def _top_level(root: Path, path: str) -> list[str]:
    """The names a file defines or assigns at its top level."""
    tree = read_tree(root, path)
    return list(top_level_names(tree)) if tree is not None else []


def test_uses(root: Path, tests: list[str], focus: Collection[str] = ()) -> dict[str, TestUses]:
    """For each file of the code the `tests` import, what they use and judge of it.
    `focus`: the ids of the tests that failed; when they name test functions, what those
    use and judge (`codur.scope.test_focus`), not what the whole suite does."""
    wanted = named(focus, tests)
    conftest = [t for t in tests if PurePosixPath(t).name == "conftest.py"]
    uses: dict[str, TestUses] = {}
    for test in [t for t in tests if t in wanted or t in conftest] if wanted else tests:
        tree = read_tree(root, test)
        if tree is None:
            continue
        parts: list[ast.AST] = (focused(tree, wanted[test]) if test in wanted else None) or [tree]
        imports = _Imports(root, test, tree)
        for node in (n for part in parts for n in ast.walk(part)):
            target = imports.resolve(node) if isinstance(node, ast.Name | ast.Attribute) else None
            if target is not None:
                uses.setdefault(target[0], TestUses()).used.add(target[1])
        local = {}
        for scope, params in (s for part in parts for s in _scopes(part)):
            judge = _Judge(imports, scope, params)
            judge.scan(scope)
            for file, name in judge.judged:
                uses.setdefault(file, TestUses()).judged.add(name)
            if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
                local[scope.name] = (params, judge.judged_params)
        for part in parts:
            _judged_through_helpers(part, imports, local, uses)
    return uses


def _judged_through_helpers(
    tree: ast.AST,
    imports: _Imports,
    local: dict[str, tuple[list[str], set[str]]],
    uses: dict[str, TestUses],
) -> None:
    """`check(candidate)` where the test's own `check` judges calls of `candidate`."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        params, judged = local.get(node.func.id, ([], set()))
        passed = list(zip(params, node.args, strict=False))
        passed += [(k.arg, k.value) for k in node.keywords if k.arg]
        for param, arg in passed:
            target = imports.resolve(arg) if param in judged else None
            if target is not None:
                uses.setdefault(target[0], TestUses()).judged.add(target[1])
