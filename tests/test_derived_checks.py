"""Checks derived from the task and the docstrings, run for real: real folders, real pytest
subprocesses, nothing of Codur's left in the user's folder."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from helpers import watched_context, write_files

from codur.config.schema import RepairConfig, VerifyConfig
from codur.repair.locate import executed_lines
from codur.repair.search import search
from codur.tools.context import ToolContext
from codur.verify.agent import run_plan, verify_task
from codur.verify.derived import DerivedCheck
from codur.verify.io_examples import io_claims
from codur.verify.plan import OutputCheck, VerificationPlan
from codur.verify.result import VerificationResult
from codur.workspace import Workspace

TOTAL = (
    "def total(a, b):\n"
    "    s = 0\n"
    "    for i in range(a, b):\n"
    "        s += i\n"
    "    return s\n\n\n"
    'print(f"total(1, 5) == {total(1, 5)}")\n'
)
TOTAL_FIXED = TOTAL.replace("range(a, b)", "range(a, b + 1)")
STATS = '''def mean(xs):
    """The mean.

    >>> mean([2, 4])
    3.0
    >>> mean([])
    0.0
    """
    return sum(xs) / len(xs)


def spread(xs):
    """Largest minus smallest.

    >>> spread([1, 5, 2])
    4
    """
    return max(xs) - min(xs)
'''
EVENS = '''def evens(n):
    """The even numbers below n.

    For example:
        evens(5) == [0, 2, 4]
        evens(1) ➞ [0]
    """
'''


def verify(root: Path, task: str, files: dict[str, str] | None = None) -> VerificationResult:
    write_files(root, files or {})
    ctx, _ = watched_context(root)
    refs = [w[1:] for w in task.split() if w.startswith("@")]
    return verify_task(ctx, VerifyConfig(), refs, [], task)


def listing(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_output_stated_in_words_is_compared(tmp_path: Path) -> None:
    task = "fix @main.py: the output should be total(1, 5) == 15"
    result = verify(tmp_path, task, {"main.py": TOTAL})
    assert (result.passed, result.strategy) == (False, "output")
    assert result.plan.checks == [OutputCheck(entry="main.py", expected_text="total(1, 5) == 15")]
    assert result.reasoning == (
        "no expected output and no tests; checks derived from the task statement: "
        "the output of main.py should be 'total(1, 5) == 15'"
    )
    failed = result.failed[0]
    assert failed.summary == (
        "python main.py, compared with the output stated in the task: "
        "stopped at output line 1 (it cannot match)"
    )
    assert "compared with the output stated in the task" in failed.feedback
    assert "Expected output:\n```\ntotal(1, 5) == 15\n```" in failed.feedback
    assert failed.hint == "output line 1 is 'total(1, 5) == 10', expected 'total(1, 5) == 15'"
    assert verify(tmp_path, task, {"main.py": TOTAL_FIXED}).passed
    assert listing(tmp_path) == {"main.py"}


@pytest.mark.slow
def test_a_stated_call_claim(tmp_path: Path) -> None:
    task = "total(1, 5) should return 15 but it returns 10"
    result = verify(tmp_path, task, {"main.py": TOTAL})
    assert (result.passed, result.strategy) == (False, "tests")
    check = result.plan.checks[0]
    assert isinstance(check, DerivedCheck) and (check.source, check.files) == ("task", ["main.py"])
    assert VerificationPlan.model_validate_json(result.plan.model_dump_json()) == result.plan
    assert "checks derived from the task statement: total(1, 5) should return 15" in (
        result.reasoning
    )
    failed = result.failed[0]
    assert failed.check == "derived"
    assert failed.failing_tests == ["test_codur_task.py::test_total_1"]
    assert failed.hint == "total(1, 5) should return 15 (stated in the task): got 10"
    assert "- total(1, 5) should return 15 (stated in the task): got 10" in failed.feedback
    assert "not files in the folder" in failed.feedback
    assert verify(tmp_path, task, {"main.py": TOTAL_FIXED}).passed
    assert listing(tmp_path) == {"main.py"}  # no test file, no __pycache__


@pytest.mark.slow
def test_docstring_examples_of_a_named_function(tmp_path: Path) -> None:
    result = verify(tmp_path, "mean crashes on an empty list, fix it", {"stats.py": STATS})
    check = result.plan.checks[0]
    assert isinstance(check, DerivedCheck) and check.source == "doctest"
    assert check.description == ">>> mean([2, 4]); >>> mean([])"  # spread is not named
    assert "checks derived from the docstring examples of mean" in result.reasoning
    failed = result.failed[0]
    assert failed.failing_tests == ["test_codur_doctest.py::test_mean_2"]  # 1 passed
    assert "1 passed, 1 failed" in failed.summary
    assert failed.hint.startswith(
        ">>> mean([]) should give 0.0 (example in the docstring of mean, stats.py line 6): "
        "raised ZeroDivisionError: division by zero"
    )
    assert [(loc.path, loc.line, loc.function) for loc in failed.locations] == [
        ("stats.py", 9, "mean")
    ]
    assert "it fails at stats.py line 9 in mean (ZeroDivisionError)" in result.suggestions
    fixed = STATS.replace("return sum(xs) / len(xs)", "return sum(xs) / len(xs) if xs else 0.0")
    assert verify(tmp_path, "fix mean", {"stats.py": fixed}).passed
    assert listing(tmp_path) == {"stats.py"}


@pytest.mark.slow
def test_humaneval_style_examples_of_a_function_to_implement(tmp_path: Path) -> None:
    result = verify(tmp_path, "implement @evens.py", {"evens.py": EVENS})
    assert not result.passed
    assert result.plan.checks[0].description == (
        "evens(5) should return [0, 2, 4]; evens(1) should return [0]"
    )
    assert result.failed[0].hint == (
        "evens(5) should return [0, 2, 4] (example in the docstring of evens, evens.py): got None"
    )
    done = EVENS + "    return list(range(0, n, 2))\n"
    assert verify(tmp_path, "implement @evens.py", {"evens.py": done}).passed


SHIFT = '''def shift(x, n):
    """The digits of x rotated right by n, as a string; and their set.

    >>> shift(12, 1)
    "21"
    >>> sorted(digits(123))
    [1, 2, 3]
    >>> digits(12) == {1, 2}
    True
    """
    s = str(x)
    return s[-n:] + s[:-n]


def digits(x):
    return {int(c) for c in str(x)}
'''


@pytest.mark.slow
def test_an_example_passes_on_the_same_value_and_fails_on_another_type(tmp_path: Path) -> None:
    """`"21"` written for the `'21'` Python prints is the same value (HumanEval/65); the
    comparison of values keeps types: `1` is not `True`, `2` is not `2.0`."""
    assert verify(tmp_path, "fix @shift.py", {"shift.py": SHIFT}).passed
    as_int = SHIFT.replace("return s[-n:] + s[:-n]", "return int(s[-n:] + s[:-n])")
    failed = verify(tmp_path, "fix @shift.py", {"shift.py": as_int})
    assert not failed.passed and 'should give "21"' in failed.failed[0].hint
    assert "got 21" in failed.failed[0].hint
    one = SHIFT.replace("digits(12) == {1, 2}\n    True", "len(digits(12)) - 1\n    True")
    assert not verify(tmp_path, "fix @shift.py", {"shift.py": one}).passed  # 1 is not True


COUNT = '''def count_positive(xs):
    """How many of xs are above 0.
    >>> count_positive([]) == 0
    >>> count_positive([-1, 2, 3]) == 2
    >>> count_positive([1]) == 1 and not count_positive([-1])
    >>> xs = [5, -5]
    >>> count_positive(xs)
    1
    """
'''


@pytest.mark.parametrize(
    ("body", "passes"),
    [
        ("    return sum(x > 0 for x in xs)\n", True),
        ("    return len(xs)\n", False),  # [] gives 0; [-1, 2, 3] gives 3, not 2
    ],
)
def test_a_comparison_with_no_output_under_it_claims_it_holds(
    tmp_path: Path, body: str, passes: bool
) -> None:
    """`>>> f(x) == 2` with no output line (HumanEval/108, 116, 128, 145, 156): doctest
    would want nothing and fail the right code, which prints True; each comparison is
    checked as expecting True, and the assignment stays setup."""
    result = verify(tmp_path, "implement @count.py", {"count.py": COUNT + body})
    assert result.passed is passes
    assert result.plan.checks[0].test.count("    check_example(") == 4  # all but the setup
    if not passes:
        hint = result.failed[0].hint
        assert ">>> count_positive([-1, 2, 3]) == 2 should give True" in hint
        assert "got False" in hint


TOP = '''def top(arr, k):
    """The k largest numbers of arr, sorted.

    Example 1:
        Input: arr = [-3, -4, 5], k = 3
        Output: [-4, -3, 5]

    Example 2:
        Input: arr : [4, -4, 4]
               k : 2
        Output: [4, 4]  # the two 4s

    Example 3:
        Input: [7], 1
        Output: [7]

    Example 4 (not a claim: `size` is not a parameter):
        Input: size = 3
        Output: 3
    """
'''


@pytest.mark.slow
def test_input_output_pairs_are_call_claims(tmp_path: Path) -> None:
    """Examples in the puzzle style (HumanEval/68, 107, 120, 122, 129, 143, 147):
    `Input: name = value, ...` or positional literals, `Output: value`."""
    right = verify(tmp_path, "implement @top.py", {"top.py": TOP + "    return sorted(arr)[-k:]\n"})
    assert right.passed
    assert right.plan.checks[0].description == (
        "top(arr=[-3, -4, 5], k=3) should return [-4, -3, 5]; "
        "top(arr=[4, -4, 4], k=2) should return [4, 4]; top([7], 1) should return [7]"
    )
    wrong = verify(tmp_path, "implement @top.py", {"top.py": TOP + "    return arr[:k]\n"})
    assert not wrong.passed
    assert "top(arr=[-3, -4, 5], k=3) should return [-4, -3, 5]" in wrong.failed[0].hint
    assert "got [-3, -4, 5]" in wrong.failed[0].hint


PROSE = '''def reverse_delete(s, c):
    """The characters of s not in c, and whether what is left is a palindrome.

    For s = "abcde", c = "ae", the result should be ('bcd', False)
    For s = "abcdedcba", c = "ab", the result should be ('cdedc', True).
    For "xy" the output should be 1
    For size = 3, the output should be 3
    """
'''


@pytest.mark.slow
def test_prose_examples_naming_the_parameters_are_call_claims(tmp_path: Path) -> None:
    """HumanEval/78, 94, 112, 133, 142: `For name = value, ... the output should be V`.
    Unnamed arguments and names that are not parameters claim nothing."""
    body = "    kept = ''.join(x for x in s if x not in c)\n    return kept, kept == kept[::-1]\n"
    right = verify(tmp_path, "implement @rd.py", {"rd.py": PROSE + body})
    assert right.passed
    assert right.plan.checks[0].description == (
        'reverse_delete(s="abcde", c="ae") should return (\'bcd\', False); '
        'reverse_delete(s="abcdedcba", c="ab") should return (\'cdedc\', True)'
    )
    wrong = verify(tmp_path, "implement @rd.py", {"rd.py": PROSE + "    return s, False\n"})
    assert not wrong.passed
    assert "got ('abcde', False)" in wrong.failed[0].hint


BROKEN_DOCTEST = '''def remove_vowels(text):
    """Drop the vowels.
    >>> remove_vowels('ab')
    'b'
    >>> remove_vowels("abcdef\\nghijklm")
    'bcdf\\nghjklm'
    >>> remove_vowels('zbcd')
    'zbcd'
    """
'''


@pytest.mark.slow
def test_lowercase_true_and_false_claim_a_true_or_false_value(tmp_path: Path) -> None:
    """Prose's `=> true` (HumanEval/76) holds for any true value, not only True."""
    doc = 'def some(xs):\n    """some([1]) => true\n    some([]) => false\n    """\n'
    right = verify(tmp_path, "implement @s.py", {"s.py": doc + "    return xs\n"})
    assert right.passed
    assert right.plan.checks[0].description == (
        "some([1]) should return a true value; some([]) should return a false value"
    )
    wrong = verify(tmp_path, "implement @s.py", {"s.py": doc + "    return not xs\n"})
    assert not wrong.passed
    assert "some([1]) should return a true value" in wrong.failed[0].hint


@pytest.mark.slow
def test_a_docstring_with_an_example_doctest_refuses_still_checks_the_others(
    tmp_path: Path,
) -> None:
    """HumanEval/51: the example split across lines is left out; the others run."""
    body = "    return ''.join(x for x in text if x not in 'aeiouAEIOU')\n"
    right = verify(tmp_path, "implement @rv.py", {"rv.py": BROKEN_DOCTEST + body})
    assert right.passed
    assert right.plan.checks[0].test.count("    check_example(") == 2
    wrong = verify(tmp_path, "implement @rv.py", {"rv.py": BROKEN_DOCTEST + "    return text\n"})
    assert not wrong.passed
    assert ">>> remove_vowels('ab') should give 'b'" in wrong.failed[0].hint


@pytest.mark.slow
def test_values_compare_with_their_types_inside_sets_and_dict_keys(tmp_path: Path) -> None:
    """`{1.0, 2.0}` is not the `{1, 2}` a docstring shows, nor `{True: 'a'}` its `{1: 'a'}`."""
    doc = 'def pair():\n    """Two.\n    >>> pair()\n    ({1, 2}, {1: "a"})\n    """\n'
    right = verify(tmp_path, "fix @pair.py", {"pair.py": doc + "    return {2, 1}, {1: 'a'}\n"})
    assert right.passed
    for wrong in ("{1.0, 2.0}, {1: 'a'}", "{1, 2}, {True: 'a'}"):
        result = verify(tmp_path, "fix @pair.py", {"pair.py": doc + f"    return {wrong}\n"})
        assert not result.passed, wrong


def test_the_script_around_a_function_does_not_run(tmp_path: Path) -> None:
    script = (
        TOTAL_FIXED + "while True:\n    print(input())\n\nif __name__ == '__main__':\n    main()\n"
    )
    result = verify(tmp_path, "total(2, 3) should return 5", {"main.py": script})
    assert result.passed, result.feedback


def test_nothing_derivable_falls_back_to_static_checks(tmp_path: Path) -> None:
    files = {"lib.py": "def add(a, b):\n    return a + b\n"}
    write_files(tmp_path, files)
    ctx, _ = watched_context(tmp_path)
    task = "make add faster; it should print the sum"
    result = verify_task(ctx, VerifyConfig(), [], ["lib.py"], task)
    assert (result.passed, result.strategy) == (True, "static")
    assert result.reasoning == "no expected output and no tests: static checks of the changed code"


def test_checks_in_the_folder_come_first(tmp_path: Path) -> None:
    files = {"main.py": TOTAL, "expected.txt": "total(1, 5) == 10\n"}
    result = verify(tmp_path, "total(1, 5) should return 15", files)
    assert result.passed and [c.kind for c in result.plan.checks] == ["output"]


@pytest.mark.slow
def test_a_derived_check_runs_in_a_copy_of_the_workspace(tmp_path: Path) -> None:
    task = "total(1, 5) should return 15"
    failing = verify(tmp_path / "ws", task, {"main.py": TOTAL})
    copy = Path(shutil.copytree(tmp_path / "ws", tmp_path / "copy"))
    (copy / "main.py").write_text(TOTAL_FIXED)
    assert run_plan(failing.plan, ToolContext(Workspace(copy))).passed
    assert not run_plan(failing.plan, ToolContext(Workspace(tmp_path / "ws"))).passed
    assert listing(copy) == {"main.py"}


@pytest.mark.slow
def test_the_repair_search_fixes_code_against_a_derived_check(tmp_path: Path) -> None:
    task = "total(1, 5) should return 15"
    failing = verify(tmp_path, task, {"main.py": TOTAL})
    # traced: the function ran, the script around it (line 8) did not
    lines = executed_lines(failing.plan, ToolContext(Workspace(tmp_path)), 30)["main.py"]
    assert {1, 2, 3, 4, 5} <= set(lines) and 8 not in lines
    ctx, _ = watched_context(tmp_path)
    result = search(failing.plan, failing, ctx, RepairConfig(max_depth=1), VerifyConfig())
    assert result.reason == "repaired" and "range(a, b + 1)" in result.sources["main.py"]
    assert (tmp_path / "main.py").read_text() == TOTAL


@pytest.mark.slow
def test_a_model_written_test_file_runs_as_given(tmp_path: Path) -> None:
    write_files(
        tmp_path, {"pkg/__init__.py": "", "pkg/calc.py": "def sub(a, b):\n    return a + b\n"}
    )
    test = "from pkg.calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
    check = DerivedCheck(source="model", description="sub(5, 3) is 2", test=test)
    evidence = check.run(ToolContext(Workspace(tmp_path)))
    assert not evidence.passed and evidence.failing_tests == ["test_codur_model.py::test_sub"]
    assert "tests the model wrote from the task" in evidence.feedback
    assert "assert 8 == 2" in evidence.feedback  # no message of its own: pytest's report
    (tmp_path / "pkg/calc.py").write_text("def sub(a, b):\n    return a - b\n")
    assert check.run(ToolContext(Workspace(tmp_path))).passed
    assert listing(tmp_path) == {"pkg", "pkg/__init__.py", "pkg/calc.py"}


def test_an_output_check_needs_an_expectation_and_prefers_the_captured_text() -> None:
    with pytest.raises(ValueError, match="expected_file or expected_text"):
        OutputCheck(entry="main.py")
    both = OutputCheck(entry="main.py", expected_file="expected.txt", expected_text="1")
    assert both.against == "expected.txt (as captured at the start)"


@pytest.mark.parametrize(
    "source",
    [
        'def pick(s, k):\n    """\n    Input: s = "k = 3", k = 1\n    Output: 2\n    """\n',
        'def main(n):\n    """\n    Input: 3\n    Output: 1 2 3\n    """\n',
        'def rm(head: "ListNode", n: int):\n    """\n    Input: head = [1, 2], n = 2\n'
        '    Output: [1]\n    """\n',
        # prose about what a function prints, changes in place or yields; a positional-only
        # parameter named; a one-tuple without its comma?
        'def show(n):\n    """For n = 3 the output should be 6."""\n    print(n * 2)\n',
        'def order(nums):\n    """For nums = [3, 1], the result should be [1, 3]."""\n'
        "    nums.sort()\n",
        'def upto(n):\n    """For n = 2 the output should be [0, 1]"""\n    yield from range(n)\n',
        'def sq(x, /):\n    """For x = 3 the result should be 9."""\n',
        'def bf(a, b):\n    """\n    Input: a = "Earth", b = "Mercury"\n'
        '    Output: ("Venus")\n    """\n',
    ],
)
def test_input_output_pairs_that_claim_nothing(source: str) -> None:
    """A parameter named inside a string value, a program's output of several values,
    a linked list written as a list (found by review): no claim rather than a wrong one."""
    function = ast.parse(source).body[-1]
    assert io_claims(ast.get_docstring(function, clean=False), function, "m.py", "o") == []


def test_only_files_that_may_define_a_named_function_are_parsed() -> None:
    """A scan for `def`/`class` lines picks the files worth parsing: a large module that
    defines nothing the task names is left unparsed (it took 20 s at 2.4 MB)."""
    from codur.verify.derived_checks import _defs, _may_matter

    sources = {
        "gen.py": "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(200)),
        "stats.py": STATS,
        "shapes.py": "class Box:\n    async  def mean(self):\n        return 0\n",
        "notes.py": "# mean\n",
    }
    defs = {path: _defs(code) for path, code in sources.items()}
    task = "mean crashes on an empty list, fix it in @notes.py"
    assert sorted(_may_matter(defs, task, ["notes.py"])) == ["notes.py", "shapes.py", "stats.py"]
    assert sorted(_may_matter(defs, "f17(2) should return 19", [])) == ["gen.py"]


@pytest.mark.parametrize(
    ("code", "task"),
    [
        ("def नमस्ते(n):\n    return n\n", "नमस्ते(1) should return 2"),
        ("def ﬁnd(xs):\n    return 0\n", "find([1]) should return 1"),  # NFKC: ﬁnd is find
        ("def \\\n  area(r):\n    return r\n", "area(2) should return 4"),
        ("\fdef area(r):\n    return r\n", "area(2) should return 4"),
    ],
)
def test_a_claim_about_a_function_however_its_def_is_written(
    tmp_path: Path, code: str, task: str
) -> None:
    result = verify(tmp_path, task, {"m.py": code})
    assert [c.kind for c in result.plan.checks] == ["derived"], result.reasoning
    assert not result.passed


RANKING = """PLAYERS = [("bo", 7), ("cy", 9), ("al", 7), ("di", 3)]


def ranking(players):
    return sorted(players, key=lambda player: player[1], reverse=True)


for name, score in ranking(PLAYERS):
    print(f"{name}: {score}")
"""
RANKING_FIXED = RANKING.replace("player[1], reverse=True", "(-player[1], player[0])")


def test_an_output_stated_in_the_programs_own_words_is_compared_as_values(
    tmp_path: Path,
) -> None:
    task = "fix @main.py: equal scores by name, so the output should be cy 9, al 7, bo 7, di 3"
    result = verify(tmp_path, task, {"main.py": RANKING})
    assert (result.passed, result.strategy) == (False, "output")
    assert result.plan.checks == [
        OutputCheck(
            entry="main.py",
            expected_text="cy 9, al 7, bo 7, di 3",
            match="values",
            expected_origin="the values stated in the task (in order, any layout)",
        )
    ]
    failed = result.failed[0]
    assert failed.hint == (
        "The output must hold the values the task states, together and in this order "
        "(punctuation, spacing and line breaks are free): `cy 9 al 7 bo 7 di 3`; after "
        "`cy 9` it has `bo` where `al` should be."
    )
    assert failed.hint in failed.feedback
    assert "these values, together and in this order; any punctuation" in failed.feedback
    # the values scattered over an echo of the input and a wrong result: no pass
    echoed = "print('in:', ', '.join(f'{n} {s}' for n, s in PLAYERS))\n" + RANKING
    assert not verify(tmp_path, task, {"main.py": echoed}).passed
    # one line a player, under a header: the layout is the program's, the values agree
    fixed = verify(tmp_path, task, {"main.py": "print('Ranking')\n" + RANKING_FIXED})
    assert fixed.passed
    assert fixed.evidence[0].basis == "task_values"
    assert listing(tmp_path) == {"main.py"}


@pytest.mark.slow
def test_a_suite_whose_every_test_is_skipped_leaves_the_docstring_examples_to_decide(
    tmp_path: Path,
) -> None:
    """docs/verification.md: a pytest run where every test was skipped checked nothing and
    counts as no check. It passed instead, so the failing docstring example never ran and
    the repair search never started (a docs probe): now the examples run when the tests
    checked nothing, and the search fixes the bug with no model."""
    from helpers import run_cli

    write_files(
        tmp_path,
        {
            "calc.py": 'def add(a, b):\n    """\n    >>> add(2, 3)\n    5\n    """\n'
            "    return a - b\n",
            "test_calc.py": "import pytest\nfrom calc import add\n\n\n@pytest.mark.skip\n"
            "def test_add():\n    assert add(2, 3) == 5\n",
        },
    )
    done = run_cli(["--no-model", "fix @calc.py"], tmp_path)
    assert done.returncode == 10, done.stdout + done.stderr  # checked by the examples
    assert "return a + b" in (tmp_path / "calc.py").read_text()
    assert "from the docstring examples): 1 passed" in done.stdout
