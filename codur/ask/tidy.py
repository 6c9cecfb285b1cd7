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
LOCATION = re.compile(r"(?<![\w.-])[\w.-]+\.\w+:\d")  # one start a run: linear
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


MAX_CYCLE = 4
"""The longest run of paragraphs a loop repeats that is looked for (seen: three)."""


def without_repeats(text: str) -> str:
    """`text` without a run of up to MAX_CYCLE prose paragraphs that repeats the run just
    before it (whitespace aside; seen: one paragraph five times and a half, a cycle of
    three written three times), nor a last paragraph that only begins one of the
    paragraphs before it (a repeat the output cap cut). Code blocks are kept as written,
    and a paragraph said again further on (a heading over each of two functions) is not
    a loop."""
    paragraphs = [(_key(text), code) for text, code in _paragraphs(text)]
    shown = [text for text, _ in _paragraphs(text)]
    kept: list[int] = []  # indexes into paragraphs
    n = 0
    while n < len(paragraphs):
        if size := _repeat(paragraphs, kept, n):
            n += size
            continue
        key, code = paragraphs[n]
        recent = [paragraphs[k] for k in kept[-MAX_CYCLE:]]
        cut = not code and any(len(before) > len(key) and before.startswith(key)
                               for before, was_code in recent if not was_code)  # fmt: skip
        if not (n == len(paragraphs) - 1 and cut):
            kept.append(n)
        n += 1
    return "\n\n".join(shown[k] for k in kept)


def _repeat(paragraphs: list[tuple[str, bool]], kept: list[int], n: int) -> int:
    """How many paragraphs from `n` on repeat, as a run of prose, the last ones kept
    (0: none)."""
    for size in range(1, min(MAX_CYCLE, len(kept)) + 1):
        run, before = paragraphs[n : n + size], [paragraphs[k] for k in kept[-size:]]
        if len(run) == size and run == before and not any(code for _, code in run):
            return size
    return 0


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
