"""Cutting a Python file into chunks a search can return: the module head (docstring,
imports, top-level statements before the first definition), each top-level function, each
class head (its lines up to the first method) and each method."""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Any, Literal

ChunkKind = Literal["module", "function", "class", "method"]

CHUNKER = 1
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
    name for a module head."""
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
    defs = [n for n in tree.body if isinstance(n, Def)]
    chunks: list[Chunk] = []
    head_end = (_start(defs[0]) - 1) if defs else len(lines)
    if head_end >= 1 and span(1, head_end).strip():
        chunks.append(Chunk(path, 1, head_end, "module", module_name(path), span(1, head_end)))
    for node in defs:
        start, end = _start(node), node.end_lineno or node.lineno
        if not isinstance(node, ast.ClassDef):
            chunks.append(Chunk(path, start, end, "function", node.name, span(start, end)))
            continue
        methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        class_end = (_start(methods[0]) - 1) if methods else end
        chunks.append(Chunk(path, start, class_end, "class", node.name, span(start, class_end)))
        for method in methods:
            m_start, m_end = _start(method), method.end_lineno or method.lineno
            name = f"{node.name}.{method.name}"
            chunks.append(Chunk(path, m_start, m_end, "method", name, span(m_start, m_end)))
    return chunks
