"""The tests' own helpers are part of the check.

A test that asserts `decode(encode(s)) == s` passes whenever `encode` is the identity:
changing `encode` changes the check, not the program. So the functions, classes and
constants of a file that the tests use directly, other than the ones the task is about,
are protected like a program's harness (`codur.scope.harness`): the repair search makes
no mutation in them and a model's edit of them is refused or trimmed.

The ones the task is about, of the names the tests use: the names the task mentions as
code, the function named like the file (`decode_cyclic.py` -> `decode_cyclic`), and the
functions a failing test called that raised (the first check's traceback). When none of
those is among the names the tests use (the task names the file only), they are the
functions and classes whose results the tests assert on (`codur.scope.test_uses`); the
rest (input builders, judges of other results, constants) are protected. A task that
names a helper (`fix encode_cyclic`) unlocks it.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import PurePosixPath
from typing import Protocol

from codur.scope.harness import Harness
from codur.scope.modules import top_level_names
from codur.scope.oracle import is_test_file
from codur.scope.test_modules import in_test_folder
from codur.scope.test_uses import TestUses


class Frame(Protocol):
    """A traceback frame in the workspace (codur.verify.evidence.Location)."""

    path: str
    line: int


def test_files(oracle: Iterable[str], named_otherwise: Collection[str] = ()) -> list[str]:
    """The test modules (and conftest.py files) among the oracle's files; `named_otherwise`:
    test modules their names do not tell (`EditScope.test_modules`)."""
    return sorted(
        p
        for p in oracle
        if p.endswith(".py") and (is_test_file(p) or in_test_folder(p) or p in named_otherwise)
    )


def failing_calls(
    frames: Sequence[Frame],
    read: Callable[[str], str | None],
    is_oracle: Callable[[str], bool],
) -> dict[str, list[str]]:
    """The top-level functions (by file) that a test called directly and that raised:
    each frame of the code right after a frame of the oracle (the tests)."""
    found: dict[str, list[str]] = {}
    for caller, callee in zip(frames, frames[1:], strict=False):
        if not is_oracle(caller.path) or is_oracle(callee.path):
            continue
        name = _top_level_at(read(callee.path) or "", callee.line)
        if name and name not in found.get(callee.path, []):
            found.setdefault(callee.path, []).append(name)
    return found


def _top_level_at(source: str, line: int) -> str | None:
    """The top-level function or class whose lines hold `line`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if isinstance(node, kinds) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name
    return None


def test_helpers(
    path: str,
    source: str,
    uses: TestUses | None,
    named: Iterable[str],
    failing: Iterable[str] = (),
) -> dict[str, str]:
    """The top-level names of `path` the tests use that a fix must leave alone, and why.
    `named`: the names the task mentions; `failing`: the functions a failing test called
    that raised."""
    try:
        names = top_level_names(ast.parse(source))
    except (SyntaxError, ValueError):
        return {}
    used = (uses.used if uses else set()) & names.keys()
    if not used:
        return {}
    about = set(named) & names.keys()
    stem = PurePosixPath(path).stem
    if names.get(stem) == "def":
        about.add(stem)
    callables = {n for n in used if names[n] == "def"}
    if about & used:
        under = about & used
        why = "the task is about " + ", ".join(sorted(under))
    else:
        judged = (uses.judged if uses else set()) & callables
        under = judged or callables  # nothing asserted on: no callable told apart
        why = "the tests check the results of " + ", ".join(sorted(under))
    return {
        name: f"the tests use {name}; {why}"
        for name in sorted(used - under - about - set(failing))
        if names[name] == "constant" or name in callables
    }


def _span(node: ast.stmt) -> range:
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    return range(first, (node.end_lineno or node.lineno) + 1)


def _assigned(node: ast.stmt) -> set[str]:
    if not isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return set()
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _is_free(node: ast.stmt) -> bool:
    """An import or docstring: never part of a harness."""
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    return docstring or isinstance(node, ast.Import | ast.ImportFrom)


def protect(harness: Harness | None, source: str, helpers: dict[str, str]) -> Harness | None:
    """`harness` (None: the file has none) with the tests' helpers added to it."""
    if not helpers:
        return harness
    tree = ast.parse(source)
    defs = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    assigned = set().union(*(_assigned(n) for n in tree.body))
    lines: set[int] = set()
    for node in tree.body:
        name = getattr(node, "name", None)
        if name in helpers or _assigned(node) & helpers.keys():
            lines.update(_span(node))
        elif harness is None and name is None and not _is_free(node) and not _assigned(node):
            lines.update(_span(node))  # module-level code: compared as harness (harness_edits)
    reasons = tuple(f"{name}: {why}" for name, why in helpers.items())
    constants = tuple(n for n in helpers if n in assigned and n not in defs)
    if harness is None:
        return Harness(
            definitions=tuple(d for d in defs if d in helpers),
            lines=frozenset(lines),
            code_under_test=tuple(d for d in defs if d not in helpers),
            program_names=frozenset(assigned - helpers.keys()),
            reasons=reasons,
            constants=constants,
            driver=False,
        )
    return dataclasses.replace(
        harness,
        definitions=(
            *harness.definitions,
            *(d for d in defs if d in helpers and d not in harness.definitions),
        ),
        lines=harness.lines | lines,
        code_under_test=tuple(d for d in harness.code_under_test if d not in helpers),
        program_names=harness.program_names - helpers.keys(),
        reasons=(*harness.reasons, *reasons),
        constants=(*harness.constants, *constants),
    )
