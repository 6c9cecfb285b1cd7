"""The parts of a question, by its structure: sentences ending in `?`, clauses after `;`,
and a new interrogative clause joined by `and`/`or` (", and which function ...").
Each part is retrieved for on its own, and each part that asks something is answered in
a call of its own, so the second half of "where is X decided, and which function uses
it?" is not dropped."""

from __future__ import annotations

import re

from codur.search.rank import tokens

MAX_PARTS = 4
"""Parts kept at most; the rest of a longer question stays in the last one."""

INTERROGATIVES = "which|what|where|how|why|who|whom|whose|when"
"""The words that open an interrogative clause (a closed class of English)."""

_ASKS = re.compile(rf"^(?:(?:and|or|but)\s+)?(?:{INTERROGATIVES})\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=\?)\s+|;\s*")
_CLAUSE = re.compile(rf",?\s+(?:and|or)\s+(?=(?:{INTERROGATIVES})\b)", re.IGNORECASE)


def split_question(question: str) -> list[str]:
    """The question's parts in order (one part when it has no second clause); a piece
    without a searchable word ("and why?"), or that opens no interrogative clause ("Please
    keep it short.", "I could not find it in config.py."), stays with the part before."""
    pieces = [
        clause.strip(" \t\n,?")
        for sentence in _SENTENCES.split(question.strip())
        for clause in _CLAUSE.split(sentence)
    ]
    parts: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if parts and (not tokens(piece) or not _ASKS.match(piece) or len(parts) == MAX_PARTS):
            parts[-1] = f"{parts[-1]}, {piece}"
            continue
        parts.append(piece)
    return parts or [question.strip()]
