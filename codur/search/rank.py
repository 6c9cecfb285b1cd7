"""Ranking chunks: identifier-aware tokens, BM25 (bm25s), a name ranking, and reciprocal
rank fusion to combine any number of rankings (BM25, names, an embedding model's)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from codur.search.chunks import Chunk

RRF_K = 60
"""The constant of reciprocal rank fusion (Cormack et al. 2009): score = sum 1 / (k + rank)."""

_WORD = re.compile(r"[A-Za-z0-9]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
STOP_WORDS = frozenset(
    """a an and are as at be by do does for from how if in into is it its of on or so that
    the this to was what when where which who why will with self cls def return none true
    false import class pass""".split()  # noqa: SIM905 - a word list reads best as text
)


def tokens(text: str) -> list[str]:
    """Lower-case search tokens: each word, and the parts of a snake_case or camelCase
    identifier (`load_config` -> load_config, load, config), without stop words."""
    out: list[str] = []
    for word in re.findall(r"[A-Za-z0-9_]+", text):
        low = word.lower()
        if low not in STOP_WORDS and len(low) > 1:
            out.append(low)
        parts = [p.lower() for piece in _WORD.findall(word) for p in _PART.findall(piece)]
        if len(parts) > 1:
            out += [p for p in parts if p not in STOP_WORDS and len(p) > 1]
    return out


def chunk_document(chunk: Chunk) -> list[str]:
    """What BM25 indexes for a chunk: its path and name (twice: a name says the most)
    and its source."""
    head = f"{chunk.path} {chunk.name} {chunk.name}"
    return tokens(head) + tokens(chunk.text)


class Ranker(Protocol):
    """A ranking of the index's chunks for a query: chunk positions, best first."""

    def rank(self, query: str, limit: int) -> list[int]: ...


class BM25Ranker:
    """BM25 over `chunk_document` tokens (bm25s, sparse matrices)."""

    def __init__(self, documents: Sequence[list[str]]) -> None:
        import bm25s

        self.size = len(documents)
        self._bm25 = bm25s.BM25()
        if self.size:
            self._bm25.index([d or ["_empty_"] for d in documents], show_progress=False)
        self._vocab = set(self._bm25.vocab_dict) if self.size else set()

    def rank(self, query: str, limit: int) -> list[int]:
        words = [w for w in tokens(query) if w in self._vocab]
        if not words or not self.size:
            return []
        k = min(limit, self.size)
        docs, scores = self._bm25.retrieve([words], k=k, show_progress=False, n_threads=1)
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


class NameRanker:
    """Chunks whose name or path shares words with the query, scored by the rarity (IDF)
    of the shared words (a second, cheap signal: a question naming `load_config` wants
    that function)."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self._names = [set(tokens(f"{c.name} {c.path.removesuffix('.py')}")) for c in chunks]
        counts: dict[str, int] = {}
        for names in self._names:
            for word in names:
                counts[word] = counts.get(word, 0) + 1
        total = len(self._names) or 1
        self._idf = {w: math.log(1 + total / n) for w, n in counts.items()}

    def rank(self, query: str, limit: int) -> list[int]:
        wanted = set(tokens(query))
        scored = [
            (sum(self._idf[w] for w in wanted & names), -i) for i, names in enumerate(self._names)
        ]
        best = sorted((s for s in scored if s[0] > 0), reverse=True)[:limit]
        return [-i for _, i in best]


def fuse(rankings: Iterable[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: each item scores sum 1 / (k + rank) over the rankings it
    appears in (rank 1 is best); ties keep the earlier ranking's order."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: -scores[item])


class Coverage:
    """How much of a query the given chunks contain: the IDF-weighted share of its
    search tokens that occur in at least one of them (0 to 1). A token no chunk of the
    index holds weighs as much as the rarest one, so a question about something the code
    does not have scores low however well its common words match."""

    def __init__(self, documents: Sequence[list[str]]) -> None:
        self._docs = [set(d) for d in documents]
        counts: dict[str, int] = {}
        for doc in self._docs:
            for word in doc:
                counts[word] = counts.get(word, 0) + 1
        total = len(self._docs) or 1
        self._idf = {w: math.log(1 + total / n) for w, n in counts.items()}
        self._unseen = math.log(1 + total)

    def holding(self, query: str) -> set[int]:
        """The positions of the documents that hold at least one of `query`'s tokens."""
        wanted = set(tokens(query))
        return {i for i, doc in enumerate(self._docs) if doc & wanted}

    def share(self, query: str, chosen: Iterable[int]) -> float:
        """The share of `query`'s weight found in the documents at positions `chosen`."""
        wanted = set(tokens(query))
        if not wanted:
            return 0.0
        found = set().union(*(self._docs[i] & wanted for i in chosen))
        weight = {w: self._idf.get(w, self._unseen) for w in wanted}
        return sum(weight[w] for w in found) / sum(weight.values())
