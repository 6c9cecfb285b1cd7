"""Which tests of a test file may not run, and what a test replaces before it calls: the
rules verify/calls.py reads test files by.

A test may not run (or its failure is expected) under a skip or xfail marker, the
module's own name for one (`needs_db = pytest.mark.skipif(...)`), a `pytestmark` or a
module-level `importorskip`, or when its body (a test class's set-up) may skip itself:
`pytest.skip()`, `pytest.xfail()`, `self.skipTest()`, `raise SkipTest`. What such a test
uses is no use a passing suite vouches for. A name a test patches (`monkeypatch.setattr`,
`mock.patch`, `patch.object`) is not called by that test, and the patch's own strings use
nothing.
"""

from __future__ import annotations

import ast

_Def = ast.FunctionDef | ast.AsyncFunctionDef
NOT_RUN = frozenset({"skip", "skipif", "skipIf", "skipUnless", "xfail", "expectedFailure"})
"""Markers of a test that may not run, or whose failure is expected."""
_SKIP_CALLS = frozenset({"skip", "xfail", "importorskip"})
_SET_UP = frozenset({"setUp", "setUpClass", "setup_method", "setup_class", "setup"})


def chain(node: ast.AST) -> set[str]:
    """The names of an expression's own chain (`pytest.mark.skipif(...)`: pytest, mark,
    skipif), not of its arguments (`parametrize(..., [pytest.param(marks=...)])`)."""
    names: set[str] = set()
    while True:
        node = node.func if isinstance(node, ast.Call) else node
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
            node = node.value
        else:
            return names | ({node.id} if isinstance(node, ast.Name) else set())


def skip_markers(tree: ast.Module) -> frozenset[str]:
    """NOT_RUN and the names the module binds to such a marker, in order."""
    names = set(NOT_RUN)
    for node in tree.body:
        if isinstance(node, ast.Assign) and chain(node.value) & names:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


def may_not_run(node: ast.AST, markers: frozenset[str]) -> bool:
    """A test function or class under one of `markers`, or that may skip itself."""
    if not isinstance(node, _Def | ast.ClassDef):
        return False
    if any(chain(d) & markers for d in node.decorator_list):
        return True
    if isinstance(node, ast.ClassDef):
        set_up = [n for n in node.body if isinstance(n, _Def) and n.name in _SET_UP]
        return any(_skips(n) for n in set_up)
    return node.name.startswith("test") and _skips(node)


def _skips(node: _Def) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            names = chain(inner)
            if ("pytest" in names and names & _SKIP_CALLS) or "skipTest" in names:
                return True
        if isinstance(inner, ast.Raise) and inner.exc and "SkipTest" in chain(inner.exc):
            return True
    return False


def module_may_not_run(tree: ast.Module, markers: frozenset[str]) -> bool:
    """`pytestmark = pytest.mark.skipif(...)` (or a list holding one), or a module-level
    `pytest.importorskip(...)`: every test of the file may not run."""
    for node in tree.body:
        value = getattr(node, "value", None)
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        named = any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)
        if named and isinstance(node, ast.Assign | ast.AnnAssign) and value is not None:
            items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
            if any(chain(item) & markers for item in items):
                return True
        calls = [value] if isinstance(node, ast.Expr | ast.Assign) else []
        if any(isinstance(c, ast.Call) and "importorskip" in chain(c) for c in calls):
            return True
    return False


def patch_target(node: ast.AST) -> ast.Constant | None:
    """The string naming what a patch call replaces (its last dotted part is the name):
    `monkeypatch.setattr(calc, "sub", f)`, `monkeypatch.setattr("calc.sub", f)`,
    `patch("calc.sub")`, `patch.object(calc, "sub")`; None: no such call."""
    if not isinstance(node, ast.Call):
        return None
    names = chain(node)
    if not names & {"setattr", "patch"} or names & {"dict", "multiple"}:
        return None
    for arg in node.args[:2]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value:
            return arg
    return None


def patched(node: _Def) -> set[str]:
    """The names a test replaces (by its decorators or in its body)."""
    found = set()
    for inner in [*node.decorator_list, *(n for b in node.body for n in ast.walk(b))]:
        if (target := patch_target(inner)) is not None:
            found.add(str(target.value).rsplit(".", 1)[-1])
    return found
