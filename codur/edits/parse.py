"""Reading a model's reply into file edits, whatever shape the reply took."""

from __future__ import annotations

import ast
from dataclasses import replace
from functools import partial

from codur.edits.base import Edit, EditError
from codur.edits.fenced import drop_path_comment, fenced_blocks
from codur.edits.merge import is_method, merge_python
from codur.edits.search_replace import (
    apply_search_replace,
    mask_search_replace,
    search_replace_paths,
)
from codur.edits.spans import layout, members
from codur.edits.splice import restyled
from codur.edits.whole import parse_block

EDIT_FORMATS = ("whole_file", "search_replace", "functions")


def is_python(path: str) -> bool:
    return path.endswith(".py")


def parse_edits(reply: str, files: dict[str, str], edit_format: str) -> list[Edit]:
    """The edits in `reply` (none is an empty list; EditError when a block cannot be
    applied). `edit_format` is what the model was asked for, but a right answer in another
    shape is used too: SEARCH/REPLACE blocks are applied first, then fenced blocks for the
    other files (whole files, or Python definitions merged by name; several blocks for
    one file in turn). A fenced block for a file that SEARCH/REPLACE blocks changed, or a
    Python block that defines nothing beside one for the same file that does, is taken
    for an illustration and skipped (the latter is named in `Edit.kept`)."""
    if edit_format not in EDIT_FORMATS:
        raise ValueError(f"unknown edit format {edit_format!r}")
    edits = {e.path: e for e in apply_search_replace(reply, files)}
    searched = set(edits)
    blocks = fenced_blocks(mask_search_replace(reply), list(files), partial(owner, files=files))
    defining = {path for path, body in blocks if _defines(path, body) is True}
    examples: dict[str, list[str]] = {}
    for path, body in blocks:
        if path in searched:
            continue
        if path in defining and _defines(path, body) is False:
            examples.setdefault(path, []).append(body.strip().split("\n", 1)[0])
            continue
        before = edits.get(path)
        current = before.content if before else files.get(path)
        body = drop_path_comment(path, body, current)
        shown = files.get(path)
        edit = merge_python(path, current, body, shown) if is_python(path) else Edit(path, body)
        if edit.how == "whole_file" and current:
            edit = replace(edit, content=restyled(edit.content, current))
        edits[path] = _after(before, edit) if before else edit
    for path, firsts in examples.items():
        edits[path] = replace(edits[path], kept=edits[path].kept + firsts)
    return list(edits.values())


def paths_named(reply: str, known: list[str]) -> list[str]:
    """The files `reply` gives edits for (SEARCH/REPLACE blocks, fenced blocks), in
    order: the caller reads the ones not among `known` (a block for a file the prompt did
    not show is merged into the file like any other, not taken for all of it)."""
    fenced = [path for path, _ in fenced_blocks(mask_search_replace(reply), known)]
    return list(dict.fromkeys([*search_replace_paths(reply, known), *fenced]))


def owner(body: str, files: dict[str, str]) -> str | None:
    """The one Python file of `files` that defines a function or class a block gives (a
    function or class at the top level of both, or a method given bare and a member of
    one of the file's classes); None: no file, or several (a new helper beside a changed
    function does not count)."""
    parsed = parse_block(body)
    given = [_kind(d) for d in parsed[1].definitions] if parsed else []
    found = [path for path, text in files.items() if given and set(given) & _defined(path, text)]
    return found[0] if len(found) == 1 else None


def _kind(node: ast.stmt) -> tuple[str, bool]:
    """(name, whether it is given as a class member: a method given bare)."""
    return node.name, is_method(node)  # type: ignore[attr-defined,arg-type]


def _defined(path: str, text: str) -> set[tuple[str, bool]]:
    """A Python file's top-level definitions, and its classes' members, as `_kind` names
    them (every member a member)."""
    try:
        tops = layout(text).definitions if is_python(path) else []
    except SyntaxError:
        return set()
    inner = {(m, True) for d in tops if isinstance(d, ast.ClassDef) for m in members(d)}
    return {(d.name, False) for d in tops} | inner


def _defines(path: str, body: str) -> bool | None:
    """Does a Python block define a function or class (None: not Python, or no parse)?
    Beside a block for the same file that does, one that does not is an example of use."""
    if not is_python(path):
        return None
    try:
        return bool(layout(body).definitions)
    except SyntaxError:
        return None


def _after(first: Edit, second: Edit) -> Edit:
    """Two blocks for one file, applied in turn: what both did."""
    if second.how == "whole_file":
        return second
    return replace(
        second,
        replaced=first.replaced + second.replaced,
        added=first.added + second.added,
        imports=first.imports + second.imports,
        kept=first.kept + second.kept,
    )


def check_syntax(edit: Edit) -> None:
    """Reject a Python edit that does not compile (the error goes back to the model)."""
    if not is_python(edit.path):
        return
    try:
        compile(edit.content, edit.path, "exec")
    except SyntaxError as exc:
        raise EditError(f"{edit.path}:{exc.lineno}: syntax error: {exc.msg}") from None
