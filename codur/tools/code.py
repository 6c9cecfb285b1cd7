"""Code search tools: rank the workspace's Python code for a question (search_codebase),
and follow its static call graph (get_callers, get_callees).

The index (`codur.search`) covers the Python files a walk of the workspace sees: what
.gitignore and `tools.ignore` skip is left out, Codur's own `.codur/` folder too, and
secrets files are never indexed (whatever `tools.allow_secrets` says). It is loaded from
`tools.code_index_dir` and brought up to date by file hash once a run, with
`index.progress` events while it builds (files parsed, then chunks embedded). In hybrid
mode with the `embed` extra installed, an embedding model's ranking is fused with BM25;
an `index.semantic` event says whether it is on, or why not.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from codur.search.calls import Call, Definition
from codur.search.embed import ModelUnavailable, OnnxEmbedder, why_unavailable
from codur.search.excerpt import excerpt
from codur.search.index import CodeIndex, Hit
from codur.search.vectors import SemanticIndex
from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.registry import TaskType, register_tool
from codur.tools.walk import walk
from codur.workspace import CODUR_DIR

MAX_RESULTS = 20
SNIPPET_LINES = 12
"""Lines of each hit's source shown to the model (read_file gives the rest)."""
MAX_CALLS = 60

_lock = threading.Lock()


def python_files(ctx: ToolContext) -> list[tuple[str, Path]]:
    """The workspace's Python files a search may index: (relative path, path)."""
    files = []
    for entry in walk(ctx, ctx.ws.root):
        if entry.is_dir or not entry.rel.endswith(".py") or entry.path.is_symlink():
            continue
        if entry.rel.split("/")[0] == CODUR_DIR or ctx.is_secret(Path(entry.rel)):
            continue
        files.append((entry.rel, entry.path))
    return files


def code_index(ctx: ToolContext) -> CodeIndex:
    """The run's index: loaded, updated (once a run) and saved on first use."""
    with _lock:
        if ctx.code_index is not None:
            return ctx.code_index
        where = ctx.config.code_index_dir
        folder = ctx.ws.resolve(where) if where else None
        index = CodeIndex.load(folder)
        index.semantic = semantic_index(ctx, folder)
        with ctx.bus.span("index", folder=where or "(memory)") as out:
            stats = index.update(
                python_files(ctx),
                lambda stage, done, total, seconds: ctx.bus.emit(
                    "index.progress", stage=stage, done=done, total=total, seconds=round(seconds, 2)
                ),
            )
            out.update(files=stats.files, parsed=stats.parsed, removed=stats.removed)
            if index.semantic is not None:
                out.update(embedded=stats.embedded, embed_s=stats.embed_seconds)
        if stats.parsed or stats.removed or stats.embedded or (folder and not folder.exists()):
            index.save()
        ctx.code_index = index
        return index


def semantic_index(ctx: ToolContext, folder: Path | None) -> SemanticIndex | None:
    """The embedding model's half of hybrid search, or None; either way one
    `index.semantic` event says which (and why not)."""
    config = ctx.config.embedding
    why = (
        f"tools.code_search is {ctx.config.code_search}"
        if ctx.config.code_search != "hybrid"
        else why_unavailable(config.model)
    )
    embedder = None
    if not why:
        try:
            embedder = OnnxEmbedder(
                config.model,
                threads=config.threads,
                max_tokens=config.max_tokens,
                batch_size=config.batch_size,
            )
        except ModelUnavailable as exc:  # e.g. a model file that fails its sha256 check
            why = str(exc)
    if embedder is None:
        ctx.bus.emit("index.semantic", model=config.model, off=why)
        return None
    ctx.bus.emit("index.semantic", model=config.model, off=None)
    return SemanticIndex.load(folder, embedder, config.max_tokens)


@dataclass(frozen=True)
class SearchResults:
    """The chunks found, best first."""

    query: str
    hits: list[Hit]

    def __str__(self) -> str:
        if not self.hits:
            return f"no code found for {self.query!r}; try other words or grep_files"
        return "\n\n".join(snippet(hit, query=self.query) for hit in self.hits)


def snippet(hit: Hit, rank: int | None = None, query: str = "", lines: int = SNIPPET_LINES) -> str:
    """One search result: `rank. path:start-end (kind name)` and `lines` lines of the
    chunk: its first, or its head and the lines that match `query` further down
    (`codur.search.excerpt`)."""
    c = hit.chunk
    return f"{rank or hit.rank}. {c.where} ({c.kind} {c.name})\n{excerpt(c, query, lines)}"


@register_tool(TaskType.SEARCH, TaskType.EXPLANATION)
def search_codebase(ctx: Ctx, query: str, n_results: int = 5) -> SearchResults:
    """Find the functions, classes and module heads most relevant to a question or some
    keywords; each result is `path:start-end` with the start of its source.

    Args:
        query: Words to look for, e.g. `config precedence loader` or a question.
        n_results: How many results to return (1-20).
    """
    if not query.strip():
        raise ToolError("query is empty")
    n = max(1, min(n_results, MAX_RESULTS))
    index = code_index(ctx)
    return SearchResults(query, index.search(query, n, ctx.config.code_search))


@dataclass(frozen=True)
class CallList:
    """Calls found in the call graph, with where the named functions are defined."""

    name: str
    direction: str
    calls: list[Call]
    defined: list[Definition]

    def __str__(self) -> str:
        where = ", ".join(f"{d.qualname} at {d.path}:{d.line}" for d in self.defined[:10])
        head = (
            f"{self.name} is defined as {where}" if where else f"{self.name}: no definition found"
        )
        if not self.calls:
            return f"{head}\nno {self.direction} found"
        lines = [f"{c.path}:{c.line}: {c.caller} -> {c.callee}" for c in self.calls[:MAX_CALLS]]
        if len(self.calls) > MAX_CALLS:
            lines.append(f"[... {len(self.calls) - MAX_CALLS} more]")
        note = (
            "(`*.name`: a call on an object whose type static analysis cannot tell; "
            "`f().name`: a method of what f returns)"
        )
        return "\n".join([head, f"{self.direction}:", *lines, note])


@register_tool(TaskType.SEARCH, TaskType.EXPLANATION)
def get_callers(ctx: Ctx, name: str) -> CallList:
    """Where a function, method or class is called: `path:line: caller -> callee`.

    Args:
        name: The function's name, optionally qualified (`load`, `Loader.load`, `pkg.mod.load`).
    """
    index = code_index(ctx)
    return CallList(name, "callers", index.callers(name), index.definitions(name))


@register_tool(TaskType.SEARCH, TaskType.EXPLANATION)
def get_callees(ctx: Ctx, name: str) -> CallList:
    """What a function, method or class calls: `path:line: caller -> callee`.

    Args:
        name: The function's name, optionally qualified (`load`, `Loader.load`, `pkg.mod.load`).
    """
    index = code_index(ctx)
    return CallList(name, "callees", index.callees(name), index.definitions(name))
