"""Retrieval for a question, part by part: the code index's best chunks for each part
(BM25, or hybrid), the call graph's callers of the functions found, and how much of the
part those chunks cover (`CodeIndex.coverage`). Every part gets its own share of the
evidence, so the answer sees code for each part; the coverage decides whether one answer
call is enough or the research loop runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codur.search.callee import uncertain
from codur.search.chunks import module_name
from codur.search.index import CodeIndex, Hit
from codur.tools.code import snippet
from codur.tools.context import ToolContext
from codur.tools.walk import walk
from codur.workspace import CODUR_DIR

CALLED_FROM = 2
"""A part's best hits whose callers are listed (functions and methods only)."""
MAX_CALLERS = 3
"""Callers listed per function."""


@dataclass(frozen=True)
class PartEvidence:
    part: str
    hits: list[Hit]
    coverage: float
    """The IDF-weighted share of the part's words its hits contain (0 to 1)."""
    exhaustive: bool
    """The hits are every chunk of the index holding any of the part's words."""
    calls: list[str]
    """`path:line: caller -> callee` for the callers of its best functions."""

    def strong(self, min_coverage: float) -> bool:
        """Enough to answer from: some chunk found, and they cover `min_coverage` of the
        part or are all the index has on its words."""
        return bool(self.hits) and (self.coverage >= min_coverage or self.exhaustive)

    @property
    def files(self) -> set[str]:
        return {h.chunk.path for h in self.hits} | {c.split(":", 1)[0] for c in self.calls}


def _callers(index: CodeIndex, hits: list[Hit]) -> list[str]:
    lines: list[str] = []
    for hit in [h for h in hits if h.chunk.kind in ("function", "method")][:CALLED_FROM]:
        c = hit.chunk
        name = f"{module_name(c.path)}.{c.name}"
        found = [
            call
            for call in index.callers(name)
            if not uncertain(call.callee)
            and not (call.path == c.path and c.start <= call.line <= c.end)
        ]
        lines += [f"{k.path}:{k.line}: {k.caller} -> {k.callee}" for k in found[:MAX_CALLERS]]
    return list(dict.fromkeys(lines))


def retrieve_parts(
    index: CodeIndex, parts: list[str], n_results: int, mode: str
) -> list[PartEvidence]:
    """Each part's `n_results` best chunks, the callers of its best functions and its
    coverage."""
    found = []
    for part in parts:
        hits = index.search(part, n_results, mode)  # type: ignore[arg-type]
        share, exhaustive = index.coverage(part, hits)
        found.append(PartEvidence(part, hits, share, exhaustive, _callers(index, hits)))
    return found


def render(evidence: list[PartEvidence], limit: int) -> str:
    """The evidence as markdown, each part in its own section of at most `limit` /
    (number of parts) characters: its chunks in rank order (at least the first, cut to
    fit; one shown for an earlier part is referred to, not repeated), then its callers."""
    share = max(1, limit // max(1, len(evidence)))
    shown: dict[str, int] = {}
    sections = []
    for n, item in enumerate(evidence, 1):
        head = (
            "### Code search for the question"
            if len(evidence) == 1
            else f"### Code search for part {n}: {item.part}"
        )
        calls = ("\nCalled from:\n" + "\n".join(f"- {c}" for c in item.calls)) if item.calls else ""
        body: list[str] = []
        used = len(head) + len(calls)
        for rank, hit in enumerate(item.hits, 1):
            where = hit.chunk.where
            text = (
                f"{rank}. {where} (shown under part {shown[where]})"
                if where in shown
                else snippet(hit, rank)
            )
            if body and used + len(text) + 2 > share:
                break
            body.append(text if body else text[: max(0, share - used)])
            used += len(text) + 2
            shown.setdefault(where, n)
        if not body:
            body = ["(no code found for this part)"]
        sections.append(head + "\n" + "\n\n".join(body) + calls)
    return "\n\n".join(sections)


def whole_project(ctx: ToolContext, limit: int) -> tuple[str, list[str]] | None:
    """Every file of the folder (what the tools see: not ignored, no secret, no binary),
    whole, as the evidence, and their paths, when all of them fit in `limit` characters
    (a project of a few functions: a search could find nothing the model would not see
    anyway); None for a larger one, or one with no Python file."""
    shown: list[str] = []
    paths: list[str] = []
    size = 0
    for entry in walk(ctx, ctx.ws.root):
        rel = entry.rel
        if entry.is_dir or entry.path.is_symlink() or rel.split("/")[0] == CODUR_DIR:
            continue
        if ctx.is_secret(Path(rel)):
            continue
        try:
            with open(entry.path, "rb") as fh:
                text = fh.read(limit + 1).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # not text: nothing a code question reads
        if "\0" in text:
            continue
        numbered = "\n".join(f"{n:>4} {line}" for n, line in enumerate(text.splitlines(), 1))
        size += len(rel) + len(numbered)
        if size > limit:
            return None
        shown.append(f"{rel}\n{numbered}")
        paths.append(rel)
    if not any(p.endswith(".py") for p in paths):
        return None
    return "### All of the project's files (it is small)\n" + "\n\n".join(shown), paths
