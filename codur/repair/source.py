"""One file's text for the repair search: AST positions as character offsets, and the
Mutation (a character span replaced) that every operator yields."""

from __future__ import annotations

import ast
import bisect
import functools
import os
import re
from collections.abc import Iterable, Sequence
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
