"""The AST line spans the merge uses, and merge properties over many fragments of a file."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codur.edits import Span, definitions, module_statements, parse_edits

PROGRAM = '''#!/usr/bin/env python3
"""An inventory report, with a few kinds of definitions in it."""

import functools
from dataclasses import dataclass

LIMIT = 3  # reorder below this


@dataclass
class Item:
    """One line of stock."""

    name: str
    count: int

    def low(self):
        return self.count < LIMIT

    @property
    def label(self):
        return f"{self.name} x{self.count}"

    class Meta:
        table = "items"

        def key(self):
            return "name"


# Cached, because the report asks twice.
@functools.lru_cache(maxsize=None)
def total(counts):
    def add(a, b):
        return a + b

    return functools.reduce(add, counts, 0)


async def fetch(name):
    return Item(name, 1)


def report(items):
    lines = [item.label for item in items if item.low()]
    lines.append(f"total {total(tuple(i.count for i in items))}")
    return "\\n".join(lines)


if __name__ == "__main__":
    print(report([Item("pen", 2), Item("ink", 5)]))
'''
NAMES = list(definitions(PROGRAM))


def lines_of(source: str, span: Span) -> str:
    return "".join(source.splitlines(keepends=True)[span.start - 1 : span.end])


def test_definitions_and_module_statements() -> None:
    spans = definitions(PROGRAM)
    assert list(spans) == [
        "Item",
        "Item.low",
        "Item.label",
        "Item.Meta",
        "Item.Meta.key",
        "total",
        "fetch",
        "report",
    ]
    assert lines_of(PROGRAM, spans["Item.label"]).startswith("    @property\n    def label")
    assert lines_of(PROGRAM, spans["total"]).startswith("@functools.lru_cache(maxsize=None)\n")
    assert lines_of(PROGRAM, spans["total"]).endswith("counts, 0)\n")
    assert spans["Item"].start == 10 and spans["Item"].end == spans["Item.Meta.key"].end
    statements = [lines_of(PROGRAM, s) for s in module_statements(PROGRAM)]
    assert statements == [
        "LIMIT = 3  # reorder below this\n",
        'if __name__ == "__main__":\n    print(report([Item("pen", 2), Item("ink", 5)]))\n',
    ]


def fragment(source: str, chosen: list[str], change: str = "") -> str:
    """The chosen definitions as a model would send them, in the chosen order: a method
    inside its bare class header(s), each chosen definition's last line + `change`."""
    spans = definitions(source)
    lines = source.replace("\r\n", "\n").splitlines(keepends=True)
    wanted = [n for n in chosen if not any(n.startswith(f"{o}.") for o in chosen)]

    def text(name: str) -> list[str]:
        own = lines[spans[name].start - 1 : spans[name].end]
        if name in wanted:
            return [*own[:-1], own[-1].rstrip("\n") + change + "\n"]
        header = own[: next(i for i, line in enumerate(own) if line.rstrip().endswith(":")) + 1]
        return header + ["\n"] + parts(name + ".")

    def parts(prefix: str) -> list[str]:
        under = [w for w in wanted if w.startswith(prefix)]
        names = dict.fromkeys(prefix + w[len(prefix) :].split(".")[0] for w in under)
        return [line for i, name in enumerate(names) for line in ["\n"] * bool(i) + text(name)]

    return "".join(parts(""))


def expected_after(source: str, chosen: list[str], change: str) -> str:
    """`source` with `change` added to the last line of each chosen definition."""
    lines = source.splitlines(keepends=True)
    spans = definitions(source)
    for name in chosen:
        end = spans[name].end - 1
        body = lines[end].rstrip("\r\n")
        lines[end] = body + change + lines[end][len(body) :]
    return "".join(lines)


def send(source: str, block: str) -> str:
    reply = f"The fix:\n\ninventory.py\n```python\n{block}```\n"
    (edit,) = parse_edits(reply, {"inventory.py": source}, "functions")
    assert edit.how == "merged"
    return edit.content


chosen_names = st.lists(st.sampled_from(NAMES), min_size=1, unique=True)


@given(chosen=chosen_names, crlf=st.booleans())
def test_resending_definitions_unchanged_leaves_the_file_byte_identical(
    chosen: list[str], crlf: bool
) -> None:
    source = PROGRAM.replace("\n", "\r\n") if crlf else PROGRAM
    assert send(source, fragment(source, chosen)) == source


@given(chosen=chosen_names, crlf=st.booleans())
def test_changed_definitions_change_only_their_own_lines(chosen: list[str], crlf: bool) -> None:
    source = PROGRAM.replace("\n", "\r\n") if crlf else PROGRAM
    inner = [n for n in chosen if not any(o.startswith(f"{n}.") for o in chosen)]
    merged = send(source, fragment(source, inner, change="  # changed"))
    assert merged == expected_after(source, inner, "  # changed")
