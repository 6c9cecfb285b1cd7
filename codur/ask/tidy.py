"""What the answer call wrote, made fit to show: a paragraph written again is dropped, and
an answer that cites no location says where the search found code for it.

The embedded 1.5B model sometimes writes a paragraph again and again until its loop is
stopped or its output cap cuts it (seen: "The `guide_style` attribute is also used in
the `Tree` class constructor at line 37. ..." six times and a half). And it sometimes
answers in prose with no `path:line` at all (2 of 25 answers on rich), which leaves the
user nowhere to look; the chunks retrieved for the question are listed then, marked as
the search's, not the answer's."""

from __future__ import annotations

import re

from codur.ask.ground import CITATION

SOURCES_LEAD = "_Where the search found code for this (the answer cites no location):_"
"""How the list of retrieved locations under an uncited answer starts."""
MAX_SOURCES = 3
"""Retrieved locations listed under an uncited answer, best first."""
FENCE = re.compile(r"^\s*(```|~~~)")


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """`text` cut at blank lines outside fenced code: each paragraph, and whether it is
    (or holds) fenced code."""
    found: list[tuple[list[str], bool]] = [([], False)]
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            found[-1] = (found[-1][0], True)
        if not line.strip() and not fenced:
            if found[-1][0]:
                found.append(([], False))
            continue
        found[-1][0].append(line)
    return [("\n".join(lines), code) for lines, code in found if lines]


def _key(paragraph: str) -> str:
    return " ".join(paragraph.split())


def without_repeats(text: str) -> str:
    """`text` without the prose paragraphs said before in it (whitespace aside), nor a
    last paragraph that only begins one said before (a repeat cut by the output cap).
    Code blocks are kept as written."""
    kept: list[str] = []
    said: list[str] = []
    paragraphs = _paragraphs(text)
    for n, (paragraph, code) in enumerate(paragraphs):
        key = _key(paragraph)
        last = n == len(paragraphs) - 1
        if not code and (key in said or (last and any(s.startswith(key) for s in said))):
            continue
        said.append(key)
        kept.append(paragraph)
    return "\n\n".join(kept)


def with_sources(text: str, sources: list[str]) -> str:
    """`text`, and when it cites no `path:line`, the first MAX_SOURCES of `sources` (the
    locations the search retrieved for it, best first) under SOURCES_LEAD."""
    if CITATION.search(text) or not sources:
        return text
    listed = ", ".join(f"`{where}`" for where in sources[:MAX_SOURCES])
    return f"{text}\n\n{SOURCES_LEAD} {listed}"


def model_cited(answer: str) -> str:
    """`answer` without the lines `with_sources` added: what the model itself wrote."""
    lines = [line for line in answer.splitlines() if not line.startswith(SOURCES_LEAD)]
    return "\n".join(lines).rstrip()
