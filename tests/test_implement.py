"""Code with functions that have no body yet: the first prompt asks for their bodies
(not a bug fix against "got nothing"), the way the bare model answers best (unit tests of
the stub finder; whole-graph runs with a scripted model, real files and processes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import whole_file
from test_graph import PLAN, Run

from codur.edits.stubs import unimplemented
from codur.graph.attempts import exercised_stubs, unimplemented_in

STUB = '''def median(values: list) -> float:
    """Return the median of the values.
    >>> median([3, 1, 2])
    2
    >>> median([4, 1, 3, 2])
    2.5
    """
'''
BODY = """    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
"""


def test_bodies_of_placeholders_are_stubs_and_a_lone_pass_is_not() -> None:
    source = '''import abc
from typing import Protocol


def documented():
    """Only a docstring."""


def marked():
    ...


def raising(x):
    raise NotImplementedError("later")


def deliberate_noop():
    pass


def done():
    return 1


class Shape:
    def area(self):
        """The area."""
        pass

    @abc.abstractmethod
    def abstract(self):
        """Subclasses say."""


class Reader(Protocol):
    def read(self) -> str: ...
'''
    assert unimplemented(source) == ["documented", "marked", "raising", "Shape.area"]
    assert unimplemented("def broken(:\n") == []


def test_interfaces_and_base_classes_have_no_stubs() -> None:
    """Empty methods by design: a generic Protocol's, an abstract property, and a base
    class's `raise NotImplementedError` that a subclass in the file overrides."""
    source = '''import abc
from typing import Protocol, TypeVar

T = TypeVar("T")


class Reader(Protocol[T]):
    def read(self) -> T:
        """Read one."""


class Sized:
    @abc.abstractproperty
    def size(self):
        """The size."""


class Shape:
    def area(self):
        raise NotImplementedError


class Square(Shape):
    def area(self):
        return 1


class Later:
    def todo(self):
        raise NotImplementedError
'''
    assert unimplemented(source) == ["Later.todo"]
    assert unimplemented_in("tests/test_later.py", "def test_todo():\n    ...\n") == []


@pytest.mark.slow
def test_a_stub_the_examples_do_not_check_leaves_a_fix_with_its_failure(tmp_path: Path) -> None:
    """Fixing `add` in a file that also has an unwritten method: the failure of add's
    example is the evidence, and the prompt is a fix, not "write the body of Later.todo"."""
    later = "\n\nclass Later:\n    def todo(self):\n        raise NotImplementedError\n"
    add = 'def add(a, b):\n    """Sum.\n    >>> add(2, 3)\n    5\n    """\n    return a - b\n'
    run = Run(
        tmp_path,
        [PLAN, whole_file("util.py", add.replace("a - b", "a + b") + later)],
        task="fix the bug in add in @util.py",
        files={"util.py": add + later},
    )
    assert run.result.status == "checked", run.result.message
    first = run.kinds("model.request")[1]["messages"][-1]["content"]
    assert "write the body" not in first
    assert ">>> add(2, 3) should give 5" in first and "got -1" in first


@pytest.mark.slow
def test_the_first_prompt_for_a_stub_asks_for_its_body_without_got_nothing(
    tmp_path: Path,
) -> None:
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", STUB + BODY)],
        task="implement @solution.py",
        files={"solution.py": STUB},
    )
    assert run.result.status == "checked", run.result.message
    first = run.kinds("model.request")[1]["messages"][-1]["content"]
    assert "write the body of `median`, which has none yet" in first
    assert "Reply with the complete file in one ```python block." in first
    assert "got nothing" not in first and "one sentence" not in first
    assert (run.root / "solution.py").read_text() == STUB + BODY


@pytest.mark.slow
def test_a_retry_after_a_wrong_body_is_a_fix_with_the_failure(tmp_path: Path) -> None:
    wrong = BODY.replace(") / 2", ") // 2")
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", STUB + wrong), whole_file("solution.py", STUB + BODY)],
        task="implement @solution.py",
        files={"solution.py": STUB},
    )
    assert run.result.status == "checked" and run.result.model_calls == 3
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "write the body" not in retry  # it has one now: the coder_task prompt
    assert "should give 2.5" in retry and "got 2" in retry


@pytest.mark.slow
def test_with_tests_the_stub_prompt_keeps_the_failure(tmp_path: Path) -> None:
    test = "from solution import median\n\n\ndef test_even():\n    assert median([1, 2]) == 1.5\n"
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", STUB + BODY)],
        task="implement @solution.py so that the tests pass",
        files={"solution.py": STUB, "test_solution.py": test},
    )
    first = run.kinds("model.request")[1]["messages"][-1]["content"]
    assert "write the body of `median`" in first
    assert "test_even" in first  # the tests say what the docstring does not
    assert run.result.status == "verified", run.result.message


@pytest.mark.slow
def test_a_fresh_draw_from_a_stub_is_asked_for_its_body(tmp_path: Path) -> None:
    """Sampling after a wrong body draws some candidates from the file as found: for a
    stub that is the implement prompt (as the first attempt), not a fix of "got nothing"
    (HumanEval/26: every fresh draw was asked to fix the stub, none got it)."""
    wrong = BODY.replace(") / 2", ") // 2")
    replies = [
        whole_file("solution.py", STUB + wrong),  # the first attempt: 2.5 comes out as 2
        whole_file("solution.py", STUB + wrong.replace("// 2", "// 3")),  # revised: wrong
        whole_file("solution.py", STUB + BODY),  # fresh: right
    ]
    run = Run(
        tmp_path,
        [PLAN, *replies],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["sampling.candidates=2"],
    )
    assert run.result.status == "checked", run.result.message
    sampled = run.kinds("sample.candidate")
    assert [(c["fresh"], c["status"]) for c in sampled] == [(False, "failed"), (True, "passed")]
    revise, fresh = (r["messages"][-1]["content"] for r in run.kinds("model.request")[2:4])
    assert "write the body" not in revise and "got 2" in revise
    assert "write the body of `median`, which has none yet" in fresh
    assert "got nothing" not in fresh and "// 2" not in fresh
    assert "got 2" in fresh  # what the earlier attempt did, so as not to do it again


def test_methods_a_class_docstring_exercises_are_its_stubs() -> None:
    """`>>> s = Stack(); s.push(1)` in the class docstring checks push and pop (found by
    review: only `Stack` counted, so neither was asked for)."""
    source = '''class Stack:
    """A stack.
    >>> s = Stack(); s.push(1); s.pop()
    1
    """

    def push(self, x):
        raise NotImplementedError

    def pop(self):
        raise NotImplementedError
'''
    stubs = {"s.py": ("Stack.push", "Stack.pop")}
    assert exercised_stubs({"s.py": source}, stubs) == (stubs, True)
    logged = "import logging\n\n\nclass Formatter(logging.Formatter):\n"
    logged += "    def format(self, r):\n        ...\n"
    assert unimplemented(logged) == ["Formatter.format"]  # its base is not in the file
