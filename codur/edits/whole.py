"""Whole file or fragment: the AST test that tells a complete new file from a block of
changed definitions (the rule is spelled out in `codur.edits.merge`)."""

from __future__ import annotations

import ast
import re
import textwrap

from codur.edits.base import EditError
from codur.edits.spans import DEFINITIONS, Layout, docstring, layout, qualified

_DEF_LINE = re.compile(r"^(?:async[ \t]+def|def|class)[ \t]+(\w+)", re.MULTILINE)


def parse_block(block: str) -> tuple[str, Layout] | None:
    """The block and its layout; an indented block (a method sent alone) is dedented."""
    for text in dict.fromkeys((block, textwrap.dedent(block))):
        try:
            return text, layout(text)
        except SyntaxError:
            continue
    return None


def _kind(node: ast.stmt) -> str:
    test = node.test if isinstance(node, ast.If) else None
    main = isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
    return "if __name__" if main and test.left.id == "__name__" else type(node).__name__


def _kinds(body: list[ast.stmt]) -> set[str]:
    """The kinds of statement in a module or class body, definitions and imports aside."""
    doc = docstring(body)
    skip = (*DEFINITIONS, ast.Import, ast.ImportFrom)
    return {"docstring" if n is doc else _kind(n) for n in body if not isinstance(n, skip)}


def complete(old: list[ast.stmt], new: list[ast.stmt]) -> bool:
    """`new` (a module or class body) misses nothing `old` has: no definition (by
    qualified name), no kind of statement, not the docstring."""
    return set(qualified(old)) <= set(qualified(new)) and _kinds(old) <= _kinds(new)


def is_whole(old: Layout, new: Layout) -> bool:
    """Is the block `new` the complete new text of the file `old`? It misses nothing of
    the file, and repeats some of the file's own statements unchanged or changes no
    definition (an example call under a fixed function does neither)."""
    if not old.definitions:
        return True
    if not complete(old.body, new.body):
        return False
    own = [n for n in old.body if n not in old.definitions and n not in old.imports]
    dumps = {ast.dump(n) for n in new.body}
    if not own or any(ast.dump(n) in dumps for n in own):
        return True
    defined = {d.name: ast.dump(d) for d in old.definitions}
    return all(defined.get(d.name) == ast.dump(d) for d in new.definitions)


def refuse_into_broken(path: str, original: str, block: str, exc: SyntaxError) -> None:
    """A block lacking some of the top-level definitions of a file that does not compile
    is a fragment with nowhere reliable to go."""
    parsed = parse_block(block)
    if parsed is None:
        return
    given = {d.name for d in parsed[1].definitions}
    if set(_DEF_LINE.findall(original)) - given:
        raise EditError(
            f"{path} does not compile as it is (line {exc.lineno}: {exc.msg}), so a block "
            "with only some of its functions cannot be merged into it; give the complete file"
        )
