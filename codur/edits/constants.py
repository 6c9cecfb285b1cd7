"""Constants in a block merged into a file (`codur.edits.merge`): an assignment to names
only (`LIMIT = 5`, a class attribute) is a constant when the definitions read its names,
bare or as an attribute (`self.POWER`); an example statement (`x = f(3)`) is not."""

from __future__ import annotations

import ast

from codur.edits.spans import DEFINITIONS


def names(node: ast.stmt) -> set[str]:
    """The names an assignment of names only assigns (`A = B = 1`, `A: int = 1`); else none."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return set()
    return {t.id for t in targets} if all(isinstance(t, ast.Name) for t in targets) else set()


def assigned_in(body: list[ast.stmt]) -> set[str]:
    """Every name a body binds at its own level: assignments, definitions, imports."""
    bound: set[str] = set()
    for node in body:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                bound |= {(a.asname or a.name).split(".")[0] for a in sub.names}
        if isinstance(node, DEFINITIONS):
            bound.add(node.name)
    return bound


def read(nodes: list[ast.stmt]) -> set[str]:
    """The names the definitions among `nodes` read: bare, or as an attribute
    (`self.POWER`)."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, DEFINITIONS):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    found.add(sub.id)
                elif isinstance(sub, ast.Attribute):
                    found.add(sub.attr)
    return found


def constant(node: ast.stmt, old: list[ast.stmt], read: set[str]) -> ast.stmt | None:
    """For an assignment the definitions read (`read`): the one statement of `old`
    assigning the same names, else `node` itself (a new constant); None: not a
    constant (an example call, a driver's statement)."""
    assigned = names(node)
    if not assigned or not assigned & read:
        return None
    same = [o for o in old if names(o) == assigned]
    return same[0] if len(same) == 1 else node
