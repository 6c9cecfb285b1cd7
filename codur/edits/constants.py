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
    """Every name a body binds at its own level: assignments, definitions, imports (not
    the locals of its functions)."""
    bound: set[str] = set()
    for node in body:
        if isinstance(node, DEFINITIONS):
            bound.add(node.name)
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                bound |= {(a.asname or a.name).split(".")[0] for a in sub.names}
    return bound


def read(nodes: list[ast.stmt]) -> set[str]:
    """The names the definitions among `nodes` read from outside themselves: bare names
    that are not their parameters or locals, and attributes (`self.POWER`)."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            found |= read(node.body)
        elif isinstance(node, DEFINITIONS):
            loads, local = set(), set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name):
                    (loads if isinstance(sub.ctx, ast.Load) else local).add(sub.id)
                elif isinstance(sub, ast.arg):
                    local.add(sub.arg)
                elif isinstance(sub, ast.Attribute):
                    loads.add(sub.attr)
            found |= loads - local
    return found


def heading(statements: list[ast.stmt], definitions: list[ast.stmt]) -> list[ast.stmt]:
    """The statements above a module's last definition (its constants; what follows
    them all is its driver)."""
    last = max((d.lineno for d in definitions), default=0)
    return [s for s in statements if s.lineno < last]


def constant(node: ast.stmt, old: list[ast.stmt], read: set[str]) -> ast.stmt | None:
    """For an assignment the definitions read (`read`): the one statement of `old`
    assigning the same names, else `node` itself (a new constant); None: not a
    constant (an example call, a driver's statement)."""
    assigned = names(node)
    if not assigned or not assigned & read:
        return None
    same = [o for o in old if names(o) == assigned]
    return same[0] if len(same) == 1 else node


def after(node: ast.stmt, old: list[ast.stmt]) -> int | None:
    """The last line of the last statement of `old` assigning a name `node` reads (a new
    constant goes below it), or None."""
    reads = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    ends = [o.end_lineno or o.lineno for o in old if assigned_in([o]) & reads]
    return max(ends, default=None)
