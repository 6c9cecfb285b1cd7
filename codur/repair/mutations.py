"""Small program mutations of Python source, each one character span of the original text.

A repair search tries these on failing code. Operators (in `codur.repair.operators`) find
spots through the AST and describe each change as a `Mutation`: one span of the original
source and its replacement, so the rest of the file keeps its exact formatting. Node
positions from `ast` are UTF-8 byte columns; `Source` turns them into character offsets.
"""

from __future__ import annotations

import ast
import bisect
import keyword
import warnings
from collections.abc import Iterable, Iterator

# importing the operators registers them in OPERATORS
from codur.repair import operators as _operators  # noqa: F401
from codur.repair import operators_scope as _operators_scope  # noqa: F401
from codur.repair.outcome import Outcome, outcome
from codur.repair.registry import OPERATORS, operator
from codur.repair.source import Mutation, Source, apply_mutations, clip, overlaps

__all__ = ["Mutation", "Source", "apply_mutations", "clip", "mutations", "operator", "overlaps"]


def _parse(source: str, path: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source, path)
        except (SyntaxError, ValueError):
            return None


def _compiles(source: str, path: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


class _Checker:
    """Does an edited source compile?

    Only the smallest unit around the edit is recompiled: the outermost function holding it
    (indented ones under an `if 1:`), else its top-level statement. Nothing else can change.
    Renaming a variable read needs no compiling unless either name is declared
    global/nonlocal there: nothing else makes the compiler care which name is read.
    """

    def __init__(self, src: Source, tree: ast.Module) -> None:
        self._src = src
        functions = list(_outer_functions(tree))
        self._functions = self._spans(functions)
        self._statements = self._spans(tree.body)
        # variable reads -> the names their unit declares global/nonlocal
        self._reads: dict[tuple[int, int], frozenset[str]] = {}
        for unit in [*functions, *tree.body]:
            nodes = list(ast.walk(unit))
            declared = frozenset(
                name for n in nodes if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names
            )
            self._reads.update((src.span(n), declared) for n in nodes if _is_read(n))

    def _spans(self, stmts: Iterable[ast.stmt]) -> list[tuple[int, int]]:
        return sorted((self._src.line_start(_first_line(s)), self._src.end(s)) for s in stmts)

    def compiles(self, edit: Mutation) -> bool:
        declared = self._reads.get((edit.start, edit.end))
        if declared is not None and _is_name(edit.text) and not {edit.old, edit.text} & declared:
            return True
        text = self._src.text
        for spans in (self._functions, self._statements):
            i = bisect.bisect_right(spans, (edit.start, len(text) + 1)) - 1
            if i >= 0 and edit.end <= spans[i][1]:
                start, end = spans[i]
                chunk = text[start : edit.start] + edit.text + text[edit.end : end]
                indented = chunk[:1] in (" ", "\t")
                return _compiles("if 1:\n" + chunk if indented else chunk, self._src.path)
        return _compiles(apply_mutations(text, [edit]), self._src.path)


def _is_read(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)


def _is_name(text: str) -> bool:
    return text.isidentifier() and not keyword.iskeyword(text)


def _first_line(stmt: ast.stmt) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])


def _outer_functions(tree: ast.Module) -> Iterator[ast.stmt]:
    """Functions not inside another function (methods and nested-in-if ones included)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        else:  # statements, except handlers, match cases; expressions hold no defs
            stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.expr))


def _smaller(edit: Mutation, other: Mutation) -> bool:
    return (edit.size, edit.end - edit.start) < (other.size, other.end - other.start)


def mutations(
    path: str,
    source: str,
    *,
    operators: Iterable[str] | None = None,
    exception_names: Iterable[str] = (),
) -> list[Mutation]:
    """Every single mutation of `source` by the named operators (default all).

    Each result compiles (see `_Checker`) and differs from the original. Of edits giving
    the same new source the first is kept, or a later smaller one (fewer characters
    changed, then a shorter span) in its place. Source that does not parse gives [].
    `exception_names` are exception class names from the failing run's traceback, used
    by the `exception` operator.
    """
    tree = _parse(source, path)
    if tree is None:
        return []
    names = list(OPERATORS) if operators is None else list(operators)
    if unknown := [name for name in names if name not in OPERATORS]:
        raise ValueError(f"unknown mutation operators: {', '.join(unknown)}")
    src = Source(path, source, exception_names)
    checker = _Checker(src, tree)
    kept: dict[Outcome, Mutation] = {}  # by what each makes of the source (a copy of it
    rejected: set[Outcome] = set()  # per mutation took time and memory in the square of
    for name in names:  # its size: gigabytes, seconds)
        for edit in OPERATORS[name](tree, src):
            new = outcome(source, edit)
            if new is None or new in rejected:
                continue
            if new in kept:
                if _smaller(edit, kept[new]):
                    kept[new] = edit
            elif checker.compiles(edit):
                kept[new] = edit
            else:
                rejected.add(new)
    return list(kept.values())
