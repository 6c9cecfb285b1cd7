"""What the answer call wrote, made fit to show: a paragraph written again is dropped, and
an answer that cites no location says where the search found code for it, apart from
what the answer cites (`model_cited`: the answer's own citations are read without it).

The embedded 1.5B model sometimes writes a paragraph again and again until its loop is
stopped or its output cap cuts it, back to back (seen: "The `guide_style` attribute is
also used in the `Tree` class constructor at line 37. ..." five times and a half). And
it sometimes answers in prose with no `path:line` at all (2 of 25 answers on rich), which leaves the
user nowhere to look; the chunks retrieved for the question are listed then, marked as
the search's, not the answer's."""

from __future__ import annotations

import re

SOURCES_LEAD = "_Where the search found code for this (the answer cites no location):_"
"""How the list of retrieved locations under an uncited answer starts."""
MAX_SOURCES = 3
"""Retrieved locations listed under an uncited answer, best first."""
FENCE = re.compile(r"^\s*(```|~~~)")
LOCATION = re.compile(r"[\w.-]+\.\w+:\d")
"""A cited location in any kind of file (`shop/rates.py:7`, `config/settings.yaml:12`)."""


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """`text` cut at blank lines outside fenced code: each paragraph, and whether it is
    (or holds) code, fenced or indented."""
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
    return [
        ("\n".join(lines), code or all(_indented(x) for x in lines))
        for lines, code in found
        if lines
    ]


def _indented(line: str) -> bool:
    """A line of an indented code block (markdown: four spaces or a tab)."""
    return line.startswith(("    ", "\t"))


def _key(paragraph: str) -> str:
    return " ".join(paragraph.split())


def without_repeats(text: str) -> str:
    """`text` without a prose paragraph that repeats the one just before it (whitespace
    aside), nor a last paragraph that only begins the one before it (a repeat the output
    cap cut). Code blocks are kept as written, and a paragraph said again further on (a
    heading over each of two functions) is not a loop."""
    kept: list[tuple[str, bool]] = []
    paragraphs = _paragraphs(text)
    for n, (paragraph, code) in enumerate(paragraphs):
        if kept and not code and not kept[-1][1]:
            key, before = _key(paragraph), _key(kept[-1][0])
            if key == before or (n == len(paragraphs) - 1 and before.startswith(key)):
                continue
        kept.append((paragraph, code))
    return "\n\n".join(paragraph for paragraph, _ in kept)


def with_sources(text: str, sources: list[str]) -> str:
    """`text`, and when it cites no location (`path.ext:line`) the first MAX_SOURCES of
    `sources` (the locations the search retrieved for it, best first) under SOURCES_LEAD.
    An empty reply stays empty: there is no answer to point from."""
    if not text.strip() or LOCATION.search(text) or not sources:
        return text
    listed = ", ".join(f"`{where}`" for where in sources[:MAX_SOURCES])
    return f"{text}\n\n{SOURCES_LEAD} {listed}"


def model_cited(answer: str) -> str:
    """`answer` without the lines `with_sources` added: what the model itself wrote."""
    lines = [line for line in answer.splitlines() if not line.startswith(SOURCES_LEAD)]
    return "\n".join(lines).rstrip()
