"""The code index: chunks, definitions and calls of every Python file given, kept in a
folder (the workspace's `.codur/index/`) and updated by file hash, so only new and changed
files are parsed again (and, with an embedding model, embedded again). BM25 and the name
ranking are built in memory when the index is first searched."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from codur.search.callee import callee_matches, matches, uncertain
from codur.search.calls import Call, Definition, python_calls
from codur.search.chunks import CHUNKER, Chunk, python_chunks
from codur.search.rank import BM25Ranker, Coverage, NameRanker, Ranker, chunk_document, fuse
from codur.search.vectors import SemanticIndex
from codur.workspace import open_regular

FORMAT = 3
"""The index file's format; another number means: build it again."""
INDEX_FILE = "code_index.json"
MAX_FILE_BYTES = 1_000_000
"""Larger Python files (generated code, data) are not indexed."""

Stage = Literal["parse", "embed"]
Progress = Callable[[Stage, int, int, float], None]
"""Called while the index updates with (stage, done, in all, seconds since the stage
began): files checked and parsed, then chunks embedded (with an embedding model); each
stage's last call has done == in all and its whole time."""
Mode = Literal["bm25", "hybrid"]


@dataclass
class FileEntry:
    sha256: str
    size: int
    mtime_ns: int
    chunks: list[Chunk]
    defs: list[Definition]
    calls: list[Call]

    def to_json(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "chunks": [c.to_json() for c in self.chunks],
            "defs": [d.to_json() for d in self.defs],
            "calls": [c.to_json() for c in self.calls],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileEntry:
        return cls(
            data["sha256"],
            data["size"],
            data["mtime_ns"],
            [Chunk.from_json(c) for c in data["chunks"]],
            [Definition.from_json(d) for d in data["defs"]],
            [Call(**c) for c in data["calls"]],
        )


@dataclass(frozen=True)
class UpdateStats:
    """What an update did: files seen, parsed again (new or changed), dropped, seconds in
    all; chunks embedded and the seconds that took (no embedding model: 0)."""

    files: int
    parsed: int
    removed: int
    seconds: float
    embedded: int = 0
    embed_seconds: float = 0.0


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    rank: int
    position: int
    """The chunk's position in the index's `chunks`."""


@dataclass
class CodeIndex:
    """Chunks, definitions and calls by file; `search`, `callers` and `callees` on top."""

    folder: Path | None
    files: dict[str, FileEntry] = field(default_factory=dict)
    semantic: SemanticIndex | None = None
    """An embedding model's vectors of the chunks; in hybrid mode its ranking is fused
    with BM25 (without one, the name ranking is)."""
    _chunks: list[Chunk] | None = field(default=None, repr=False)
    _rankers: dict[str, Ranker] = field(default_factory=dict, repr=False)
    _coverage: Coverage | None = field(default=None, repr=False)

    @classmethod
    def load(cls, folder: Path | None) -> CodeIndex:
        """The index saved in `folder` (empty if none, unreadable or of another format)."""
        index = cls(folder)
        path = folder / INDEX_FILE if folder else None
        if path is None or not path.is_file():
            return index
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if (data.get("format"), data.get("chunker")) == (FORMAT, CHUNKER):
                index.files = {k: FileEntry.from_json(v) for k, v in data["files"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            index.files = {}  # a damaged index is rebuilt
        return index

    def save(self) -> None:
        """Write the index atomically into its folder (none: kept in memory only)."""
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        ignore = self.folder / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
        files = {k: v.to_json() for k, v in self.files.items()}
        data = {"format": FORMAT, "chunker": CHUNKER, "files": files}
        fd, tmp = tempfile.mkstemp(prefix=".index.", suffix=".codur-tmp", dir=self.folder)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, self.folder / INDEX_FILE)
        if self.semantic is not None:
            self.semantic.save()

    def update(
        self, files: Iterable[tuple[str, Path]], progress: Progress | None = None
    ) -> UpdateStats:
        """Bring the index up to date with `files` (workspace-relative path, real path):
        a file whose size and mtime are unchanged is kept; else it is hashed, and parsed
        again only if its hash changed. Files no longer given are dropped. Then the
        semantic index, if any, embeds the chunks of the files it has no vectors for."""
        start = time.perf_counter()
        listed = list(files)
        seen: set[str] = set()
        parsed = 0
        for done, (rel, path) in enumerate(listed, 1):
            if progress is not None and (done % 200 == 0 or done == len(listed)):
                progress("parse", done, len(listed), time.perf_counter() - start)
            try:
                stat = path.stat()
            except OSError:
                continue
            if stat.st_size > MAX_FILE_BYTES:
                continue
            seen.add(rel)
            old = self.files.get(rel)
            if old and (old.size, old.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                continue
            try:  # a regular file only: a FIFO left in the workspace would hang the read
                with open_regular(path) as fh:
                    data = fh.read()
            except OSError:
                seen.discard(rel)
                continue
            digest = hashlib.sha256(data).hexdigest()
            if old and old.sha256 == digest:
                old.size, old.mtime_ns = stat.st_size, stat.st_mtime_ns
                continue
            source = data.decode("utf-8", "replace")
            defs, calls = python_calls(rel, source)
            chunks = python_chunks(rel, source)
            self.files[rel] = FileEntry(digest, stat.st_size, stat.st_mtime_ns, chunks, defs, calls)
            parsed += 1
        removed = [rel for rel in self.files if rel not in seen]
        for rel in removed:
            del self.files[rel]
        if parsed or removed:
            self._chunks, self._rankers, self._coverage = None, {}, None
        embedded = None
        if self.semantic is not None:
            in_order = [(rel, self.files[rel]) for rel in sorted(self.files)]
            embedded = self.semantic.update(
                [(rel, entry.sha256, entry.chunks) for rel, entry in in_order],
                None if progress is None else partial(progress, "embed"),
            )
        return UpdateStats(
            len(seen),
            parsed,
            len(removed),
            round(time.perf_counter() - start, 3),
            embedded.embedded if embedded else 0,
            embedded.seconds if embedded else 0.0,
        )

    @property
    def chunks(self) -> list[Chunk]:
        if self._chunks is None:
            self._chunks = [c for rel in sorted(self.files) for c in self.files[rel].chunks]
        return self._chunks

    def _ranker(self, name: str) -> Ranker:
        if name not in self._rankers:
            if name == "bm25":
                self._rankers[name] = BM25Ranker([chunk_document(c) for c in self.chunks])
            else:
                self._rankers[name] = NameRanker(self.chunks)
        return self._rankers[name]

    def search(self, query: str, n_results: int = 5, mode: Mode = "hybrid") -> list[Hit]:
        """The `n_results` best chunks for `query`: BM25 alone, or (hybrid) BM25 fused by
        reciprocal rank with the embedding model's ranking (the name ranking without one)."""
        depth = max(50, n_results * 5)
        rankings = [self._ranker("bm25").rank(query, depth)]
        if mode == "hybrid":
            other = self.semantic or self._ranker("names")
            rankings.append(other.rank(query, depth))
        best = fuse(rankings)[:n_results]
        return [Hit(self.chunks[i], rank, i) for rank, i in enumerate(best, 1)]

    def coverage(self, query: str, hits: list[Hit]) -> tuple[float, bool]:
        """How well `hits` answer `query`: the IDF-weighted share of its words they contain
        (0 to 1; `codur.search.rank.Coverage`), and whether they are every chunk that holds
        any of its words (a search for it can find nothing more)."""
        if self._coverage is None:
            self._coverage = Coverage([chunk_document(c) for c in self.chunks])
        chosen = {h.position for h in hits}
        return self._coverage.share(query, chosen), self._coverage.holding(query) <= chosen

    def definitions(self, name: str) -> list[Definition]:
        return [d for e in self.files.values() for d in e.defs if matches(d.qualname, name)]

    def callers(self, name: str) -> list[Call]:
        """Calls whose target is `name` (by qualified name or its tail); resolved calls
        first, then calls of a method of that name on an object of unknown type."""
        found = [c for e in self.files.values() for c in e.calls if callee_matches(c.callee, name)]
        return sorted(found, key=lambda c: (uncertain(c.callee), c.path, c.line))

    def callees(self, name: str) -> list[Call]:
        """Calls made inside the functions, methods or classes named `name`."""
        owners = {d.qualname for d in self.definitions(name)}
        found = [
            c
            for e in self.files.values()
            for c in e.calls
            if any(c.caller == o or c.caller.startswith(o + ".") for o in owners)
        ]
        return sorted(found, key=lambda c: (c.path, c.line))
