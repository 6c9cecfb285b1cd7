"""A big Python file shown in part: the definitions that matter, whole, with what a reader
needs around them, and every left-out run of lines replaced by one comment saying which
lines it was.

Around the definitions asked for (`f`, `Class.method`) an excerpt keeps the module's
docstring (a short one), its imports, the module-level assignments the definitions read
(`GRACE_DAYS = 10` and the string under it), and for a method its class's header: the
`class` line, docstring and class-level assignments. The lines shown are the file's own,
byte for byte, so a reply's functions merge into the file by name (`codur.edits.merge`)
and a SEARCH/REPLACE block copied from the excerpt matches the file.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from codur.edits.spans import DEFINITIONS, Definition, Span, docstring, parse, qualified, span
from codur.edits.splice import attached_start, indent_of, split_lines

SHORT_DOCSTRING = 10
"""A module docstring of at most this many lines is shown; a longer one is left out."""


@dataclass(frozen=True)
class Excerpt:
    text: str
    shown: list[Span]
    """The file's lines in the excerpt, as ranges."""
    total: int
    """Lines in the file."""
    names: list[str]
    """The definitions shown whole."""

    def ranges(self) -> str:
        """`1-12, 798-804`: the lines shown."""
        return ", ".join(
            f"{s.start}-{s.end}" if s.end > s.start else str(s.start) for s in self.shown
        )


def resolve(defined: dict[str, Definition], name: str) -> str | None:
    """The definition `name` is, or is inside (`f.inner` -> `f`): its qualified name."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in defined:
            return candidate
    return None


def excerpt(source: str, names: Sequence[str]) -> Excerpt | None:
    """`source` shown for `names` (qualified within the file); None when it does not
    parse or defines none of them."""
    try:
        tree = parse(source)
    except SyntaxError:
        return None
    defined = qualified(tree.body)
    chosen = list(dict.fromkeys(q for n in names if (q := resolve(defined, n)) is not None))
    if not chosen:
        return None
    lines = split_lines(source)
    keep: set[int] = set()

    def add(first: int, last: int) -> None:
        keep.update(range(first, last + 1))

    doc = docstring(tree.body)
    if doc is not None and span(doc).end - span(doc).start < SHORT_DOCSTRING:
        add(*span(doc))
    for node in tree.body:
        if _imports_only(node):
            add(*span(node))
    used: set[str] = set()
    for name in chosen:
        node = defined[name]
        start, end = span(node)
        add(attached_start(lines, start), end)
        used |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        for owner in _owners(defined, name):
            add(*_class_head(owner))
    for first, last in _assignments(tree.body, used):
        add(first, last)
    keep |= _blank_gaps(lines, keep)
    return Excerpt(_render(lines, keep), _ranges(keep), len(lines), chosen)


def _imports_only(node: ast.stmt) -> bool:
    """An import, or a block (`if TYPE_CHECKING:`, `try:`) holding only imports."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.If | ast.Try):
        inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
        inner += [s for h in getattr(node, "handlers", []) for s in h.body]
        kinds = (ast.Import, ast.ImportFrom, ast.Pass)
        return bool(inner) and all(isinstance(s, kinds) for s in inner)
    return False


def _owners(defined: dict[str, Definition], name: str) -> list[ast.ClassDef]:
    """The classes `name` is a member of, outermost first."""
    parts = name.split(".")
    found = [defined.get(".".join(parts[:n])) for n in range(1, len(parts))]
    return [c for c in found if isinstance(c, ast.ClassDef)]


def _class_head(cls: ast.ClassDef) -> Span:
    """A class's lines up to its first method or nested class: the `class` line, its
    docstring and its class-level statements (fields, constants)."""
    first_def = next((n for n in cls.body if isinstance(n, DEFINITIONS)), None)
    end = span(first_def).start - 1 if first_def is not None else span(cls).end
    return Span(span(cls).start, max(end, cls.lineno))


def _assignments(body: list[ast.stmt], used: set[str]) -> list[Span]:
    """Module-level assignments of names in `used`, each with the string under it (an
    attribute docstring)."""
    found = []
    for n, node in enumerate(body):
        if isinstance(node, ast.Assign):
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = {node.target.id}
        else:
            continue
        if not targets & used:
            continue
        first, last = span(node)
        after = body[n + 1] if n + 1 < len(body) else None
        if docstring([after] if after is not None else []) is not None:
            last = span(after).end
        found.append(Span(first, last))
    return found


def _ranges(keep: set[int]) -> list[Span]:
    out: list[Span] = []
    for number in sorted(keep):
        if out and out[-1].end == number - 1:
            out[-1] = Span(out[-1].start, number)
        else:
            out.append(Span(number, number))
    return out


def _gaps(count: int, keep: set[int]) -> list[Span]:
    """The runs of lines (1..count) not in `keep`."""
    return _ranges(set(range(1, count + 1)) - keep)


def _blank_gaps(lines: list[str], keep: set[int]) -> set[int]:
    """The lines of the runs left out that are all blank (shown: no comment needed)."""
    blank = [g for g in _gaps(len(lines), keep) if not "".join(lines[g.start - 1 : g.end]).strip()]
    return {n for g in blank for n in range(g.start, g.end + 1)}


def _render(lines: list[str], keep: set[int]) -> str:
    """The kept lines; each run of others as one comment line saying which they were."""
    out: list[str] = []
    number = 1
    while number <= len(lines):
        if number in keep:
            out.append(lines[number - 1])
            number += 1
            continue
        first = number
        while number <= len(lines) and number not in keep:
            number += 1
        indent = indent_of(lines[number - 1]) if number <= len(lines) else ""
        last = number - 1
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        out.append(f"{indent}# ... {where} not shown ...\n")
    text = "".join(out)
    return text if text.endswith("\n") else text + "\n"


def signatures(source: str) -> dict[str, tuple[int, str]]:
    """Qualified name -> (line, `def name(args) -> type` or `class Name(Base)`) of each
    function, class and method of `source` (empty when it does not parse)."""
    try:
        tree = parse(source)
    except SyntaxError:
        return {}
    lines = split_lines(source)
    found = {}
    for name, node in qualified(tree.body).items():
        body_start = node.body[0].lineno if node.body else node.lineno + 1
        head = lines[node.lineno - 1 : max(node.lineno, body_start - 1)]
        text = " ".join(line.strip() for line in head)
        found[name] = (node.lineno, _head(text))
    return found


def _head(text: str) -> str:
    """A definition's first lines up to the colon that opens its body."""
    depth = 0
    for n, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ":" and depth == 0:
            return text[:n].replace("( ", "(").replace(" )", ")")
    return text
