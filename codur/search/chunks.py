"""Cutting a Python file into chunks a search can return: the module's top-level
statements (the head: docstring, imports, constants before the first definition; and each
run of statements between or after definitions, such as a table of constants after a
class; comments go with the statements after them), each top-level function, each class
head (its lines up to the first method) and each method. Every top-level line of the file
but a blank one is in a chunk: before CHUNKER 2, statements
after the first definition were in none, so a search could not find rich's box styles
(`ROUNDED = Box(...)`, 290 lines after the class) or tabulate's table formats."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

ChunkKind = Literal["module", "function", "class", "method"]

CHUNKER = 2
"""How files are cut into chunks (which spans, what text each holds): saved with the
index and the embedding cache, whose rows are chunks; change it when the cutting
changes, and both are built again."""

MAX_CHUNK_CHARS = 4000
"""Characters of a chunk's source kept for ranking and display (its range stays whole)."""


@dataclass(frozen=True)
class Chunk:
    """A span of one file: `path:start-end` (1-based, inclusive)."""

    path: str
    start: int
    end: int
    kind: ChunkKind
    name: str
    """Qualified within the file: `func`, `Class`, `Class.method`; the module's dotted
    name for a run of top-level statements."""
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.start}-{self.end}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chunk:
        return cls(**data)


def module_name(path: str) -> str:
    """`pkg/sub/mod.py` -> `pkg.sub.mod`; `pkg/__init__.py` -> `pkg`. In the `src`
    layout the package is imported from inside `src/`: `src/pkg/mod.py` -> `pkg.mod`."""
    parts = path.removesuffix(".py").split("/")
    parts = parts[1:] if parts[0] == "src" and parts[1:2] not in ([], ["__init__"]) else parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _start(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])  # type: ignore[attr-defined]


Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def python_chunks(path: str, source: str) -> list[Chunk]:
    """The chunks of one Python file; a file that does not parse is one module chunk."""
    lines = source.splitlines()

    def span(start: int, end: int) -> str:
        return "\n".join(lines[start - 1 : end])[:MAX_CHUNK_CHARS]

    if not lines:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [Chunk(path, 1, len(lines), "module", module_name(path), span(1, len(lines)))]
    chunks: list[Chunk] = []
    run: list[ast.stmt] = []
    after = 1  # the first line after the last definition
    for node in [*tree.body, None]:
        if node is not None and not isinstance(node, Def):
            run.append(node)
            continue
        until = _start(node) - 1 if node is not None else len(lines)
        for start, end in _pieces(run, lines, after, until):
            chunks.append(Chunk(path, start, end, "module", module_name(path), span(start, end)))
        run = []
        if node is not None:
            chunks += _definition(path, node, span)
            after = (node.end_lineno or node.lineno) + 1
    return [c for c in chunks if c.text.strip()]


def _pieces(run: list[ast.stmt], lines: list[str], after: int, until: int) -> list[tuple[int, int]]:
    """The spans that hold lines `after`..`until` (between two definitions, or before the
    first or after the last): the run of top-level statements there, cut between
    statements so that each piece holds at most MAX_CHUNK_CHARS of source where it can (a
    statement longer than that is a piece of its own; statements sharing a line stay
    together). Comments go with the statement after them; a span of comments alone is one
    piece. Blank lines at a piece's ends are left out."""

    def size(start: int, end: int) -> int:
        return sum(len(line) + 1 for line in lines[start - 1 : end])

    pieces: list[tuple[int, int]] = []
    for node in run:
        end = node.end_lineno or node.lineno
        if pieces and (
            _start(node) <= pieces[-1][1] or size(pieces[-1][0], end) <= MAX_CHUNK_CHARS
        ):
            pieces[-1] = (pieces[-1][0], max(end, pieces[-1][1]))
        else:
            pieces.append((pieces[-1][1] + 1 if pieces else after, end))
    if pieces:
        pieces[-1] = (pieces[-1][0], until)
    elif until >= after:
        pieces = [(after, until)]
    return [trimmed for start, end in pieces if (trimmed := _trim(lines, start, end))]


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    """`start`..`end` without the blank lines at its ends (None: all blank)."""
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    return (start, end) if start <= end else None


def _definition(path: str, node: Def, span: Callable[[int, int], str]) -> list[Chunk]:
    """A function's chunk; or a class head's and one a method."""
    start, end = _start(node), node.end_lineno or node.lineno
    if not isinstance(node, ast.ClassDef):
        return [Chunk(path, start, end, "function", node.name, span(start, end))]
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    class_end = (_start(methods[0]) - 1) if methods else end
    chunks = [Chunk(path, start, class_end, "class", node.name, span(start, class_end))]
    for method in methods:
        m_start, m_end = _start(method), method.end_lineno or method.lineno
        name = f"{node.name}.{method.name}"
        chunks.append(Chunk(path, m_start, m_end, "method", name, span(m_start, m_end)))
    return chunks
