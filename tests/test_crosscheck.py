"""The cross-check of a change only the docstrings' examples checked: probes from the
examples (their calls and mutants), their behaviour in a real program, the choice by
agreement, and whole-graph runs with a scripted model on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import watched_context, whole_file
from test_graph import PLAN, Run

from codur.agents.crosscheck import agreement, choose
from codur.verify.mutate import argument_mutants, mutants
from codur.verify.probe import behaviour, example_calls, probes

STUB = '''def absolute_sum(values: list) -> int:
    """The sum of the absolute values.
    >>> absolute_sum([1, 2])
    3
    >>> absolute_sum([3])
    3
    """
'''
RIGHT = STUB + "    return sum(abs(v) for v in values)\n"
WRONG = STUB + "    return sum(values)\n"  # passes both examples


def test_mutants_are_typed_neighbours_without_the_value_itself() -> None:
    assert mutants(3) == [4, 2, 0, 1, -3]
    assert mutants("ab") == ["", "a", "ba", "aba", "AB"]
    assert mutants([1, 2])[:5] == [[], [1], [2, 1], [1, 2, 1], [2, 2]]
    assert mutants(True) == [False] and mutants(None) == []
    assert list(argument_mutants((1, "a")))[:2] == [(2, "a"), (0, "a")]


def test_probes_are_the_examples_calls_then_mutants_in_turn() -> None:
    source = '''def path(grid, k):
    """Examples:
        Input: grid = [[1, 2], [3, 4]], k = 2
        Output: [1, 2]
    >>> round(path([[5]], 1)[0], 2)
    5
    """
'''
    calls = example_calls({"g.py": source})
    assert [(f, a) for _, f, a in calls] == [("path", ([[5]], 1)), ("path", ([[1, 2], [3, 4]], 2))]
    found = probes({"g.py": source}, 6)
    assert len(found) == 6 and [p.example for p in found] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert found[2].args == "([], 1)" and found[3].args == "([], 2)"  # one mutant of each in turn
    assert probes({"g.py": "def f(x):\n    '''No examples.'''\n"}, 10) == []


def test_behaviour_records_values_exceptions_and_timeouts_in_a_real_program(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text(
        "import time\n\n"
        "def f(x):\n"
        '    """>>> f(2)\n    0.5\n    """\n'
        "    print('noise')\n"
        "    if x < 0:\n        time.sleep(30)\n"
        "    return 1 / x\n\n"
        "print('the program would print this')\n"
    )
    ctx, _ = watched_context(tmp_path)
    found = probes({"m.py": (tmp_path / "m.py").read_text()}, 4)
    assert [p.args for p in found] == ["(2,)", "(3,)", "(1,)", "(0,)"]
    assert behaviour(ctx, found, 0.5) == ["=0.5", "=0.333333", "=1.0", "!ZeroDivisionError"]
    late = [found[0].__class__("m.py", "f", "(-1,)", False)]
    assert behaviour(ctx, late, 0.5) == ["!timeout"]


def test_the_behaviour_most_shared_wins_and_a_tie_keeps_the_first() -> None:
    wrong, right = ["=3", "=3", "=-1"], ["=3", "=3", "=3"]
    assert agreement([wrong, right, right]) == [4, 5, 5]
    assert choose(agreement([wrong, right, right])) == 1
    assert choose(agreement([wrong, right])) == 0 and choose(agreement([right])) == 0
    handles, crash = ["=[1]", "=[]"], ["=[1]", "!IndexError"]
    assert agreement([handles, crash, crash, crash]) == [3, 3, 3, 3]  # a shared crash: no vote
    assert choose(agreement([handles, crash, crash, crash])) == 0


@pytest.mark.slow
def test_a_change_the_other_replies_disagree_with_is_replaced(tmp_path: Path) -> None:
    """The first body passes both examples but sums signed values; of the replies drawn
    from the stub, most take absolute values: theirs is written and verified (one drawn
    reply is the change itself: a vote for it)."""
    drawn = [RIGHT, WRONG, RIGHT, RIGHT]
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", WRONG), *(whole_file("solution.py", d) for d in drawn)],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=4", "crosscheck.enough_agreeing=2"],
    )
    assert run.result.status == "checked", run.result.message
    assert (run.root / "solution.py").read_text() == RIGHT
    end = run.kinds("crosscheck.end")[0]
    assert end["candidates"] == 4 and end["passed"] == 4 and end["chosen"] == 0
    assert "cross-checked on" in run.result.message and "replaced" in run.result.message
    asked = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "write the body of `absolute_sum`" in asked and "sum(values)" not in asked


@pytest.mark.slow
def test_a_repair_of_the_models_change_is_cross_checked_too(tmp_path: Path) -> None:
    """HumanEval/119 and six more of b342262's false verified: the repair search tuned the
    model's failing change until the examples passed (`+ 1` -> `+ 0`, still signed); the
    replies drawn agree on absolute values, so theirs is written."""
    off = STUB + "    return sum(values) + 1\n"
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", off), *(whole_file("solution.py", RIGHT),) * 4],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["repair.enabled=true", "crosscheck.candidates=4"],
    )
    assert run.kinds("repair.end")[-1]["reason"] == "repaired"
    assert run.result.status == "checked", run.result.message
    assert (run.root / "solution.py").read_text() == RIGHT
    assert "replaced" in run.result.message


ONLY_IN_SCRATCH = STUB + (  # right in a scratch copy (folder 0, 1...), wrong in `work`
    "    here = __import__('os').path.dirname(__import__('os').path.abspath(__file__))\n"
    "    return -1 if here.endswith('work') else sum(abs(v) for v in values)\n"
)


@pytest.mark.slow
def test_a_chosen_reply_failing_on_the_real_files_puts_the_change_back(tmp_path: Path) -> None:
    """The replies drawn agree with each other in scratch copies, but the one written fails
    on the real files: the change it replaced, which had passed, is written again and the
    run ends verified on it, saying so."""
    drawn = [ONLY_IN_SCRATCH] * 3
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", WRONG), *(whole_file("solution.py", d) for d in drawn)],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=3", "crosscheck.enough_agreeing=2"],
    )
    assert run.kinds("crosscheck.end")[0]["chosen"] == 0
    writes = [(e["path"], e["by"]) for e in run.kinds("file.write")]
    assert writes[-2:] == [("solution.py", "coder"), ("solution.py", "crosscheck")], writes
    assert run.result.status == "checked", run.result.message
    assert (run.root / "solution.py").read_text() == WRONG
    assert "failed on the real files" in run.result.message
    assert "the change it replaced was put back" in run.result.message
    assert run.result.model_calls == 5  # plan, the change, three replies; none after


@pytest.mark.slow
def test_a_tie_keeps_the_change(tmp_path: Path) -> None:
    drawn = [RIGHT, WRONG, RIGHT]  # the change and one reply against two
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", WRONG), *(whole_file("solution.py", d) for d in drawn)],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=3", "crosscheck.enough_agreeing=0"],
    )
    assert run.result.status == "checked" and (run.root / "solution.py").read_text() == WRONG
    assert run.kinds("crosscheck.end")[0]["chosen"] is None


@pytest.mark.slow
def test_replies_that_agree_end_the_drawing_early_and_the_change_stays(tmp_path: Path) -> None:
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", RIGHT), *[whole_file("solution.py", RIGHT)] * 2],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=4", "crosscheck.enough_agreeing=2"],
    )
    assert run.result.status == "checked", run.result.message
    assert run.result.model_calls == 4  # plan, the change, two agreeing replies
    assert run.kinds("crosscheck.end")[0]["chosen"] is None
    assert "(2 behave the same): kept" in run.result.message


@pytest.mark.slow
def test_a_check_beyond_the_examples_needs_no_cross_check(tmp_path: Path) -> None:
    test = "from solution import absolute_sum\n\n\ndef test_neg():\n"
    test += "    assert absolute_sum([-1]) == 1\n"
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", RIGHT)],
        task="implement @solution.py so that the tests pass",
        files={"solution.py": STUB, "test_solution.py": test},
        overrides=["crosscheck.candidates=4"],
    )
    assert run.result.status == "verified" and run.kinds("crosscheck.end") == []


@pytest.mark.slow
def test_a_model_failing_while_drawing_leaves_the_change_checked(tmp_path: Path) -> None:
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", RIGHT), whole_file("solution.py", RIGHT)],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=4", "crosscheck.enough_agreeing=0"],
    )
    assert run.result.status == "checked" and run.result.exit_code == 10
    assert "drawing stopped: " in run.result.message and "no responses left" in run.result.message
    assert (run.root / "solution.py").read_text() == RIGHT


def test_equal_sets_and_dicts_behave_alike_whatever_their_order(tmp_path: Path) -> None:
    doc = '    """>>> f(["b", "a"])\n    {\'a\'}\n    """\n'
    (tmp_path / "one.py").write_text(f"def f(xs):\n{doc}    return set(xs), dict.fromkeys(xs)\n")
    (tmp_path / "two.py").write_text(
        f"def f(xs):\n{doc}    return set(reversed(xs)), dict.fromkeys(sorted(xs))\n"
    )
    ctx, _ = watched_context(tmp_path)
    one = probes({"one.py": (tmp_path / "one.py").read_text()}, 5)
    two = [p.__class__("two.py", p.function, p.args, p.example) for p in one]
    assert behaviour(ctx, one, 1.0) == behaviour(ctx, two, 1.0)
    assert (
        behaviour(ctx, one, 1.0)[0]
        == "=(('set', ['a', 'b']), ('dict', [('a', None), ('b', None)]))"
    )


def test_named_tuples_iterators_and_plain_objects_compare_by_value(tmp_path: Path) -> None:
    """A named tuple equals its tuple; a generator is its items, not `<generator at 0x..>`;
    an object's default repr without its address (they differ in every process)."""
    doc = '    """>>> f([1, 2])\n    (1, 2)\n    """\n'
    sources = {
        "one": "import collections\nP = collections.namedtuple('P', 'a b')\nclass O: pass\n\n"
        f"def f(xs):\n{doc}    return P(*xs), (x * 2 for x in xs), O()\n",
        "two": "class O: pass\n\n"
        f"def f(xs):\n{doc}    return tuple(xs), map(lambda x: x + x, xs), O()\n",
    }
    seen = []
    for name, source in sources.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(source)
        ctx, _ = watched_context(tmp_path / name)
        seen.append(behaviour(ctx, probes({"m.py": source}, 1), 1.0))
    assert seen[0] == seen[1] == ["=((1, 2), ('iterator', [2, 4]), <m.O object>)"]


TWO = '''def f(x):
    """>>> f(True)
    1
    >>> g("ab", 3)
    2
    """


def g(s, n):
    return n
'''


def test_each_example_gets_only_its_own_functions_mutants() -> None:
    found = probes({"m.py": TWO}, 20)
    assert ("f", "(False,)") in [(p.function, p.args) for p in found]
    assert {p.function for p in found if p.args.startswith("('")} == {"g"}  # not f('ba', 3)


@pytest.mark.slow
def test_a_reply_without_code_is_no_vote(tmp_path: Path) -> None:
    """A reply of prose only changes nothing but is no agreement either: the two replies
    that take absolute values outvote the change."""
    drawn = ["I think the code is fine as it is.", *[whole_file("solution.py", RIGHT)] * 2]
    run = Run(
        tmp_path,
        [PLAN, whole_file("solution.py", WRONG), *drawn],
        task="implement @solution.py",
        files={"solution.py": STUB},
        overrides=["crosscheck.candidates=3", "crosscheck.enough_agreeing=0"],
    )
    statuses = [c["status"] for c in run.kinds("crosscheck.candidate")]
    assert statuses == ["rejected", "passed", "passed"]
    assert (run.root / "solution.py").read_text() == RIGHT and run.result.status == "checked"
