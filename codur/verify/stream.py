"""Streaming verification: an output check watches the program's stdout as it is printed
and stops the program at the first line that cannot match the expected output, instead of
waiting for it to end. The rules are `check.normalize`'s, so the early stop is exactly as
strict as the final comparison: a line that could still match never stops the program.
"""

from __future__ import annotations

from collections.abc import Callable

from codur.verify.check import normalize


def mismatch(expected: str) -> Callable[[int, str], bool]:
    """Called with each complete stdout line (0-based index, text as printed): whether no
    output that starts with the lines so far can compare equal to `expected`."""
    wanted = normalize(expected)
    lines = wanted.split("\n") if wanted else []

    def cannot_match(index: int, line: str) -> bool:
        text = line.rstrip()  # a complete line: its "\r" and trailing spaces never count
        if index < len(lines):
            # a blank line where text is expected is no trailing blank line the comparison
            # drops: the expected output goes on after it
            return text != lines[index]
        return text != ""  # past the end only blank lines, which the comparison drops

    return cannot_match
