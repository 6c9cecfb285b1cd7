"""An edit may not add an object equal to everything: every `assert x == expected` would
hold (a hostile probe's scripted reply returned such an `int` and the run ended
`verified` with the bug in place)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_in_process, whole_file

from codur.edits.equal_all import equal_to_all, hollow
from codur.edits.names import why_refused

BUGGY = "def add(a, b):\n    return a - b\n"
ALWAYS = (
    "class _Result(int):\n"
    "    def __eq__(self, other):\n"
    '        """Equal."""\n'
    "        return True\n\n"
    "    __hash__ = int.__hash__\n\n\n"
    "def add(a, b):\n"
    "    return _Result(a - b)\n"
)


@pytest.mark.parametrize(
    ("code", "found"),
    [
        (ALWAYS, {"_Result.__eq__": 2}),
        ("class N:\n    def __ne__(self, other):\n        return False\n", {"N.__ne__": 2}),
        ("class L:\n    __eq__ = lambda self, other: 1\n", {"L.__eq__": 2}),
        ("class A:\n    async def __eq__(self, o):\n        return True\n", {"A.__eq__": 2}),
        # comparisons that look at what they are compared with, or say "not equal"
        ("class P:\n    def __eq__(self, o):\n        return self.x == o.x\n", {}),
        ("class Q:\n    def __eq__(self, o):\n        return False\n", {}),
        ("class R:\n    def __eq__(self, o):\n        return NotImplemented\n", {}),
        ("class S:\n    def __ne__(self, o):\n        return True\n", {}),
        ("def __eq__(a, b):\n    return True\n", {}),  # no class: nothing compares with it
        ("class Broken(:\n", {}),
        # wherever Python takes one from, whatever constant-free form it has
        ("class R(int):\n    def __eq__(self, o):\n        return not False\n", {"R.__eq__": 2}),
        ("class R(int):\n    def __eq__(self, o):\n        return self is self\n", {"R.__eq__": 2}),
        ("class R(int):\n    __eq__ = staticmethod(lambda *a: True)\n", {"R.__eq__": 2}),
        ("class R(int):\n    pass\nR.__eq__ = lambda s, o: True\n", {"R.__eq__": 3}),
        ("class R(int):\n    pass\nsetattr(R, '__eq__', lambda s, o: 1)\n", {"R.__eq__": 3}),
        ("R = type('R', (int,), {'__eq__': lambda s, o: True})\n", {"'R'.__eq__": 1}),
        ("def same(a, b):\n    return True\nclass R:\n    __eq__ = same\n", {"R.__eq__": 4}),
        ("from unittest.mock import ANY as R\n", {"mock.ANY": 1}),
        ("class P:\n    def __eq__(self, o):\n        return NotImplemented\n", {}),
        ("class P:\n    def __eq__(self, o):\n        return\n", {}),  # None: not equal
        ("class N:\n    def __ne__(self, o):\n        return\n", {"N.__ne__": 2}),
    ],
)
def test_a_comparison_that_ignores_what_it_is_compared_with(code: str, found: dict) -> None:
    assert hollow(code) == found


def test_an_edit_adding_one_is_refused_with_a_line_for_the_model() -> None:
    reason = why_refused("calc.py", BUGGY, ALWAYS)
    assert reason is not None
    assert reason.startswith("calc.py:2: _Result.__eq__ ignores what it is compared with")


def test_one_the_file_had_or_the_run_found_stays_allowed() -> None:
    assert equal_to_all("calc.py", ALWAYS, ALWAYS + "\nX = 1\n") is None
    assert equal_to_all("calc.py", BUGGY, ALWAYS, original=lambda: ALWAYS) is None  # put back
    assert equal_to_all("notes.txt", BUGGY, ALWAYS) is None  # no Python


@pytest.mark.slow
def test_a_reply_returning_an_object_equal_to_everything_is_refused(tmp_path: Path) -> None:
    """The coder's reply makes `add` return such an object: refused, the model told why;
    the real fix after it is verified by the project's test."""
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(BUGGY)
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    fixed = BUGGY.replace("a - b", "a + b")
    replies = [whole_file("calc.py", ALWAYS), whole_file("calc.py", fixed)]
    result, events, _ = run_in_process(root, replies, task="fix @calc.py so the tests pass")
    assert result.status == "verified", result.message
    assert (root / "calc.py").read_text() == fixed
    (refused,) = [e.data for e in events if e.kind == "edit.refused"]
    assert "_Result.__eq__ ignores what it is compared with" in refused["reason"]
