"""The parts of the test files that a set of failing test ids names, as AST nodes.

A package's own suite uses most of the package: its tests of one feature build inputs
with what another feature's tests check. The helpers that judge a task are those of the
tests that fail (`codur.scope.test_helpers`), so what the tests use is read from those
tests alone once the first check has named them: the test functions; their class's
other methods (setUp, fixtures) and its base classes in the file; every module-level
statement that is no function or class (data such as `EXPECTED = reference(DATA)`); the
module-level functions they call or take as fixtures, transitively; and every
conftest.py whole.

Conservative by design: an id that names no test file, or a test that cannot be found in
its file, focuses nothing (the whole suite's uses count). Ids as pytest prints them
(`tests/test_x.py::TestC::test_y[1]`) or as unittest does (`tests.test_x.TestC.test_y`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable

Wanted = dict[str, set[tuple[str, ...]]]
"""Test file -> the qualified names (class..., function) of the failing tests in it."""


def named(ids: Iterable[str], tests: Collection[str]) -> Wanted:
    """The test files (of `tests`) and qualified names the ids give; empty when any id
    names no test of these files (then nothing is focused)."""
    found: Wanted = {}
    for test_id in ids:
        plain = test_id.split("[", 1)[0]  # parameters may hold anything, `::` included
        if "::" in plain:
            file, *parts = plain.split("::")
        else:  # unittest: the longest dotted prefix that is a test file
            dotted = plain.split(".")
            cut = next(
                (n for n in range(len(dotted), 0, -1) if "/".join(dotted[:n]) + ".py" in tests),
                0,
            )
            file, parts = "/".join(dotted[:cut]) + ".py", dotted[cut:]
        if file not in tests or not parts or not all(parts):
            return {}
        found.setdefault(file, set()).add(tuple(parts))
    return found


def focused(tree: ast.Module, wanted: set[tuple[str, ...]]) -> list[ast.AST] | None:
    """The parts of `tree` the failing tests `wanted` use (see the module's docstring);
    None when one of them is not found in it (the whole file counts)."""
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    picked: list[ast.AST] = [n for n in tree.body if not isinstance(n, _DEFS)]
    for name in wanted:
        if len(name) == 1 and name[0] in top:
            picked.append(top[name[0]])
            continue
        if len(name) < 2 or name[0] not in classes:
            return None
        lineage = _lineage(classes[name[0]], classes)
        if not any(getattr(m, "name", "") == name[-1] for c in lineage for m in ast.walk(c)):
            return None  # inherited from a class of another file: not seen here
        for cls in lineage:
            picked += [m for m in cls.body if not _is_other_test(m, name[-1])]
    seen = {id(n) for n in picked}
    queue = list(picked)
    while queue:
        for used in _referred(queue.pop()):
            helper = top.get(used)
            if helper is not None and id(helper) not in seen:
                seen.add(id(helper))
                picked.append(helper)
                queue.append(helper)
    return picked


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _lineage(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[ast.ClassDef]:
    """The class and its base classes defined in the same file, nearest first."""
    out, queue = [], [cls]
    while queue:
        current = queue.pop(0)
        if current in out:
            continue
        out.append(current)
        names = [b.id for b in current.bases if isinstance(b, ast.Name)]
        queue += [classes[n] for n in names if n in classes]
    return out


def _is_other_test(member: ast.stmt, wanted: str) -> bool:
    """A test method of the class other than the failing one (setUp and the like stay)."""
    name = getattr(member, "name", "")
    return isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef) and (
        name.startswith("test") and name != wanted
    )


def _referred(node: ast.AST) -> set[str]:
    """The names a part uses, and the parameters of a function (its fixtures)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        names |= {a.arg for a in node.args.args}
    return names
