"""Line surgery on a source text: replace and insert whole lines, keeping the file's
newline style and every line that no change touches byte for byte."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codur.edits.base import EditError
from codur.edits.spans import Span

# The line breaks Python's tokenizer counts (str.splitlines also splits on \f, \x1c, ...).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """`text` as lines that keep their line breaks, numbered as `ast` numbers them."""
    return _LINE.findall(text)


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def is_comment(line: str) -> bool:
    return line.lstrip(" \t").startswith("#")


def attached_start(lines: list[str], start: int) -> int:
    """The 1-based first line of the comment lines directly above line `start` (no blank
    line between), or `start` itself."""
    while start > 1 and is_comment(lines[start - 2]):
        start -= 1
    return start


def reindent(lines: list[str], old: str, new: str) -> list[str]:
    """Move lines indented by `old` to `new` (lines not starting with `old` are left)."""
    if old == new:
        return lines
    return [
        new + line[len(old) :] if line.strip() and line.startswith(old) else line for line in lines
    ]


@dataclass(frozen=True)
class _Splice:
    start: int  # 0-based index of the first line replaced, or where lines go in
    stop: int  # 0-based index after the last line replaced; == start for an insertion
    lines: list[str]


def restyled(text: str, like: str) -> str:
    """`text` (a whole new file) as `like` (the file it replaces) writes its lines: with
    CRLF line breaks where `like` has them, and no final newline where it has none."""
    if "\r\n" in like:
        text = re.sub(r"(?<!\r)\n", "\r\n", text)
    if like and not like.endswith(("\n", "\r")):
        text = text.rstrip("\r\n")
    return text


class Source:
    """A file's lines and the changes to make to them; `text()` applies them all at once,
    so every position refers to the original file."""

    def __init__(self, text: str, label: str) -> None:
        self.label = label
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.lines = split_lines(text)
        self.final_newline = not self.lines or self.lines[-1].endswith(("\n", "\r"))
        if not self.final_newline:
            self.lines[-1] += self.newline
        self._splices: list[_Splice] = []

    def conform(self, lines: list[str]) -> list[str]:
        """`lines` with this file's line breaks."""
        return [line.rstrip("\r\n") + self.newline for line in lines]

    def line(self, number: int) -> str:
        return self.lines[number - 1]

    def replace(self, span: Span, lines: list[str]) -> None:
        self._splices.append(_Splice(span.start - 1, span.end, self.conform(lines)))

    def insert(self, after: int, lines: list[str]) -> None:
        """Put `lines` after line `after` (0: at the top); in call order at one place."""
        self._splices.append(_Splice(after, after, self.conform(lines)))

    def text(self) -> str:
        out: list[str] = []
        pos = 0
        for splice in sorted(self._splices, key=lambda s: (s.start, s.stop)):
            if splice.start < pos:
                raise EditError(
                    f"the block for {self.label} changes line {splice.start + 1} of it twice "
                    "(the same definition given two ways)"
                )
            out += self.lines[pos : splice.start] + splice.lines
            pos = splice.stop
        text = "".join(out + self.lines[pos:])
        if not self.final_newline and text.endswith(self.newline):
            text = text[: -len(self.newline)]
        return text
