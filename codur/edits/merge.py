"""A fenced Python block for an existing file: the whole new file, or definitions to merge.

The AST decides, not line counts. A block is the complete new file when it misses
nothing the file has at the top level (imports aside):
- no definition: each top-level function and class, and each class's methods and
  nested classes (by qualified name);
- no kind of module-level statement the file has (assignment, expression such as a
  `print(...)` call, `for` loop, `if __name__ == "__main__"` block, ...; the
  statements themselves may differ: that is the edit);
- not the module docstring, if the file has one;
and, if the file has module-level statements or a docstring, the block repeats at least
one of them unchanged (a whole file copies what it does not change; an example call
written under a fixed function does not) or changes no definition (then the statements
are what it changes). A file with no definitions has nothing to merge into: any block
is its new text.

Otherwise the block is a fragment (a model's habit is to send only the function it
fixed, perhaps with a line of example use), merged by name:
- each function or class it gives replaces the file's definition of that name on exactly
  the lines `ast` gives it (`lineno`..`end_lineno`, decorators included); every other
  byte of the file stays (module docstring, comments, blank lines, the driver code);
  functions nested in a function go with it;
- a class that misses something of the file's class by the same rule (a method, a
  nested class, a kind of statement such as a class attribute, the docstring) is merged
  member by member (the class's other methods and body stay); one that misses nothing
  replaces the class;
- a bare method (first parameter `self`/`cls`) named like a method of exactly one class
  replaces that method; named like methods of several classes, the one whose lines it
  mostly repeats, when that is clear (else it is refused: "give it inside its class");
- a new function or class goes next to its neighbour in the block if the file has it
  (after the one before it, else before the one after it), else after the file's last
  definition and before its first module-level executable statement (the driver);
- new imports go after the module docstring, `from __future__` imports and the file's
  leading import block; imports the file already has are skipped;
- an assignment of the block to names only (`LIMIT = 5`, `_SPACES = re.compile(...)`,
  a class attribute) above one of its definitions is a constant when the definitions
  (the file's or the block's) read its names from outside themselves (not parameters
  or locals; `self.POWER` for a class attribute): it replaces the file's one assignment
  of those names above the file's last definition, or is added like a new definition
  (below the file's statements that assign what it reads) where the file assigns them
  nowhere;
- the block's other module-level statements (an echoed driver, `print(f(3))`, an example
  `x = f(3)`) are not merged: the file's own stay, and `Edit.kept` says which were left
  out.

A fragment whose definitions match nothing in the file is rejected with the names it
could have used. So is a block with a function abridged by a left-out-lines line
(`# ... lines 5-9 not shown ...`, copied from a file shown in part:
`codur.edits.abridged`); one with such lines between its definitions is a fragment,
never the whole file. So is a fragment for a file that does not compile (there are no
reliable line spans to merge into); a block for a new or empty file is the file.
"""

from __future__ import annotations

import ast
from difflib import SequenceMatcher

from codur.edits import constants
from codur.edits.abridged import expand, left_out, refuse_abridged, shown_in_part
from codur.edits.base import Edit, EditError
from codur.edits.imports import add_imports
from codur.edits.spans import DEFINITIONS, Definition, Layout, layout, members, span
from codur.edits.splice import Source, attached_start, indent_of, reindent, split_lines
from codur.edits.whole import complete, is_whole, parse_block, refuse_into_broken

_METHOD_DECORATORS = {"staticmethod", "classmethod", "property"}
RESEMBLES = 0.6
"""Share of lines a bare method must have in common with one class's method of its name
(difflib's ratio) to be taken for that method..."""
AHEAD = 0.25
"""... and by how much more than with any other class's."""


def merge_python(path: str, original: str | None, block: str, shown: str | None = None) -> Edit:
    """The edit a fenced Python block for `path` makes to `original` (None: no such file);
    `shown`: the file as the model was shown it, if not `original` (an earlier block of
    the reply changed it): what left-out-lines lines number."""
    if original is None or not original.strip():
        return Edit(path, block)
    try:
        old = layout(original)
    except SyntaxError as exc:
        refuse_into_broken(path, original, block, exc)
        return Edit(path, block)
    parsed = parse_block(block)
    if parsed is None:
        return Edit(path, block)  # not Python: check_syntax gives the model the error
    block, new = parsed
    shown = original if shown is None else shown
    marks = left_out(block, shown)
    refuse_abridged(path, block, shown, marks)
    whole = expand(block, original, marks) if shown == original else None
    if whole is not None and (reparsed := parse_block(whole)) is not None:
        (block, new), marks = reparsed, {}  # the copy of a view, its left-out lines back
    if is_whole(old, new) and not marks:  # lines left out: not the whole file
        return Edit(path, block)
    return _Merge(path, original, old, block, new, shown_in_part(shown, marks)).run()


def is_method(node: Definition) -> bool:
    """A function given bare that is a method: `self`/`cls` first, or a method decorator."""
    if isinstance(node, ast.ClassDef):
        return False
    first = (node.args.posonlyargs + node.args.args)[:1]
    decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    return bool(first and first[0].arg in ("self", "cls")) or bool(decorators & _METHOD_DECORATORS)


class _Merge:
    """One fragment merged into one file: the changes are collected, then applied."""

    def __init__(
        self, path: str, original: str, old: Layout, block: str, new: Layout, in_part: set[str]
    ) -> None:
        self.path, self.old, self.new, self.in_part = path, old, new, in_part
        self.source = Source(original, path)
        self.block = split_lines(block)
        self.replaced: list[str] = []
        self.added: list[str] = []
        self.kept: list[str] = []
        self.matched = False

    def run(self) -> Edit:
        imports = add_imports(self.source, self.old, self.new, self.block)
        self._top_level()
        return Edit(
            self.path,
            self.source.text(),
            how="merged",
            replaced=self.replaced,
            added=self.added,
            imports=imports,
            kept=self.kept,
        )

    def _top_level(self) -> None:
        old_top = {d.name: d for d in self.old.definitions}
        methods: dict[str, list[tuple[ast.ClassDef, Definition]]] = {}
        for cls in (d for d in self.old.definitions if isinstance(d, ast.ClassDef)):
            for name, member in members(cls).items():
                methods.setdefault(name, []).append((cls, member))
        new_doc = self.new.docstring
        if new_doc and ast.dump(new_doc) != ast.dump(self.old.docstring or ast.Pass()):
            self.kept.append(self._first_line(new_doc))
        anchor: int | None = None
        waiting: list[ast.stmt] = []
        last = {d.name: d for d in self.new.definitions}  # as Python runs it: the last wins
        read = constants.read(self.old.definitions) | constants.read(self.new.definitions)
        assigned = constants.assigned_in(self.old.body)
        heads = constants.heading(self.old.statements, self.old.definitions)
        ahead = constants.heading(self.new.statements, self.new.definitions)
        ahead = ahead if self.new.definitions else self.new.statements  # constants alone
        for node in sorted([*self.new.definitions, *self.new.statements], key=lambda n: n.lineno):
            if not isinstance(node, DEFINITIONS):
                constant = constants.constant(node, heads, read) if node in ahead else None
                below = constants.after(node, self.old.statements)  # what it reads
                at = (waiting, anchor, below)
                waiting, anchor = self._statement(node, constant, assigned, at, "", 2)
            elif last[node.name] is not node:
                continue
            elif (target := old_top.get(node.name)) is not None:
                self._replace(target, node, node.name)
                self._add_before(target, waiting, "", blank=2)
                waiting, anchor = [], span(target).end
            elif node.name in methods and is_method(node):
                self._bare_method(node, methods[node.name])
            else:
                self.added.append(node.name)
                if anchor is None:
                    waiting.append(node)
                else:
                    self._add_after(anchor, [node], "", blank=2)
        if not self.matched:
            raise EditError(self._nothing_matched())
        self._add_after(self._before_driver(), waiting, "", blank=2)

    def _replace(self, target: Definition, node: Definition, name: str) -> None:
        self.matched = True
        if (
            isinstance(target, ast.ClassDef)
            and isinstance(node, ast.ClassDef)
            and (not complete(target.body, node.body) or name in self.in_part)
        ):
            self._merge_class(target, node, name + ".")
            return
        lines = self._lines(node)
        indent = indent_of(self.source.line(span(target).start))
        self.source.replace(span(target), reindent(lines, indent_of(lines[0]), indent))
        self.replaced.append(name)

    def _merge_class(self, old_cls: ast.ClassDef, new_cls: ast.ClassDef, prefix: str) -> None:
        old_members, last = members(old_cls), members(new_cls)
        indent = self._body_indent(old_cls)
        anchor: int | None = None
        waiting: list[ast.stmt] = []
        read = constants.read([old_cls, new_cls])
        assigned = constants.assigned_in(old_cls.body)
        for node in new_cls.body:
            if not isinstance(node, DEFINITIONS):
                if any(ast.dump(node) == ast.dump(o) for o in old_cls.body):
                    continue
                constant = constants.constant(node, old_cls.body, read)
                at = (waiting, anchor, None)
                waiting, anchor = self._statement(node, constant, assigned, at, indent, 1, prefix)
            elif last[node.name] is not node:
                continue
            elif (target := old_members.get(node.name)) is not None:
                self._replace(target, node, prefix + node.name)
                self._add_before(target, waiting, indent, blank=1)
                waiting, anchor = [], span(target).end
            else:
                self.added.append(prefix + node.name)
                if anchor is None:
                    waiting.append(node)
                else:
                    self._add_after(anchor, [node], indent, blank=1)
        self._add_after(span(old_cls).end, waiting, indent, blank=1)

    def _statement(
        self,
        node: ast.stmt,
        constant: ast.stmt | None,
        assigned: set[str],
        at: tuple[list[ast.stmt], int | None, int | None],
        indent: str,
        blank: int,
        prefix: str = "",
    ) -> tuple[list[ast.stmt], int | None]:
        """A statement of the block: a constant (`constant`: the file's assignment it
        rewrites, or `node` itself when new) merged, anything else kept out. `at`: the new
        definitions waiting for a place, the line the last one went after, and the line
        a new constant must go below (what it reads); returns the first two."""
        waiting, anchor, below = at
        given = ", ".join(sorted(constants.names(node)))
        if constant is not None and constant is not node:
            self.matched = True
            if ast.dump(constant) != ast.dump(node):
                lines = self._lines(node)
                there = indent_of(self.source.line(span(constant).start))
                self.source.replace(span(constant), reindent(lines, indent_of(lines[0]), there))
                self.replaced.append(prefix + given)
            self._add_before(constant, waiting, indent, blank)
            return [], span(constant).end
        if constant is not node or constants.names(node) & assigned:
            self.kept.append(f"{prefix[:-1]}: " * bool(prefix) + self._first_line(node))
            return waiting, anchor
        self.added.append(prefix + given)
        if below is not None:
            self._add_after(below, [node], indent, blank)
        elif anchor is None:
            return [*waiting, node], None
        else:
            self._add_after(anchor, [node], indent, blank)
        return waiting, anchor

    def _bare_method(self, node: Definition, owners: list[tuple[ast.ClassDef, Definition]]) -> None:
        owner = owners[0] if len(owners) == 1 else self._resembled(node, owners)
        if owner is None:
            classes = ", ".join(cls.name for cls, _ in owners)
            raise EditError(
                f"the block for {self.path} defines {node.name}(), a method of several "
                f"classes ({classes}); give it inside its class"
            )
        cls, target = owner
        self._replace(target, node, f"{cls.name}.{node.name}")

    def _resembled(
        self, node: Definition, owners: list[tuple[ast.ClassDef, Definition]]
    ) -> tuple[ast.ClassDef, Definition] | None:
        """The class whose method a bare method of several classes' name rewrites: the one
        whose lines it mostly repeats (a fix changes a few lines of the method it came
        from), when that is clear (RESEMBLES, and AHEAD of the next); else None."""
        ratios = [_similarity(self._lines(node), self._old_lines(t)) for _, t in owners]
        best, second = sorted(ratios, reverse=True)[:2]
        return owners[ratios.index(best)] if best >= RESEMBLES and best - second >= AHEAD else None

    def _old_lines(self, node: Definition) -> list[str]:
        where = span(node)
        return self.source.lines[where.start - 1 : where.end]

    def _lines(self, node: ast.stmt, comments: bool = False) -> list[str]:
        start = span(node).start
        start = attached_start(self.block, start) if comments else start
        return self.block[start - 1 : span(node).end]

    def _new_lines(self, node: ast.stmt, indent: str) -> list[str]:
        """A new definition's lines (with the comments right above it), re-indented."""
        return reindent(
            self._lines(node, comments=True), indent_of(self.block[span(node).start - 1]), indent
        )

    def _add_after(self, after: int, nodes: list[ast.stmt], indent: str, blank: int) -> None:
        for node in nodes:
            self.source.insert(after, ["\n"] * blank + self._new_lines(node, indent))

    def _add_before(self, target: ast.stmt, nodes: list[ast.stmt], indent: str, blank: int) -> None:
        at = attached_start(self.source.lines, span(target).start) - 1
        for node in nodes:
            self.source.insert(at, self._new_lines(node, indent) + ["\n"] * blank)

    def _body_indent(self, cls: ast.ClassDef) -> str:
        first = cls.body[0]
        if first.lineno > cls.lineno:
            return indent_of(self.source.line(span(first).start))
        return indent_of(self.source.line(cls.lineno)) + "    "

    def _before_driver(self) -> int:
        """After the last definition that comes before the file's first module-level
        executable statement following a definition (the driver)."""
        first = span(self.old.definitions[0]).start
        driver = min((n.lineno for n in self.old.statements if n.lineno > first), default=None)
        before = [d for d in self.old.definitions if driver is None or span(d).start < driver]
        return span(before[-1]).end

    def _first_line(self, node: ast.stmt) -> str:
        text = self.block[node.lineno - 1].strip()
        more = (node.end_lineno or node.lineno) > node.lineno
        return text[:60] + (" ..." if more or len(text) > 60 else "")

    def _nothing_matched(self) -> str:
        given = [
            f"class {d.name}" if isinstance(d, ast.ClassDef) else f"{d.name}()"
            for d in self.new.definitions
        ]
        what = (
            f"defines {', '.join(given)}, which {self.path} does not have"
            if given
            else "holds no function or class (statements outside them are not merged)"
        )
        expected = ", ".join(d.name for d in self.old.definitions)
        return (
            f"the block for {self.path} {what}; give the complete file, "
            f"or the changed function(s) among: {expected}"
        )


def _similarity(given: list[str], old: list[str]) -> float:
    """difflib's ratio of the two line lists, indentation aside."""
    a, b = [line.strip() for line in given], [line.strip() for line in old]
    return SequenceMatcher(None, a, b, autojunk=False).ratio()
