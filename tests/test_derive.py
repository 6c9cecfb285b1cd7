"""Reading what a task and the docstrings state: only explicit statements, else nothing."""

from __future__ import annotations

import ast

import pytest

from codur.verify.statements import (
    CallClaim,
    DocExample,
    doctest_examples,
    stated_calls,
    stated_output,
    stated_values,
)
from codur.verify.values import shortfall


@pytest.mark.parametrize(
    ("task", "output"),
    [
        ("fix @main.py: the output should be total(1, 5) == 15", "total(1, 5) == 15"),
        ("fix @main.py: the output should be `total(1, 5) == 15`.", "total(1, 5) == 15"),
        ("make it print 'Hello, World!'", "Hello, World!"),
        ('it should print "done"', "done"),
        ("It should output Total: 15. Also rename x.", "Total: 15"),
        ("expected output: 42", "42"),
        ("The expected output is [1, 2, 3]", "[1, 2, 3]"),
        ("so that it prints 3.5.", "3.5"),
        ("Expected output:\n```\n1\n2\n3\n```\nthanks", "1\n2\n3"),
        ("the program must print:\n```text\nA\nB\n```", "A\nB"),
        ("it should print True", "True"),
    ],
)
def test_stated_output(task: str, output: str) -> None:
    assert stated_output(task) == output


@pytest.mark.parametrize(
    "task",
    [
        "it should print the sum of the list",  # a description, not output
        "the script prints 14",  # what it does now, not a requirement
        "should print 15, not 14",  # prose around it: unsure
        "the output should be 15 and it should print 16",
        "the output should be 15. It should print 16.",  # two statements disagree
        "```python\nprint('to print')\n```",  # a phrase inside code is code
        "Expected output:\n15",  # a value on the next line needs a fenced block
        "fix the bug in @main.py",
    ],
)
def test_no_stated_output(task: str) -> None:
    assert stated_output(task) is None


DEFINED = {"total": "main.py", "is_leap": "dates/leap.py"}


@pytest.mark.parametrize(
    ("task", "claims"),
    [
        ("total(1, 5) should return 15", [("total(1, 5)", "15", "==")]),
        ("total(1, 5) must be equal to 15", [("total(1, 5)", "15", "==")]),
        ("Make sure total(1, 5) == 15.", [("total(1, 5)", "15", "==")]),
        ("total(1, 5) returns 15", [("total(1, 5)", "15", "==")]),
        ("total(1, 5) ➞ 15", [("total(1, 5)", "15", "==")]),
        ("total([1, 2.5], b=3) -> 6.5", [("total([1, 2.5], b=3)", "6.5", "==")]),
        ("total(0, 0) = 'none'", [("total(0, 0)", "'none'", "==")]),
        ("is_leap(1900) is False", [("is_leap(1900)", "False", "is")]),
        ("is_leap(2000) should be True", [("is_leap(2000)", "True", "==")]),
        # HumanEval/76, 79, 141: JSON's booleans, a comment after a call written as code
        ("is_leap(2000) => true", [("is_leap(2000)", "True", "truthy")]),
        ("is_leap(1900) => false.", [("is_leap(1900)", "False", "truthy")]),
        ("is_leap(2000)  # is True", [("is_leap(2000)", "True", "is")]),
        # a sentence's comma ends a value: 15, not the tuple (15,)
        (
            "total(1, 5) -> 15, then total(1, 2) -> 3",
            [("total(1, 5)", "15", "=="), ("total(1, 2)", "3", "==")],
        ),
        ('total(1, 5)  # returns "15"', [("total(1, 5)", '"15"', "==")]),
        ("total(1, 5) # => 'Yes' (it is)", [("total(1, 5)", "'Yes'", "==")]),
        ('total(1, 5) ==> ("a", "b")', [("total(1, 5)", '("a", "b")', "==")]),
        ("total(1, 5) ==> ()", [("total(1, 5)", "()", "==")]),
        (
            "total(1, 5) == 15 and total(2, 3) == 5",
            [("total(1, 5)", "15", "=="), ("total(2, 3)", "5", "==")],
        ),
        # a description of the bug, corrected in the same or the next sentence
        ("total(1, 5) returns 14 but should return 15", [("total(1, 5)", "15", "==")]),
        ("total(1, 5) returns 14. It should return 15.", [("total(1, 5)", "15", "==")]),
        ("is_leap(1900) returns True; it must be False", [("is_leap(1900)", "False", "==")]),
        # requirements win over descriptions
        ("total(1, 5) should be 15; today total(1, 5) gives 14.", [("total(1, 5)", "15", "==")]),
        # markdown code spans, as the README writes the claim
        ("`total(1, 5)` should return 15", [("total(1, 5)", "15", "==")]),
        ("`total(1, 5)` should return `15`.", [("total(1, 5)", "15", "==")]),
        ("`is_leap(2000)` => `true`", [("is_leap(2000)", "True", "truthy")]),
    ],
)
def test_stated_calls(task: str, claims: list[tuple[str, str, str]]) -> None:
    found = stated_calls(task, DEFINED)
    assert [(c.call, c.expected, c.op) for c in found] == claims
    assert all(c.path == DEFINED[c.call.split("(")[0]] for c in found)
    assert all(c.origin == "stated in the task" for c in found)


@pytest.mark.parametrize(
    "task",
    [
        "the output should be total(1, 5) == 15",  # output text, not a claim
        "`total(1, 5)` should return `15 + 1`",  # an expression in the span
        "total(1, 5) returns 14 instead of 15",  # which one is wanted? unsure
        "is_leap(1900) is True, but 1900 is not a leap year",
        "total(1, 5) returns 14. It should be faster.",
        "total(a, b) should return the sum",  # not literal: nothing to evaluate
        "total(1, 5) should return 1 + 14",  # an expression, not a value
        "print(1, 5) should return 15",  # not a function of the folder
        "obj.total(1, 5) == 15",  # a method of something
        "total(1, 5) should be 15, total(1, 5) should be 16",  # they disagree
        "is_leap(2000) is true for leap years",  # prose, not a value
        "total(1, 5) => true + 1",
        "total(1, 5) => trueish",
        "total(1, 5) # a comment: 15",
        'total(1, 5) ==> ("Venus")',  # HumanEval/148: a one-tuple without its comma?
        "total(1, 5)  # -> 3 attempts, then raises",  # the value does not end the comment
        "total(1, 5) -> [0, 1, 1, 2, ...]",  # and so on: no value
        "total(1, 5)  # => [0, 1, 1, 2, ...]",
    ],
)
def test_no_stated_calls(task: str) -> None:
    assert stated_calls(task, DEFINED) == []


STATS = '''"""Statistics."""


def mean(xs):
    """The mean.

    >>> mean([1, 2, 3])
    2.0
    >>> data = [2, 4]
    >>> mean(data)
    3.0
    """
    return sum(xs) / len(xs)


def median(xs):
    """The middle value.

    For example:
        median([3, 1, 2]) == 2
        median([1, 2, 3, 4]) ➞ 2.5
        median([5]) -> 5
    but median(xs) is not defined for an empty list.
    """
    return sorted(xs)[len(xs) // 2]


class Stack:
    def push(self, x):
        """Add x.

        >>> s = Stack()
        >>> s.push(1)
        >>> s.items
        [1]
        """
'''


def test_docstring_examples_of_named_functions() -> None:
    found = doctest_examples({"stats.py": STATS}, ["mean"])
    assert all(isinstance(e, DocExample) and e.function == "mean" for e in found)
    assert [(e.source, e.want, e.index, e.line) for e in found] == [
        ("mean([1, 2, 3])\n", "2.0\n", 0, 7),
        ("data = [2, 4]\n", "", 1, 9),
        ("mean(data)\n", "3.0\n", 2, 10),
    ]
    assert found[0].docstring.startswith("The mean.")
    methods = doctest_examples({"stats.py": STATS}, ["Stack.push"])
    assert [(e.function, e.source) for e in methods][-1] == ("Stack.push", "s.items\n")


def test_humaneval_style_lines_in_a_docstring() -> None:
    found = doctest_examples({"stats.py": STATS}, ["median"])
    assert found == [
        CallClaim("stats.py", call, value, "==", "example in the docstring of median, stats.py")
        for call, value in [
            ("median([3, 1, 2])", "2"),
            ("median([1, 2, 3, 4])", "2.5"),
            ("median([5])", "5"),
        ]
    ]


def test_no_names_means_every_function_of_the_sources() -> None:
    functions = {getattr(e, "function", "median") for e in doctest_examples({"s.py": STATS})}
    assert functions == {"mean", "median", "Stack.push"}
    assert doctest_examples({"s.py": STATS}, ["variance"]) == []
    assert doctest_examples({"broken.py": "def f(:\n"}) == []


UNPARSABLE = '''
def remove_vowels(text):
    """Drop the vowels.
    >>> remove_vowels('ab')
    'b'
    >>> remove_vowels("abcdef\\nghijklm")
    'bcdf\\nghjklm'
    >>> remove_vowels('zbcd')
    'zbcd'
    """


def keep(text):
    """Keep it.
    >>> keep('a')
    'a'
    """
'''


def test_examples_doctest_cannot_parse_are_left_out_not_fatal() -> None:
    """HumanEval/51: a "\\n" inside an example's string splits it across two lines, which
    doctest's parser refuses (ValueError); the docstring's other examples still count, with
    their own line numbers, run from a text that holds only them."""
    found = doctest_examples({"solution.py": UNPARSABLE})
    assert [(e.function, e.source, e.index) for e in found] == [
        ("remove_vowels", "remove_vowels('ab')\n", 0),
        ("remove_vowels", "remove_vowels('zbcd')\n", 1),
        ("keep", "keep('a')\n", 0),
    ]
    assert (found[0].line, found[2].line) == (4, 15)
    assert "abcdef" not in found[0].docstring and "zbcd" in found[0].docstring


def test_after_a_refused_example_one_using_a_name_it_may_have_set_is_left_out() -> None:
    """The refused block may have been the setup (`s = "a<newline>b"`): an example using a
    name neither the module nor the kept examples define is left out; others stay."""
    source = (
        "import math\n\ndef count_lines(s):\n"
        '    """Count.\n    >>> s = "a\nb"\n    >>> count_lines(s)\n    2\n'
        '    >>> count_lines(str(math.pi))\n    1\n    >>> t = "x"\n    >>> count_lines(t)\n    1\n'
        '    >>> sorted([2, 1], key=lambda v: -v)\n    [2, 1]\n    """\n'
    )
    found = doctest_examples({"m.py": source})
    assert [e.source for e in found] == [
        "count_lines(str(math.pi))\n",
        't = "x"\n',
        "count_lines(t)\n",
        "sorted([2, 1], key=lambda v: -v)\n",
    ]


PROGRAM = ast.parse('PLAYERS = [("bo", 7), ("cy", 9), ("al", 7)]\nLABEL = "pass"\nprint("Total")')


@pytest.mark.parametrize(
    ("task", "values"),
    [
        ("fix it so the output should be cy 9, al 7, bo 7", "cy 9, al 7, bo 7"),
        ("fix @main.py: ties by name. It should print cy 9, al 7", "cy 9, al 7"),
        ("for an empty list it should print cy 0, al 0", None),  # a condition: one case
        ("`python main.py x` should print cy 9, al 7", None),
        ("3 should print cy 9, al 7", None),
        ("It should print cy 9 and al 7.", None),  # "and" is no value of the program
        ("a score of 90 should print pass", None),  # a lone word is prose
        ("the output should be cy al bo", None),  # words alone: prose
        ("the output should be cy 9, al 7. It should print bo 7, al 7.", None),  # disagree
        ("the output should be 'cy 9, al 7'", None),  # quoted: exact, stated_output's
        ("the output should be Total: 15", None),  # exact (no letter-only word but Total)
    ],
)
def test_stated_values(task: str, values: str | None) -> None:
    assert stated_values(task, {"main.py": PROGRAM}) == values


@pytest.mark.parametrize(
    ("stated", "output", "held"),
    [
        ("cy 9, al 7", "cy 9, al 7", True),
        ("cy 9, al 7", "Ranking\ncy: 9\nal: 7\n", True),  # a line each, under a title
        ("cy 9, al 7", "1. cy: 9\n2. al: 7\n", False),  # a value between: not together
        ("cy 9, al 7", "in: al 7, cy 9\nout: cy 9, bo 7, al 7", False),  # scattered
        ("Total 12, count 3", "total: 12\ncount: 3", True),  # case aside
        ("north 1,200, south 950", "north 1200\nsouth 950", True),
        ("north 1,000", "north 1 0", False),
        ("mon \u22123", "mon -3", True),  # a typographic minus
        ("v 1.10.4", "v 1.1.4", False),  # a version is text
        ("at 9:05", "at 9:5", False),  # so is a leading zero
        ("x .5", "x 5", False),
        ("cy 9, al 7", "al 7, cy 9", False),
        ("cy 9, al 7", "cy 9.0 al 7.00", True),
        ("cy 9, al 7", "cy 9, al -7", False),
        ("cy 9, al 7", "cy 9", False),
        ("total -3", "total: -3", True),
        ("total -3", "total: 3", False),
    ],
)
def test_values_in_order_any_layout(stated: str, output: str, held: bool) -> None:
    assert (shortfall(stated, output) == "") is held
