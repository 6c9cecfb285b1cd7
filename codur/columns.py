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
    the spare room goes to each column in proportion to what it lacks; None if even the
    minimums do not fit."""
    spare = room - sum(mins)
    if spare < 0:
        return None
    wanted = [hi - lo for lo, hi in zip(mins, maxs, strict=True)]
    total = sum(wanted)
    if total <= spare:
        return list(maxs)
    widths = [lo + want * spare // total for lo, want in zip(mins, wanted, strict=True)]
    left = room - sum(widths)
    for index in sorted(range(len(widths)), key=lambda i: wanted[i] - widths[i] + mins[i]):
        if left <= 0:
            break
        if widths[index] < maxs[index]:
            widths[index] += 1
            left -= 1
    return widths
