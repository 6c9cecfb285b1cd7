"""Left-out-lines lines in a model's block: the `# ... lines 12-40 not shown ...` comments
of a file shown in part (`codur.edits.excerpt`) and the `# ... (12 lines not shown) ...`
of one cut to fit (`codur.agents.fit`), which a model copies into its reply.

A copy of a view gets the lines its left-out-lines lines name back (`expand`), so the
model's changes anywhere in what it was shown are kept (a class line, a class
attribute) and what it was not shown stays. Where that cannot be trusted (a line with
no numbers, numbers out of order, a second block for a file an earlier block changed),
such a line between definitions is a comment and the merge leaves the lines it stands
for as they are, a class shown in part merged member by member. One that abridges a
function is refused, as it would lose lines: inside a function's body; naming lines
that are part of a function of the file but not all of it (a view shows functions
whole, so only an abridged copy says so); or, without line numbers, right after a
function. A block that holds one is never the whole new file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from codur.edits.base import EditError
from codur.edits.spans import Span, parse, qualified, span
from codur.edits.splice import split_lines

LEFT_OUT = re.compile(
    r"#\s*\.\.\.\s*(?:lines? (\d+)(?:-(\d+))? not shown|\(\d+ lines? not shown\))\s*\.\.\.\s*$"
)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def left_out(block: str, original: str) -> dict[int, Span | None]:
    """Line of each left-out-lines comment of `block` (parsed Python) -> the file's lines
    it names (None: it names none); those `original` itself holds are its own comments."""
    own = set(original.splitlines())
    found: dict[int, Span | None] = {}
    for token in tokenize.generate_tokens(io.StringIO(block).readline):
        if token.type != tokenize.COMMENT or token.line.rstrip("\n") in own:
            continue
        if (match := LEFT_OUT.match(token.string)) is not None:
            first = match[1]
            found[token.start[0]] = Span(int(first), int(match[2] or first)) if first else None
    return found


def refuse_abridged(path: str, block: str, shown: str, marks: dict[int, Span | None]) -> None:
    """EditError when a left-out-lines line of `block` (`marks`, from `left_out`) abridges a
    function; `shown`: the file as the model was shown it (what the lines are numbered in)."""
    lines = block.split("\n")
    given = [(n.name, span(n)) for n in ast.walk(parse(block)) if isinstance(n, FUNCTIONS)]
    owned = [(n.name, span(n)) for n in _walk(shown) if isinstance(n, FUNCTIONS)]
    for at, names in marks.items():
        if names is not None:  # lines of the file: some of a function's, not all
            cut = [name for name, where in owned if _part(names, where)]
        else:  # no lines named: right after a function
            cut = [n for n, w in given if w.end < at and not "".join(lines[w.end : at - 1]).strip()]
        cut += [name for name, where in given if where.start < at <= where.end]  # inside one
        if cut:
            raise EditError(
                f"the block for {path} abridges {cut[-1]}() with a `# ... not shown ...` "
                "line, which would drop the lines that line stands for; give each "
                "function you change complete"
            )


def expand(block: str, shown: str, marks: dict[int, Span | None]) -> str | None:
    """`block` with each left-out-lines line replaced by the lines of `shown` it names: a
    copy of a view made whole again (the model's changes kept, what it was not shown as
    it is). None when there is nothing to expand or the marks cannot be trusted: one
    names no lines, or they are out of order, overlap or run past the file's end."""
    if not marks or None in marks.values():
        return None
    order = sorted(marks)
    named = [s for at in order if (s := marks[at]) is not None]
    lines = split_lines(shown)
    if any(not 1 <= s.start <= s.end <= len(lines) for s in named):
        return None
    if any(a.end >= b.start for a, b in zip(named, named[1:], strict=False)):
        return None
    out = split_lines(block)
    for at, s in zip(reversed(order), reversed(named), strict=True):
        out[at - 1 : at] = lines[s.start - 1 : s.end]
    return "".join(out)


def shown_in_part(shown: str, marks: dict[int, Span | None]) -> set[str]:
    """Qualified names of the classes of `shown` whose lines a mark names in part: a copy
    of such a class is merged member by member, never taken for the whole class."""
    named = [s for s in marks.values() if s is not None]
    try:
        defined = qualified(parse(shown).body)
    except SyntaxError:
        return set()
    return {
        name
        for name, node in defined.items()
        if isinstance(node, ast.ClassDef) and any(_part(s, span(node)) for s in named)
    }


def _walk(text: str) -> list[ast.AST]:
    try:
        return list(ast.walk(parse(text)))
    except SyntaxError:  # the file as shown did not compile: no function of it to abridge
        return []


def _part(names: Span, function: Span) -> bool:
    """Whether `names` holds some of `function`'s lines but not all."""
    overlaps = names.start <= function.end and names.end >= function.start
    return overlaps and not (names.start <= function.start and names.end >= function.end)
