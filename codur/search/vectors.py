"""The semantic half of code search: an embedding of every chunk, kept in the index
folder (`embeddings-<model>.npz`) and updated by file hash like the rest of the index, so
only the chunks of new and changed files are embedded again; a query is ranked by cosine
similarity to them."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codur.search.chunks import CHUNKER, Chunk
from codur.search.embed import Embedder

if TYPE_CHECKING:
    import numpy as np

FORMAT = 1
"""The cache's format (and the text `embed_document` makes); another number: embed again."""

EmbedProgress = Callable[[int, int, float], None]
"""Called with (chunks embedded, chunks to embed, seconds so far) while embedding."""

_PROGRESS_EVERY = 64


def embed_document(chunk: Chunk) -> str:
    """What the model reads for a chunk: its name and path, then its source (the model
    cuts it at its token limit, so the signature and docstring come first)."""
    return f"{chunk.name} in {chunk.path}\n{chunk.text}"


@dataclass(frozen=True)
class EmbedStats:
    """What an update embedded: chunks (of how many in all) and the seconds it took."""

    embedded: int
    chunks: int
    seconds: float


class SemanticIndex:
    """Unit vectors of the index's chunks by file: (sha256, one row a chunk)."""

    def __init__(self, folder: Path | None, embedder: Embedder, max_tokens: int) -> None:
        self.folder = folder
        self.embedder = embedder
        self.max_tokens = max_tokens
        self.files: dict[str, tuple[str, np.ndarray]] = {}
        self._matrix: np.ndarray | None = None

    @property
    def path(self) -> Path | None:
        return self.folder / f"embeddings-{self.embedder.model_id}.npz" if self.folder else None

    def _meta(self) -> dict:
        return {
            "format": FORMAT,
            "chunker": CHUNKER,
            "model": self.embedder.model_id,
            "max_tokens": self.max_tokens,
        }

    @classmethod
    def load(cls, folder: Path | None, embedder: Embedder, max_tokens: int) -> SemanticIndex:
        """The vectors saved in `folder` for this model and token limit (none if absent,
        damaged, or made another way)."""
        import numpy as np

        index = cls(folder, embedder, max_tokens)
        if index.path is None or not index.path.is_file():
            return index
        try:
            with np.load(index.path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                vectors = data["vectors"].astype(np.float32)
            if {k: meta.get(k) for k in index._meta()} != index._meta():
                return index
            for rel, (digest, start, count) in meta["files"].items():
                index.files[rel] = (digest, vectors[start : start + count])
        except (OSError, ValueError, KeyError, TypeError):
            index.files = {}  # a damaged cache is rebuilt
        return index

    def update(
        self, files: Sequence[tuple[str, str, list[Chunk]]], progress: EmbedProgress | None = None
    ) -> EmbedStats:
        """Bring the vectors up to date with `files` (path, sha256, chunks), in the index's
        order: a file whose hash and chunk count are unchanged keeps its vectors; the
        chunks of the others are embedded (in one pass, so batches fill up)."""
        import numpy as np

        start = time.perf_counter()
        stale = [
            (rel, digest, chunks)
            for rel, digest, chunks in files
            if rel not in self.files
            or self.files[rel][0] != digest
            or len(self.files[rel][1]) != len(chunks)
        ]
        texts = [embed_document(c) for _, _, chunks in stale for c in chunks]
        vectors = np.zeros((len(texts), self.embedder.dim), dtype=np.float32)
        for done in range(0, len(texts), _PROGRESS_EVERY):
            if progress is not None:
                progress(done, len(texts), time.perf_counter() - start)
            batch = texts[done : done + _PROGRESS_EVERY]
            vectors[done : done + len(batch)] = self.embedder.embed(batch)
        row = 0
        for rel, digest, chunks in stale:
            self.files[rel] = (digest, vectors[row : row + len(chunks)])
            row += len(chunks)
        wanted = {rel for rel, _, _ in files}
        for rel in [r for r in self.files if r not in wanted]:
            del self.files[rel]
        self._matrix = np.concatenate(
            [self.files[rel][1] for rel, _, _ in files] or [vectors], axis=0
        )
        seconds = time.perf_counter() - start
        if progress is not None:
            progress(len(texts), len(texts), seconds)
        return EmbedStats(len(texts), len(self._matrix), round(seconds, 3))

    def save(self) -> None:
        """Write the vectors (as float16) atomically into the folder (none: kept in memory)."""
        import numpy as np

        if self.path is None or self._matrix is None:
            return
        rels = list(self.files)
        starts = np.cumsum([0, *(len(self.files[r][1]) for r in rels)])
        files = {
            r: [self.files[r][0], int(s), len(self.files[r][1])]
            for r, s in zip(rels, starts[:-1], strict=True)
        }
        meta = json.dumps({**self._meta(), "files": files})
        matrix = [self.files[r][1] for r in rels]
        vectors = np.concatenate(matrix) if matrix else np.zeros((0, self.embedder.dim))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".embeddings.", suffix=".codur-tmp", dir=self.folder)
        with os.fdopen(fd, "wb") as out:
            np.savez(out, meta=np.array(meta), vectors=vectors.astype(np.float16))
        os.replace(tmp, self.path)

    def rank(self, query: str, limit: int) -> list[int]:
        """Chunk positions (the order `update` was given) by cosine similarity, best first."""
        import numpy as np

        if self._matrix is None or not len(self._matrix):
            return []
        scores = self._matrix @ self.embedder.embed([query])[0]
        k = min(limit, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        return [int(i) for i in best[np.argsort(-scores[best], kind="stable")]]
