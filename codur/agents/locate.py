"""Finding the code a failing check is about, in a repository of any size.

The functions and methods of the workspace's code (not the check's files) are ranked
from four kinds of evidence, read from the code index (`codur.search`):
- the failing run's traceback: the definitions its frames in the code ran, the innermost
  (where it raised) first, followed by the methods that set what its raising line reads;
- the task: the definitions it names as code (`late_fee`, `RateTable.rate()`);
- the failing tests' calls: what each failing test calls (on the line it failed at
  first), then what those call, through the static call graph, three calls deep;
- BM25 over the code, queried with the task, the failing tests' source and the error
  lines of the failure.
The first two are direct evidence and come first; the last two are fused by reciprocal
rank, so a definition both reached from the failing test and like its words comes before
one that is only either.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from codur.search.calls import Definition
from codur.search.chunks import Chunk, module_name
from codur.search.index import CodeIndex
from codur.search.keyed import selected_by_key
from codur.search.rank import fuse
from codur.search.resolve import AMBIGUOUS, Resolver
from codur.task import code_mentions
from codur.verify.result import VerificationResult

CALL_DEPTH = 3
"""Calls followed from a failing test: its own, theirs, and theirs."""
SEARCH_DEPTH = 40
"""BM25 results read (the code's functions among them are ranked)."""
UNITS = ("function", "method")
_NUMBER = re.compile(r"(?<![\w.])\d[\d.]*")
_RAISED = re.compile(r"^[\w.]*(?:Error|Exception)\b")
_SELF_ATTR = re.compile(r"\bself\.(\w+)")


@dataclass(frozen=True)
class Found:
    """A function or method of the code: `name` is qualified within its file (`f`,
    `Class.method`), `line` and `end` where it starts and ends, `why` the first evidence
    for it."""

    path: str
    name: str
    line: int
    why: str
    end: int = 0


class Locator:
    """Ranks the index's functions and methods for a task and its failing check;
    `is_check(path)`: whether a file belongs to the check (tests, their helpers), which
    are never among the results."""

    def __init__(
        self,
        index: CodeIndex,
        is_check: Callable[[str], bool],
        read: Callable[[str], str | None] | None = None,
    ) -> None:
        self.index, self.is_check, self.read = index, is_check, read
        self.resolver = Resolver(index)
        self.units: dict[tuple[str, str], Chunk] = {
            (c.path, c.name): c
            for entry in index.files.values()
            for c in entry.chunks
            if c.kind in UNITS and not is_check(c.path)
        }

    def rank(self, task: str, verdict: VerificationResult | None) -> list[Found]:
        """Every function found for `task` and `verdict` (None: no check ran yet), the
        most likely first."""
        traced = self.traceback(verdict) if verdict is not None else []
        named = self.mentioned(task)
        tests = named_first(self.failing_tests(verdict) if verdict is not None else [], task)
        sources = self.sources(tests)
        called = self.called_by(tests, self.failing_lines(verdict), self.selected(sources))
        query = "\n".join([task, *sources, *error_lines(verdict)])
        query = _NUMBER.sub(" ", query)  # 100.25 in a failure is no word of the code
        searched = self.searched(query)
        found: dict[tuple[str, str], Found] = {}
        for ranking in ([*traced, *named], *_fused(called, searched)):
            for item in ranking:
                found.setdefault((item.path, item.name), item)
        return list(found.values())

    def traceback(self, verdict: VerificationResult) -> list[Found]:
        """The functions the failing runs' frames in the code ran: first where each
        traceback ends (it raised there), then the frames that led there, innermost
        first."""
        frames = verdict.locations  # every failing traceback, outermost frame first
        code = [n for n, loc in enumerate(frames) if not self.is_check(loc.path)]
        ends = [n for n in code if n + 1 == len(frames) or self.is_check(frames[n + 1].path)]
        out = []
        for n in [*ends, *(n for n in reversed(code) if n not in ends)]:
            unit = self.unit_at(frames[n].path, frames[n].line)
            if unit is not None:
                why = f"the failing run's traceback (line {frames[n].line})"
                out.append(self._found(unit, why))
                if n in ends:
                    out += self.writers(unit, frames[n].line)
        return out

    def writers(self, method: Chunk, line: int) -> list[Found]:
        """The methods of `method`'s class that set an attribute its line `line` reads
        (`self.first(x)` raised: where `self.first` is set)."""
        text = method.text.splitlines()
        if method.kind != "method" or not 0 <= line - method.start < len(text):
            return []
        read = set(_SELF_ATTR.findall(text[line - method.start]))
        if not read:
            return []
        cls = method.name.split(".")[0]
        out = []
        for (path, name), chunk in self.units.items():
            if path != method.path or not name.startswith(cls + ".") or chunk == method:
                continue
            written = _self_writes(chunk.text) & read
            if written:
                why = f"it sets self.{min(written)}, which the failing line reads"
                out.append(self._found(chunk, why))
        return out

    def unit_at(self, path: str, line: int) -> Chunk | None:
        entry = self.index.files.get(path)
        chunks = entry.chunks if entry else []
        inside = [c for c in chunks if c.kind in UNITS and c.start <= line <= c.end]
        return min(inside, key=lambda c: c.end - c.start) if inside else None

    def mentioned(self, task: str) -> list[Found]:
        """The functions the task names as code (by name, or `Class.method`); a name
        that more than AMBIGUOUS methods share (`doc.as_string()`) names none of them."""
        by_name: dict[str, list[Chunk]] = {}
        for (_, name), chunk in self.units.items():
            for key in {name, name.rsplit(".", 1)[-1]}:
                by_name.setdefault(key, []).append(chunk)
        names = [n for n in code_mentions(task, sorted(by_name)) if not _shared(by_name[n])]
        return [self._found(c, "the task names it") for n in names for c in by_name[n]]

    def failing_tests(self, verdict: VerificationResult) -> list[str]:
        """The failing tests as qualified names (`tests.test_x.TestY.test_z`)."""
        ids = [t for e in verdict.failed for t in e.failing_tests]
        out = []
        for test in ids:
            path, _, rest = test.partition("::")
            if rest:
                out.append(f"{module_name(path)}.{rest.split('[')[0].replace('::', '.')}")
            elif self._is_test(test):  # unittest's id: tests.test_x.T.test_y
                out.append(test)
        for loc in verdict.locations:  # the test frames of a traceback
            if self.is_check(loc.path) and loc.function and loc.function != "<module>":
                owner = self.index.files.get(loc.path)
                for d in owner.defs if owner else []:
                    if d.qualname.rsplit(".", 1)[-1] == loc.function and d.line <= loc.line:
                        out.append(d.qualname)
        return list(dict.fromkeys(out))

    def _is_test(self, name: str) -> bool:
        """A dotted name that is a test of the check's (not a word a program printed
        after FAILED)."""
        return "." in name and any(self.is_check(d.path) for d in self.index.definitions(name))

    def sources(self, tests: list[str]) -> list[str]:
        """The source of the failing tests (for the search)."""
        out = []
        for qualname in tests:
            for d in self.index.definitions(qualname):
                entry = self.index.files.get(d.path)
                name = d.qualname.removeprefix(module_name(d.path) + ".")
                out += [c.text for c in entry.chunks if c.name == name] if entry else []
        return out

    def failing_lines(self, verdict: VerificationResult | None) -> set[tuple[str, int]]:
        """Where the failing tests stopped: the check's own lines in the tracebacks."""
        locations = verdict.locations if verdict is not None else []
        return {(loc.path, loc.line) for loc in locations if self.is_check(loc.path)}

    def selected(self, sources: list[str]) -> list[Found]:
        """The module functions a failing test selects by a key of a module's table."""
        paths = sorted({path for path, _ in self.units})
        found = selected_by_key(paths, self.read, sources, self.units) if self.read else []
        why = "the failing test selects it by {!r}"
        return [self._found(self.units[(p, name)], why.format(key)) for p, key, name in found]

    def called_by(
        self, tests: list[str], failing: set[tuple[str, int]], selected: list[Found] = ()
    ) -> list[Found]:
        """The code the failing tests call, breadth first through the call graph; what
        a test calls on the line it failed at (`failing`) comes first, what it selects
        by a key (`selected`) right after what it calls itself."""
        out: list[Found] = []
        seen: set[str] = set(tests)
        frontier = list(tests)
        for depth in range(1, CALL_DEPTH + 1):
            reached = []
            for caller in frontier:
                calls = self.index.callees(caller)
                for call in sorted(calls, key=lambda c: (c.path, c.line) not in failing):
                    for target in self.resolver.targets(call.callee):
                        if target.qualname in seen:
                            continue
                        seen.add(target.qualname)
                        reached.append(target.qualname)
                        unit = self._unit_of(target)
                        why = "the failing test calls it" + ("" if depth == 1 else " (indirectly)")
                        if unit is not None:
                            out.append(self._found(unit, why))
            for item in selected if depth == 1 else []:  # once, and followed like a call
                qualname = f"{module_name(item.path)}.{item.name}"
                if qualname not in seen:
                    seen.add(qualname)
                    reached.append(qualname)
                    out.append(item)
            frontier = reached
        return out

    def searched(self, query: str) -> list[Found]:
        """The code's functions BM25 ranks for `query`, the best SEARCH_DEPTH. The search
        reads deeper until it has them: the failing tests' own source is part of the
        query, so the tests' code (never a result) fills the first places."""
        if not query.strip():
            return []
        depth, everything = SEARCH_DEPTH, len(self.index.chunks)
        while True:
            hits = self.index.search(query, depth, mode="bm25")
            units = [u for h in hits if (u := self.units.get((h.chunk.path, h.chunk.name)))]
            if len(units) >= SEARCH_DEPTH or depth >= everything or len(hits) < depth:
                break
            depth *= 4
        return [self._found(u, "its words are the failure's") for u in units[:SEARCH_DEPTH]]

    def _unit_of(self, target: Definition) -> Chunk | None:
        """The function or method chunk a definition is (a class: its `__init__`; a
        nested function: the one it is in)."""
        name = target.qualname.removeprefix(module_name(target.path) + ".")
        parts = name.split(".")
        for candidate in [
            f"{name}.__init__",
            *(".".join(parts[:n]) for n in range(len(parts), 0, -1)),
        ]:
            if (unit := self.units.get((target.path, candidate))) is not None:
                return unit
        return None

    @staticmethod
    def _found(chunk: Chunk, why: str) -> Found:
        return Found(chunk.path, chunk.name, chunk.start, why, chunk.end)


def _fused(called: list[Found], searched: list[Found]) -> list[list[Found]]:
    """The call graph's ranking and the search's, fused by reciprocal rank."""
    keys = list(dict.fromkeys((f.path, f.name) for f in [*called, *searched]))
    number = {key: n for n, key in enumerate(keys)}
    items = {(f.path, f.name): f for f in [*searched, *called]}  # the call graph's why wins
    order = fuse([[number[(f.path, f.name)] for f in r] for r in (called, searched)])
    return [[items[keys[i]] for i in order]]


def error_lines(verdict: VerificationResult | None) -> list[str]:
    """The failure's error lines (pytest's `E ...`, a traceback's last line)."""
    if verdict is None:
        return []
    lines = [ln for e in verdict.failed for ln in e.feedback.splitlines()]
    return [ln for ln in lines if ln.startswith("E ") or _RAISED.match(ln)]


def _self_writes(method: str) -> set[str]:
    """The attributes of `self` a method's source assigns (`self.a = `, `self.a += `,
    `self.a, self.b = `)."""
    try:  # a method's lines are indented: a block under `if 1:` (a string may not be)
        tree = ast.parse("if 1:\n" + method)
    except SyntaxError:  # a method cut at the chunk's size
        return set()
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def _shared(chunks: list[Chunk]) -> bool:
    """Whether a name is a method name more than AMBIGUOUS methods share."""
    return len(chunks) > AMBIGUOUS and all(c.kind == "method" for c in chunks)


def named_first(tests: list[str], task: str) -> list[str]:
    """The failing tests the task names (`tests/test_x.py::test_y fails`), if it names
    any: another test failing beside them (a flaky one) is not what it is about."""
    words = set(re.findall(r"\w+", task))
    named = [t for t in tests if t.rsplit(".", 1)[-1] in words]
    return named or tests
