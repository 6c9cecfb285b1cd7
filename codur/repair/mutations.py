"""Small program mutations of Python source, each one character span of the original text.

A repair search tries these on failing code. Operators (in `codur.repair.operators`) find
spots through the AST and describe each change as a `Mutation`: one span of the original
source and its replacement, so the rest of the file keeps its exact formatting. Node
positions from `ast` are UTF-8 byte columns; `Source` turns them into character offsets.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import functools
import keyword
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

_NEWLINE = re.compile(r"\r\n|\r|\n")  # what the tokenizer counts as a line break
_CLIP = 40


@dataclass(frozen=True)
class Mutation:
    """Replace `source[start:end]` (character offsets) with `text`."""

    path: str  # workspace-relative file path, passed through
    start: int
    end: int
    text: str
    line: int  # 1-based first line of the mutated node
    end_line: int  # 1-based last line of the mutated node
    operator: str  # the OPERATORS name that made it
    description: str  # one short line, e.g. "line 12: `i < n` -> `i <= n`"
    old: str = ""  # the replaced text, source[start:end]

    @property
    def size(self) -> int:
        """Characters changed: the differing middle of `old` and `text`."""
        old, new = self.old, self.text
        prefix = len(os.path.commonprefix([old, new]))
        old, new = old[prefix:], new[prefix:]
        suffix = len(os.path.commonprefix([old[::-1], new[::-1]]))
        return max(len(old), len(new)) - suffix


def _spans_overlap(a: Mutation, b: Mutation) -> bool:
    """Shared characters, or two changes at one point (their order would be ambiguous)."""
    return a.start == b.start or (a.start < b.end and b.start < a.end)


def overlaps(a: Mutation, b: Mutation) -> bool:
    """Can the two edits not be applied together?"""
    return a.path == b.path and _spans_overlap(a, b)


def apply_mutations(source: str, edits: Sequence[Mutation]) -> str:
    """Apply non-overlapping edits (any order given) -> new source. ValueError if they overlap."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for prev, cur in pairwise(ordered):
        if _spans_overlap(prev, cur):
            raise ValueError(f"overlapping edits: {prev.description!r} and {cur.description!r}")
    pieces, pos = [], 0
    for edit in ordered:
        if not 0 <= edit.start <= edit.end <= len(source):
            raise ValueError(f"edit span {edit.start}:{edit.end} is outside the source")
        if edit.old and source[edit.start : edit.end] != edit.old:
            raise ValueError(f"edit does not match the source: {edit.description!r}")
        pieces += [source[pos : edit.start], edit.text]
        pos = edit.end
    pieces.append(source[pos:])
    return "".join(pieces)


def clip(text: str, limit: int = _CLIP) -> str:
    """One line of at most `limit` characters, for descriptions."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@functools.lru_cache(maxsize=64)
def _token_pattern(token: str) -> re.Pattern[str]:
    """Comments, or `token` (`not in` matches across any whitespace, words at word bounds)."""
    words = token.split()
    body = r"\b" + r"\s+".join(words) + r"\b" if token[0].isalpha() else re.escape(token)
    return re.compile(rf"#[^\r\n]*|(?P<tok>{body})")


class Source:
    """One file's text, with AST positions converted to character offsets."""

    def __init__(self, path: str, text: str, exception_names: Iterable[str] = ()) -> None:
        self.path = path
        self.text = text
        self.exception_names = tuple(exception_names)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self._ascii = text.isascii()

    def offset(self, lineno: int, col: int) -> int:
        """Character offset of a 1-based line and a UTF-8 byte column."""
        start = self._line_starts[lineno - 1]
        if self._ascii:
            return start + col
        line = self.text[start : start + col * 4]  # a character is at most 4 bytes
        head = line.encode("utf-8", "surrogatepass")[:col]
        return start + len(head.decode("utf-8", "surrogatepass"))

    def line_start(self, lineno: int) -> int:
        return self._line_starts[lineno - 1]

    def line_at(self, offset: int) -> int:
        """1-based line holding character `offset`."""
        return bisect.bisect_right(self._line_starts, offset)

    def start(self, node: ast.AST) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.start(node), self.end(node)

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]

    def token_between(self, left: ast.AST, right: ast.AST, token: str) -> tuple[int, int] | None:
        """Span of the operator `token` in the gap between two operands (skipping comments)."""
        for match in _token_pattern(token).finditer(self.text, self.end(left), self.start(right)):
            if match.group("tok"):
                return match.span("tok")
        return None

    def outer_span(self, node: ast.AST, lo: int, hi: int) -> tuple[int, int]:
        """The node's span widened over grouping parentheses found within `lo:hi`."""
        start, end = self.span(node)
        while True:
            before = self.text[lo:start].rstrip()
            after = self.text[end:hi].lstrip()
            if not (before.endswith("(") and after.startswith(")")):
                return start, end
            start, end = lo + len(before) - 1, hi - len(after) + 1

    def edit(
        self, node: ast.AST, start: int, end: int, text: str, description: str | None = None
    ) -> Mutation:
        """An edit of `start:end` made for `node`; the description shows the node before/after."""
        node_start, node_end = self.span(node)
        lo, hi = min(node_start, start), max(node_end, end)
        if description is None:
            before = self.text[lo:hi]
            after = self.text[lo:start] + text + self.text[end:hi]
            description = f"`{clip(before)}` -> `{clip(after)}`"
        line = self.line_at(lo)
        return Mutation(
            path=self.path,
            start=start,
            end=end,
            text=text,
            line=line,
            end_line=max(line, self.line_at(max(lo, hi - 1))),
            operator="",
            description=f"line {line}: {description}",
            old=self.text[start:end],
        )

    def replace(self, node: ast.AST, text: str) -> Mutation:
        """Replace the whole node's text."""
        return self.edit(node, *self.span(node), text)


Operator = Callable[[ast.Module, Source], Iterator[Mutation]]
OPERATORS: dict[str, Operator] = {}


def operator(name: str) -> Callable[[Operator], Operator]:
    """Register a mutation operator under `name`; its edits are stamped with that name."""

    def register(fn: Operator) -> Operator:
        @functools.wraps(fn)
        def named(tree: ast.Module, src: Source) -> Iterator[Mutation]:
            for edit in fn(tree, src):
                yield dataclasses.replace(edit, operator=name)

        OPERATORS[name] = named
        return named

    return register


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
    kept: dict[str, Mutation] = {}
    rejected = {source}
    for name in names:
        for edit in OPERATORS[name](tree, src):
            new = apply_mutations(source, [edit])
            if new in rejected:
                continue
            if new in kept:
                if _smaller(edit, kept[new]):
                    kept[new] = edit
            elif checker.compiles(edit):
                kept[new] = edit
            else:
                rejected.add(new)
    return list(kept.values())


# The operators register themselves in OPERATORS on import (they need the classes above).
from codur.repair import operators as _operators  # noqa: E402, F401
from codur.repair import operators_scope as _operators_scope  # noqa: E402, F401
