"""Python tools that read code as syntax: check it, outline a module, and find or replace
a function or class by name (`name`, or qualified: `Class.method`).
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

from codur.tools.context import Ctx, ToolError
from codur.tools.fs import read_text
from codur.tools.registry import TaskType, register_tool

Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


@dataclass(frozen=True)
class SyntaxCheck:
    valid: bool
    message: str = ""
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.valid:
            return "Syntax OK"
        return f"SyntaxError at line {self.line}, column {self.column}: {self.message}"


def _check(source: str, filename: str) -> SyntaxCheck:
    try:
        ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return SyntaxCheck(False, exc.msg, exc.lineno, exc.offset)
    except ValueError as exc:  # source holding NUL bytes
        return SyntaxCheck(False, str(exc))
    return SyntaxCheck(True)


@register_tool(TaskType.CODE_VALIDATION)
def validate_python_syntax(
    ctx: Ctx, path: str | None = None, code: str | None = None
) -> SyntaxCheck:
    """Check that a Python file (or a piece of code) parses, without running it.

    Args:
        path: The .py file to check, relative to the workspace root.
        code: Python source to check instead of a file.
    """
    if (path is None) == (code is None):
        raise ToolError("give exactly one of path or code")
    if path is not None:
        return _check(read_text(ctx, path)[1], path)
    return _check(code or "", "<code>")


def _parse(ctx: Ctx, path: str) -> tuple[str, ast.Module]:
    text = read_text(ctx, path)[1]
    try:
        return text, ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise ToolError(f"{path} does not parse: {_check(text, path)}") from exc


def _defs(body: list[ast.stmt], prefix: str = "", depth: int = 0) -> Iterator[tuple[str, Def, int]]:
    for node in body:
        if isinstance(node, Def):
            qualname = f"{prefix}{node.name}"
            yield qualname, node, depth
            yield from _defs(node.body, f"{qualname}.", depth + 1)


def _start(node: Def) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def _signature(node: Def) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in [*node.bases, *node.keywords])
        return f"class {node.name}" + (f"({bases})" if bases else "")
    kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{kind} {node.name}({ast.unparse(node.args)}){returns}"


@register_tool(TaskType.EXPLANATION)
def python_outline(ctx: Ctx, path: str) -> str:
    """Outline a Python module: its classes, functions and methods with line numbers.

    Args:
        path: The .py file, relative to the workspace root.
    """
    _, module = _parse(ctx, path)
    lines = [
        f"{'  ' * depth}L{_start(node)}-{node.end_lineno} {_signature(node)}"
        for _, node, depth in _defs(module.body)
    ]
    return "\n".join(lines) if lines else f"{path}: no classes or functions"


def _find(ctx: Ctx, path: str, name: str) -> tuple[str, Def]:
    text, module = _parse(ctx, path)
    found = [(q, n) for q, n, _ in _defs(module.body) if q == name or q.endswith(f".{name}")]
    exact = [(q, n) for q, n in found if q == name]
    if exact:
        return text, exact[0][1]
    if len(found) == 1:
        return text, found[0][1]
    if found:
        names = ", ".join(q for q, _ in found)
        raise ToolError(f"{name!r} is ambiguous in {path}: qualify it ({names})")
    known = ", ".join(q for q, _, _ in _defs(module.body)) or "none"
    raise ToolError(f"no function or class {name!r} in {path} (defined: {known})")


@register_tool(TaskType.EXPLANATION)
def find_python_symbol(ctx: Ctx, path: str, name: str) -> str:
    """Show the source of one function or class (decorators included) with its lines.

    Args:
        path: The .py file, relative to the workspace root.
        name: Function or class name, or a qualified name such as `Parser.parse`.
    """
    text, node = _find(ctx, path, name)
    start = _start(node)
    body = "".join(text.splitlines(keepends=True)[start - 1 : node.end_lineno])
    return f"# {path} lines {start}-{node.end_lineno}\n{body}"


@register_tool(TaskType.CODE_EDIT, writes=True)
def replace_python_symbol(ctx: Ctx, path: str, name: str, new_source: str) -> str:
    """Replace one function or class (decorators included) with new source code.

    The new code is indented to where the old one stood; the file must still parse.

    Args:
        path: The .py file, relative to the workspace root.
        name: Function or class name, or a qualified name such as `Parser.parse`.
        new_source: The complete new definition.
    """
    text, node = _find(ctx, path, name)
    lines = text.splitlines(keepends=True)
    start, end = _start(node), node.end_lineno or node.lineno
    indent = lines[start - 1][: len(lines[start - 1]) - len(lines[start - 1].lstrip())]
    code = textwrap.indent(textwrap.dedent(new_source.replace("\r\n", "\n")).strip("\n"), indent)
    new_text = "".join([*lines[: start - 1], code + "\n", *lines[end:]])
    check = _check(new_text, path)
    if not check.valid:
        raise ToolError(f"not replaced: the result would not parse ({check}); file unchanged")
    target = ctx.path(path)
    ctx.write(target, new_text)
    return f"Replaced {name} (was lines {start}-{end}) in {ctx.rel(target)}"
