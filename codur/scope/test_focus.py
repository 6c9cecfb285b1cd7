"""The test functions a set of failing test ids names, as parts of their files' ASTs.

A package's own suite uses most of the package: its tests of one feature build inputs
with what another feature's tests check. The helpers that judge a task are those of the
tests that fail (`codur.scope.test_helpers`), so what the tests use is read from those
tests alone once the first check has named them: the test functions, the functions of
the test file they call, and the fixtures of that file they take.

Ids as pytest prints them (`tests/test_x.py::TestC::test_y[1]`) or as unittest does
(`tests.test_x.TestC.test_y`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable

Functions = dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]
"""Test file -> the focused functions in its AST."""

_PARAMS = re.compile(r"\[.*\]$")


def named(ids: Iterable[str], tests: Collection[str]) -> dict[str, set[tuple[str, ...]]]:
    """Test file (one of `tests`) -> the qualified names (class, function) of the ids."""
    found: dict[str, set[tuple[str, ...]]] = {}
    for test_id in ids:
        if "::" in test_id:
            file, *parts = test_id.split("::")
        else:  # unittest: the longest dotted prefix that is a test file
            dotted = test_id.split(".")
            cut = next(
                (n for n in range(len(dotted), 0, -1) if "/".join(dotted[:n]) + ".py" in tests),
                0,
            )
            file, parts = "/".join(dotted[:cut]) + ".py", dotted[cut:]
        if file in tests and parts:
            found.setdefault(file, set()).add(tuple(_PARAMS.sub("", p) for p in parts))
    return found


def focused(tree: ast.Module, wanted: set[tuple[str, ...]]) -> list[ast.AST]:
    """The test functions of `tree` that `wanted` names, and the module-level functions
    (helpers, fixtures) they call or take as parameters, transitively."""
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    picked: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (node.name,) in wanted:
            picked.append(node)
        elif isinstance(node, ast.ClassDef):
            picked += [
                m
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                and ((node.name, m.name) in wanted or (m.name,) in wanted)
            ]
    seen = {id(n) for n in picked}
    queue = list(picked)
    while queue:
        func = queue.pop()
        for name in _referred(func):
            helper = top.get(name)
            if helper is not None and id(helper) not in seen:
                seen.add(id(helper))
                picked.append(helper)
                queue.append(helper)
    return picked


def _referred(func: ast.AST) -> set[str]:
    """The names a function calls or takes as parameters (fixtures)."""
    names = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)}
    if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        names |= {a.arg for a in func.args.args}
    return names
