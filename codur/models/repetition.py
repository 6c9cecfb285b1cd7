"""A reply caught in a loop. At a sampling temperature the embedded 1.5B model sometimes
writes one block of lines again and again until its output cap: seen in a real-package
run, a four-line comment block repeated for 2,048 tokens, 392 s of generation for a reply
that could only fail. A generation whose reply ends in the same block several times in a
row is stopped there (`codur.models.local_cancel` checks before each decode) and read as
a reply cut at its cap.

A block is 24 to 256 tokens and its copies span at least 256 tokens: rows repeated in
ordinary code (an 8x8 board of zeros, 209 tokens; a table of bytes) stay under that, a
loop runs past it on its way to the cap."""

from __future__ import annotations

from collections.abc import Sequence

MIN_PERIOD = 24
MAX_PERIOD = 256
MIN_SPAN = 256
"""Tokens the repeated copies take at the least."""
CHECK_EVERY = 8
"""Tokens generated between two checks."""


def period(tokens: Sequence[int], copies: int) -> int:
    """The length of the shortest block (MIN_PERIOD to MAX_PERIOD tokens, its `copies`
    at least MIN_SPAN) that the end of `tokens` holds `copies` times in a row, or 0 (also
    for `copies` below 2)."""
    tokens = list(tokens)
    n = len(tokens)
    if copies < 2:
        return 0
    shortest = max(MIN_PERIOD, -(-MIN_SPAN // copies))
    for p in range(shortest, min(MAX_PERIOD, n // copies) + 1):
        tail = tokens[n - p :]
        if all(tokens[n - (k + 1) * p : n - k * p] == tail for k in range(1, copies)):
            return p
    return 0


class Repeating(Exception):
    """Raised between two decodes: the reply so far (`tokens`) ends in a loop of `period`
    tokens."""

    def __init__(self, tokens: list[int], period: int) -> None:
        super().__init__(f"the reply repeats a block of {period} tokens")
        self.tokens, self.period = tokens, period
