"""Graph nodes: each a function `(state, runtime) -> partial update`. None prints.

A node whose work ends in a choice of where to go returns `Command[Literal[...]]` (the
update and the destination together; the choice itself, where it is more than a line, is a
pure function such as `codur.graph.decide.decide`); every other edge is fixed in build.py.
"""

from __future__ import annotations

from codur.trace import traced  # node.start / node.end; below the graphs, the ask graph's too

__all__ = ["traced"]
