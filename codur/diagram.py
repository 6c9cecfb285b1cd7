"""Drawing the compiled agent graph for `codur graph`: Mermaid text, ASCII art, a PNG.

Mermaid needs nothing more than LangGraph. ASCII art needs the `grandalf` package
(`pip install 'codur[graph]'`). A PNG is drawn offline with Graphviz through `pygraphviz`
(`pip install 'codur[graph-png]'`, which needs Graphviz's C library to build); LangGraph's
other PNG methods send the graph to mermaid.ink or drive a headless browser, so Codur
does not use them. A missing package is a `MissingExtra` (exit code 7) naming what to
install.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from codur.errors import MissingExtra, UsageError

if TYPE_CHECKING:
    from langchain_core.runnables.graph import Graph

Format = Literal["mermaid", "ascii"]
Mode = Literal["run", "ask"]


def _graph(mode: Mode = "run") -> Graph:
    if mode == "ask":
        from codur.ask.build import build_ask_graph

        return build_ask_graph().get_graph()
    from codur.graph.build import build_graph

    graph = build_graph().get_graph(xray=True)  # execute's loop, explain's ask graph inside
    for node in [n for n in graph.nodes if n.startswith(ERROR_HANDLERS)]:
        graph.remove_node(graph.nodes[node])
    return graph


ERROR_HANDLERS = ("__default_error_handler__", "__error_handler__")
"""LangGraph draws an error handler as a node without edges (any node that raises reaches
it: graph/nodes/node_error.py); the drawings leave it out (grandalf lays out only one
connected graph)."""


def _need(module: str, feature: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise MissingExtra(f"{feature} needs the {module} package: pip install 'codur[{extra}]'")


def draw(fmt: Format, mode: Mode = "run") -> str:
    """The graph (of tasks, or of `codur ask`) as Mermaid source or ASCII art."""
    if fmt == "ascii":
        _need("grandalf", "codur graph --ascii", "graph")
        return _graph(mode).draw_ascii()
    return _graph(mode).draw_mermaid()


def write_png(path: Path, mode: Mode = "run") -> Path:
    """Draw the graph into the PNG file `path` with Graphviz (offline); the path written."""
    if not path.parent.is_dir():
        raise UsageError(f"--png {path}: {path.parent} is not a folder")
    if path.is_symlink():
        raise UsageError(f"--png {path}: a link; Codur does not write through it")
    if path.exists() and not _is_png(path):
        raise UsageError(
            f"--png {path}: the file exists and is not a PNG image; it is not "
            "overwritten (name a new file)"
        )
    _need("pygraphviz", "codur graph --png", "graph-png")
    _graph(mode).draw_png(str(path))
    return path


PNG = b"\x89PNG\r\n\x1a\n"


def _is_png(path: Path) -> bool:
    """Whether `path` is a regular file holding a PNG image (an earlier drawing) or
    nothing yet (`mktemp --suffix .png`)."""
    if not path.is_file():
        return False
    with path.open("rb") as fh:
        return fh.read(len(PNG)) in (PNG, b"")
