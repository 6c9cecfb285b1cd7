"""The mutation operators by name: each registers itself here with `@operator(name)`
(codur/repair/operators.py, operators_scope.py); `codur.repair.mutations` runs them."""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable, Iterator

from codur.repair.source import Mutation, Source

Operator = Callable[[ast.Module, Source], Iterator[Mutation]]
OPERATORS: dict[str, Operator] = {}


def operator(name: str) -> Callable[[Operator], Operator]:
    """Register a mutation operator under `name`; its edits are stamped with that name."""

    def register(fn: Operator) -> Operator:
        @functools.wraps(fn)
        def named(tree: ast.Module, src: Source) -> Iterator[Mutation]:
            for edit in fn(tree, src):
                yield dataclasses.replace(edit, operator=name)

        OPERATORS[name] = named
        return named

    return register
