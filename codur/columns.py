"""Column widths for a table that must not break a word (a run id) however narrow the
terminal: rich's own layout folds words once a table is wider than the screen."""

from __future__ import annotations


def cell_widths(cells: list[str]) -> tuple[int, int]:
    """(the longest word, the longest line) of a column's cells, its header included."""
    words = [len(w) for c in cells for w in c.split()]
    lines = [len(line) for c in cells for line in c.splitlines()]
    return max(words, default=0), max(lines, default=0)


def fit(mins: list[int], maxs: list[int], room: int) -> list[int] | None:
    """Widths for columns that need `mins` and would like `maxs`, in `room` characters:
    the widest columns give way first (each down to no less than its minimum), so short
    columns stay on one line; None if even the minimums do not fit."""
    if sum(mins) > room:
        return None

    def capped(cap: int) -> list[int]:
        return [max(lo, min(hi, cap)) for lo, hi in zip(mins, maxs, strict=True)]

    low, high = 0, max(maxs, default=0)
    while low < high:  # the largest cap whose widths fit
        middle = (low + high + 1) // 2
        low, high = (middle, high) if sum(capped(middle)) <= room else (low, middle - 1)
    widths = capped(low)
    left = room - sum(widths)
    for index in sorted(range(len(widths)), key=lambda i: -maxs[i]):  # what is left over
        grow = min(left, maxs[index] - widths[index])
        widths[index] += grow
        left -= grow
    return widths
