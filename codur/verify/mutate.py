"""Type-aware input mutation (as EvalPlus grows HumanEval's tests): the neighbours of an
example's argument values that a docstring's few examples leave out. An empty list, a
one-element or odd-length one, a string reversed or cut short, a number one further.

The mutants may lie outside what a function accepts; they are used to compare candidates
with each other (codur/verify/probe.py), never as checks with expected values.
"""

from __future__ import annotations

from collections.abc import Iterator

MAX_INT = 10**6
"""Integer mutants stay within this magnitude (a factorial of a large n never returns)."""


def mutants(value: object) -> list[object]:
    """Neighbours of `value`, most telling first, without `value` itself or duplicates."""
    found = {repr(value): value}
    for mutant in _neighbours(value):
        found.setdefault(repr(mutant), mutant)
    return list(found.values())[1:]


def _neighbours(value: object) -> Iterator[object]:
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (x for x in (value + 1, value - 1, 0, 1, -value) if abs(x) <= MAX_INT)
    elif isinstance(value, float):
        yield from (value + 0.5, 0.0, -value, value * 2)
    elif isinstance(value, str):
        yield from ("", value[:1], value[:-1], value[::-1], value + value[:1], value.swapcase())
    elif isinstance(value, list | tuple):
        kind = type(value)
        yield from (kind(), kind(value[:1]), kind(value[:-1]), kind(value[::-1]))
        yield kind([*value, *value[:1]])
        if value:
            yield from (kind([first, *value[1:]]) for first in mutants(value[0])[:3])
    elif isinstance(value, dict):
        yield {}
        if value:
            first = next(iter(value))
            yield {k: v for k, v in value.items() if k != first}


def argument_mutants(args: tuple[object, ...]) -> Iterator[tuple[object, ...]]:
    """Argument tuples that differ from `args` in one argument each."""
    for i, value in enumerate(args):
        for mutant in mutants(value):
            yield (*args[:i], mutant, *args[i + 1 :])
