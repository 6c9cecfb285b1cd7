"""Citations an answer lacks, from the code index: the first mention of a definition in
backticks (`merge`, `Loader.load`, `cell_len()`) with no `path:line` right after it, and
whose location the answer cites nowhere, gets the line where that definition is. A name
the index defines more than once is grounded only when exactly one of those definitions
is in a file the research read; otherwise it stays as written. Nothing is invented:
every added location is a real definition."""

from __future__ import annotations

import re

from codur.search.index import CodeIndex

NAME = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")
CITED_NEXT = re.compile(r"\s*\(?`?(?:[\w.-]+/)*[\w.-]+\.py:\d")
CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.py):(\d+)(?:-(\d+))?")
"""`path.py:12` or `path.py:12-30` in an answer."""


def _cited(answer: str) -> list[tuple[str, int, int]]:
    return [
        (m.group(1).removeprefix("./"), int(m.group(2)), int(m.group(3) or m.group(2)))
        for m in CITATION.finditer(answer)
    ]


def ground(answer: str, index: CodeIndex, read: set[str]) -> tuple[str, int]:
    """`answer` with the missing locations added, and how many were added."""
    cited = _cited(answer)
    done: set[str] = set()
    added = 0
    parts: list[str] = []
    last = 0
    for match in NAME.finditer(answer):
        name = match.group(1)
        if name in done or CITED_NEXT.match(answer, match.end()):
            continue
        done.add(name)
        found = index.definitions(name)
        if len(found) > 1:
            found = [d for d in found if d.path in read]
        if len(found) != 1:
            continue
        where = found[0]
        if any(p == where.path and a <= where.line <= b for p, a, b in cited):
            continue  # the answer cites it elsewhere
        parts += [answer[last : match.end()], f" (`{found[0].path}:{found[0].line}`)"]
        last = match.end()
        added += 1
    return "".join([*parts, answer[last:]]), added
