"""Where a Python module's definitions and statements are: line spans from the stdlib ast.

`definitions(source)` maps qualified names (`f`, `Class`, `Class.method`,
`Outer.Inner.method`) to the lines they occupy, decorators included;
`module_statements(source)` gives the top-level executable statements (not definitions,
imports or the module docstring): a program's driver, constants, `if __name__` block.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import NamedTuple

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
Import = ast.Import | ast.ImportFrom
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Span(NamedTuple):
    """Lines `start` to `end` of a source, 1-based and inclusive."""

    start: int
    end: int


def span(node: ast.stmt) -> Span:
    """The lines of a statement; a definition's include its decorators."""
    decorators = getattr(node, "decorator_list", [])
    return Span(min([node.lineno, *(d.lineno for d in decorators)]), node.end_lineno or node.lineno)


def parse(source: str) -> ast.Module:
    """`ast.parse`, with a null byte reported as the SyntaxError it is."""
    try:
        return ast.parse(source)
    except ValueError as exc:  # Python < 3.12: "source code string cannot contain null bytes"
        raise SyntaxError(str(exc)) from exc


@dataclass(frozen=True)
class Layout:
    """A module's top level in source order, by kind."""

    body: list[ast.stmt]
    docstring: ast.Expr | None
    imports: list[Import]
    definitions: list[Definition]
    statements: list[ast.stmt]
    """Everything else: the executable statements."""


def docstring(body: list[ast.stmt]) -> ast.Expr | None:
    """The docstring statement of a module or class body, if it has one."""
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first if isinstance(first.value.value, str) else None
    return None


def layout(source: str) -> Layout:
    """The top level of `source` (SyntaxError if it does not parse)."""
    body = parse(source).body
    doc = docstring(body)
    rest = body[1:] if doc else body
    return Layout(
        body=body,
        docstring=doc,
        imports=[n for n in rest if isinstance(n, (ast.Import, ast.ImportFrom))],
        definitions=[n for n in rest if isinstance(n, DEFINITIONS)],
        statements=[
            n for n in rest if not isinstance(n, (*DEFINITIONS, ast.Import, ast.ImportFrom))
        ],
    )


def members(cls: ast.ClassDef) -> dict[str, Definition]:
    """A class's own methods and nested classes by name (the last of a repeated name)."""
    return {n.name: n for n in cls.body if isinstance(n, DEFINITIONS)}


def qualified(nodes: list[ast.stmt], prefix: str = "") -> dict[str, Definition]:
    """Definitions among `nodes` and, through class bodies, their members, by qualified name."""
    found: dict[str, Definition] = {}
    for node in nodes:
        if isinstance(node, DEFINITIONS):
            found[prefix + node.name] = node
            if isinstance(node, ast.ClassDef):
                found.update(qualified(node.body, f"{prefix}{node.name}."))
    return found


def definitions(source: str) -> dict[str, Span]:
    """Qualified name -> lines of every top-level function and class and of the methods and
    classes inside classes (not functions nested in functions: they are part of theirs).
    Raises SyntaxError if `source` does not parse."""
    return {name: span(node) for name, node in qualified(parse(source).body).items()}


def module_statements(source: str) -> list[Span]:
    """Lines of each top-level executable statement, in order (SyntaxError if `source`
    does not parse)."""
    return [span(node) for node in layout(source).statements]
