"""The helpers of generated derived tests (codur/verify/derived_checks.py). Their source is
copied at the top of every generated test file, so the file alone is the check: this
module imports nothing from codur and runs on the project's Python with pytest.

A module is loaded with its program left out: top-level expression statements
(`print(...)`, `main()`), loops and the `if __name__ == "__main__":` block do not run;
imports, definitions, assignments and other statements do (an assignment that reads input
still runs, and fails the check with its error). Checking `total(1, 5)` must not run the
script around it, which may print, read input or loop forever.
"""

from __future__ import annotations

import ast
import doctest
import os
import sys
import traceback
import types
from collections.abc import Callable

_LOADED: dict[str, types.ModuleType] = {}


def _runs_program(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Expr, ast.For, ast.AsyncFor, ast.While)):
        return True
    test = ast.dump(node.test) if isinstance(node, ast.If) else ""
    return "'__name__'" in test and "'__main__'" in test


def load(path: str) -> types.ModuleType:
    """The module in `path` (relative to the workspace, the current folder), its program
    left out; registered under its dotted name unless that name is taken."""
    __tracebackhide__ = True
    file = os.path.abspath(path)
    if file in _LOADED:
        return _LOADED[file]
    parts = os.path.splitext(os.path.normpath(path))[0].split(os.sep)
    package = parts[-1] == "__init__"
    dotted = ".".join(parts[:-1] if package else parts)
    with open(file, "rb") as fh:  # its declared encoding (PEP 263), as Python reads it
        tree = ast.parse(fh.read(), file)
    tree.body = [node for node in tree.body if not _runs_program(node)]
    module = types.ModuleType(dotted)
    module.__file__ = file
    module.__package__ = dotted if package else dotted.rpartition(".")[0]
    if package:
        module.__path__ = [os.path.dirname(file)]
    registered = sys.modules.setdefault(dotted, module) is module
    try:
        exec(compile(tree, file, "exec"), module.__dict__)
    except BaseException:
        if registered:
            del sys.modules[dotted]
        raise
    _LOADED[file] = module
    return module


def check_call(path: str, call: str, expected: str, op: str, origin: str) -> None:
    """`call`, evaluated among the module's names, gives `expected` (`==`, `is`, or
    `truthy`: a value whose truth is `expected`)."""
    __tracebackhide__ = True
    namespace = dict(vars(load(path)))
    want = ast.literal_eval(expected)
    value = f"a {expected.lower()} value" if op == "truthy" else expected
    claim = f"{call} should return {value} ({origin})"
    try:
        got = eval(compile(call, f"<{origin}>", "eval"), namespace)
    except Exception as exc:
        raise AssertionError(f"{claim}: raised {type(exc).__name__}: {exc}") from exc
    seen = bool(got) if op == "truthy" else got
    same = seen == want if op == "==" else seen is want
    if not same:
        raise AssertionError(f"{claim}: got {got!r}")


def _without_doctest_frames(text: str) -> str:
    """A traceback doctest printed, without the frame of doctest's own module."""
    lines = text.split("\n")
    kept, skipping = [], False
    for line in lines:
        if line.startswith("  File "):
            skipping = os.path.basename(doctest.__file__) in line
        if not (skipping and line.startswith("  ")):
            kept.append(line)
    return "\n".join(kept)


def _same(a: object, b: object) -> bool:
    """Equal values of the same types, all the way down (`True` is not `1`, `2.0` not `2`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, set | frozenset):
        return {_typed(x) for x in a} == {_typed(y) for y in b}
    if isinstance(a, dict):
        typed = {_typed(k): k for k in b}
        keys = {_typed(k): k for k in a}
        return keys.keys() == typed.keys() and all(_same(a[keys[t]], b[typed[t]]) for t in keys)
    return a == b


def _typed(value: object) -> object:
    """A hashable value with its types, all the way down: `{1}` and `{1.0}` differ."""
    if isinstance(value, tuple | frozenset):
        return type(value).__name__, type(value)(_typed(v) for v in value)
    return type(value).__name__, value


def claimed(example: doctest.Example) -> str:
    """The output `example` expects: its own, or `True` for a comparison (or `not`, or
    comparisons joined by and/or) with no output written under it (`>>> count([1]) == 1`).
    A comparison sets nothing up, so the docstring claims it holds; doctest itself would
    want no output and fail the right code, which prints `True`."""
    if example.want:
        return example.want
    try:
        body = ast.parse(example.source).body
    except SyntaxError:
        return example.want
    claim = len(body) == 1 and isinstance(body[0], ast.Expr) and _claim(body[0].value)
    return "True\n" if claim else example.want


def _claim(node: ast.expr) -> bool:
    """A comparison, a `not`, or comparisons joined by `and`/`or`: a claim it holds."""
    if isinstance(node, ast.BoolOp):
        return all(_claim(v) for v in node.values)
    return isinstance(node, ast.Compare) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
    )


class _ValueChecker(doctest.OutputChecker):
    """Doctest's comparison of text, and also of values: an example whose expected output
    and actual output are Python literals of the same value passes (`"21"` written for
    the `'21'` Python prints, a set or dict in another order)."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        try:
            return _same(ast.literal_eval(want.strip()), ast.literal_eval(got.strip()))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False  # not literals: the text is the output


class _Recorder(doctest.DocTestRunner):
    """A doctest runner that keeps what went wrong instead of printing it."""

    def __init__(self) -> None:
        super().__init__(checker=_ValueChecker(), verbose=False)
        self.problems: list[tuple[doctest.Example, str]] = []

    def report_start(
        self, out: Callable[[str], object], test: doctest.DocTest, example: doctest.Example
    ) -> None:
        return None

    def report_success(
        self,
        out: Callable[[str], object],
        test: doctest.DocTest,
        example: doctest.Example,
        got: str,
    ) -> None:
        return None

    def report_failure(
        self,
        out: Callable[[str], object],
        test: doctest.DocTest,
        example: doctest.Example,
        got: str,
    ) -> None:
        got = _without_doctest_frames(got.rstrip())
        self.problems.append((example, f"got {got}" if got else "got nothing"))

    def report_unexpected_exception(
        self,
        out: Callable[[str], object],
        test: doctest.DocTest,
        example: doctest.Example,
        exc_info: tuple[type[BaseException], BaseException, types.TracebackType],
    ) -> None:
        kind, exc, tb = exc_info
        shown = "".join(traceback.format_exception(kind, exc, tb.tb_next if tb else None))
        self.problems.append((example, f"raised {kind.__name__}: {exc}\n{shown.rstrip()}"))


def check_example(path: str, name: str, docstring: str, index: int, line: int) -> None:
    """The `index`-th example of `docstring` (of `name`, at `line` of `path`) gives its
    output by the doctest rules (or a literal of the same value), after the examples
    before it ran as its setup."""
    __tracebackhide__ = True
    module = load(path)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(docstring, dict(vars(module)), name, module.__file__, 0)
    for each in test.examples:
        each.want = claimed(each)
    example = test.examples[index]
    test.examples = test.examples[: index + 1]
    runner = _Recorder()
    runner.run(test, out=lambda text: None, clear_globs=True)
    want = example.want.rstrip() or "nothing"
    shown = f">>> {example.source.strip()}"
    where = f"example in the docstring of {name}, {path} line {line}"
    for failed, what in runner.problems:
        if failed is example and "\n" in want:
            indented = "\n".join(f"    {w}" for w in want.split("\n"))
            raise AssertionError(f"{shown} ({where}) should give:\n{indented}\n{what}")
        if failed is example:
            raise AssertionError(f"{shown} should give {want} ({where}): {what}")
        if what.startswith("raised"):
            setup = f">>> {failed.source.strip()}"
            raise AssertionError(f"{setup}, run before {shown} ({where}): {what}")
