"""What of a long chunk a search result shows: its first lines, or, when the lines that
match the query lie further down, its head and a window around the best of them.

A chunk can be a whole 170-line table (rich's `DEFAULT_STYLES`); shown by its first
twelve lines, the line a question asks about (`"repr.number": Style(...)`) was never in
front of the model, which then cited another file. A line's score is the query's words
it holds, each weighed by how few of the chunk's lines hold it (a word on every line of
a table says nothing about which line), plural and singular alike."""

from __future__ import annotations

from codur.search.chunks import Chunk
from codur.search.rank import tokens

HEAD_LINES = 3
"""Lines of the chunk's start kept above a window further down (its signature), at most
a third of the lines shown."""
BEFORE = 3
"""Lines of the window above its best line."""


def _words(text: str) -> set[str]:
    """Search tokens, plural and singular alike (`numbers` finds `number`)."""
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in tokens(text)}  # fmt: skip


def best_line(lines: list[str], query: str) -> int | None:
    """The index of the line of `lines` that best matches `query`, or None when none
    holds any of its words."""
    wanted = _words(query)
    held = [_words(line) & wanted for line in lines]
    counts: dict[str, int] = {}
    for words in held:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    scores = [sum(1 / counts[w] for w in words) for words in held]
    best = max(range(len(lines)), key=lambda n: (scores[n], -n), default=None)
    return best if best is not None and scores[best] > 0 else None


def excerpt(chunk: Chunk, query: str, size: int) -> str:
    """At most `size` lines of `chunk` to show for `query`, marking what is left out:
    its first lines, or its head and the window around its best-matching line."""
    lines = chunk.text.splitlines()
    if len(lines) <= size:
        return chunk.text.rstrip("\n")
    best = best_line(lines, query) if query else None
    if best is None or best < size - 1:
        return "\n".join(lines[:size]) + _more(len(lines) - size)
    head = min(HEAD_LINES, size // 3)
    span = size - head
    start = min(best - min(BEFORE, span // 3), len(lines) - span)
    end = start + span
    first = chunk.start + start
    gap = start - head
    parts = [*lines[:head], f"    [... {gap} lines left out; from line {first}:]"]
    parts += lines[start:end]
    return "\n".join(parts) + (_more(len(lines) - end) if end < len(lines) else "")


def _more(count: int) -> str:
    return f"\n    [... {count} more line{'s' if count > 1 else ''}]"
