"""Edit scope: the oracle, the named files and a program's harness stay out of reach of
the coder, the tools and the repair search (real files, real processes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import watched_context, write_files
from test_honest_verdict import SELF_CHECK

from codur.scope import ScopeError, decide_scope
from codur.scope.harness import find_harness
from codur.scope.oracle import find_oracle
from codur.scope.request import asked_to_change


def lines_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def touches(harness, text: str) -> bool:
    line = lines_of(SELF_CHECK, text)
    return harness.touches(line, line)


def test_a_self_checking_driver_is_harness() -> None:
    harness = find_harness(SELF_CHECK)
    assert harness is not None
    assert harness.definitions == ("check", "main")
    assert harness.code_under_test == ("digit_sum",)
    assert touches(harness, "if actual != expected")
    assert touches(harness, 'check("four digits"')
    assert not touches(harness, "while n > 9")


def test_when_the_task_names_a_function_everything_else_the_driver_reaches_is_harness() -> None:
    source = (
        "def parse(text):\n    return [int(x) for x in text.split()]\n\n\n"
        "def build_order(deps):\n    raise NotImplementedError\n\n\n"
        "print(build_order(parse('1 2')))\n"
    )
    harness = find_harness(source, ["build_order"])
    assert harness is not None
    assert harness.definitions == ("parse",)
    assert harness.code_under_test == ("build_order",)


def test_data_builders_are_harness_and_data_the_code_reads_is_program() -> None:
    source = (
        "PREC = {'+': 1, '*': 2}\nCASES = [(1, 2), (3, 4)]\n\n\n"
        "def graph7():\n    a = [1]\n    return {'a': a}\n\n\n"
        "def weight(op):\n    for key in PREC:\n        pass\n    return PREC[op]\n\n\n"
        "for a, b in CASES:\n    print(weight('+') + a + b, graph7())\n"
    )
    harness = find_harness(source)
    assert harness is not None
    assert harness.definitions == ("graph7",)
    assert not harness.touches(1, 1)  # PREC: the code under test reads it
    assert harness.touches(2, 2)  # CASES: the driver's test data


def test_a_plain_script_has_no_harness() -> None:
    source = "total = 0\nfor x in [1, 2, 3]:\n    total += x\nprint(total)\n"
    assert find_harness(source) is None


def test_a_function_that_branches_on_its_input_is_not_mistaken_for_a_judge() -> None:
    source = (
        "def letter(score):\n    if score > 90:\n        return 'A'\n    return 'B'\n\n\n"
        "def root(n):\n    total = letter(n)\n    if total < 'C':\n        return total\n"
        "    return root(n)\n\n\nprint(letter(95), root(3))\n"
    )
    harness = find_harness(source)
    assert harness is not None and harness.definitions == ()


def test_the_oracle_is_expected_output_tests_their_data_and_pytest_config(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "main.py": "print(1)\n",
            "expected.txt": "1\n",
            "sub/expected.txt": "2\n",
            "calc.py": "def f():\n    return 1\n",
            "test_calc.py": "import json\nDATA = json.load(open('cases.json'))\n",
            "cases.json": "[]",
            "tests/helper_data.csv": "a,b\n",
            "conftest.py": "",
            "pyproject.toml": "[project]\nname = 'x'\n",
            "setup.cfg": "[tool:pytest]\naddopts = -q\n",
            ".venv/lib/test_x.py": "",
        },
    )
    assert find_oracle(tmp_path, "expected.txt", set()) == [
        "cases.json",
        "conftest.py",
        "expected.txt",
        "pyproject.toml",  # pytest reads it by name, pytest section or not
        "setup.cfg",
        "sub/expected.txt",
        "test_calc.py",
        "tests/helper_data.csv",
    ]


@pytest.mark.parametrize(
    ("task", "asked"),
    [
        ("update @expected.txt to the new output", True),
        ("fix the assert in test_calc.py", True),
        ("make the tests in @test_calc.py pass by fixing @calc.py", False),
        ("fix @lib.py so that python main.py prints what expected.txt says", False),
    ],
)
def test_the_oracle_is_editable_only_when_the_task_asks(task: str, asked: bool) -> None:
    path = "test_calc.py" if "test_calc" in task else "expected.txt"
    assert asked_to_change(task, path) is asked


def scope_for(tmp_path: Path, task: str, files: dict[str, str]):
    write_files(tmp_path, files)
    return decide_scope(task, tmp_path, "expected.txt", set())


def test_named_files_are_the_targets_and_the_rest_is_context(tmp_path: Path) -> None:
    files = {"lib.py": "X = 1\n", "main.py": "import lib\nprint(lib.X)\n", "expected.txt": "2\n"}
    scope = scope_for(tmp_path, "fix @lib.py so that python main.py prints 2", files)
    assert scope.targets == ("lib.py",)
    assert scope.why_not("lib.py") is None
    assert "read-only context" in (scope.why_not("main.py") or "")
    assert "part of the check" in (scope.why_not("expected.txt") or "")
    assert scope.why_not("helpers.py") is None  # a new file
    assert "part of the check" in (scope.why_not("conftest.py") or "")
    widened = scope.widening("main.py", "the traceback ends there")
    assert widened is not None and "read-only context" in (scope.why_not("main.py") or "")
    assert scope.knowing(widened).why_not("main.py") is None  # what the run learned
    assert scope.knowing(widened).widening("main.py", "again") is None


def test_bare_file_names_are_targets_but_not_commands(tmp_path: Path) -> None:
    files = {"utils.py": "X = 1\n", "main.py": "print(1)\n"}
    assert scope_for(tmp_path, "fix the bug in utils.py", files).targets == ("utils.py",)
    assert scope_for(tmp_path, "make python main.py print 2", files).targets == ()


def test_harness_edits_are_refused_and_code_edits_allowed(tmp_path: Path) -> None:
    scope = scope_for(tmp_path, "fix @main.py", {"main.py": SELF_CHECK})
    flipped = SELF_CHECK.replace("if actual != expected", "if actual == expected")
    with pytest.raises(ScopeError, match="harness of main.py"):
        scope.check_write("main.py", SELF_CHECK, flipped)
    faked = SELF_CHECK.replace("actual = digit_sum(n)", "actual = expected")
    with pytest.raises(ScopeError, match="harness"):
        scope.check_write("main.py", SELF_CHECK, faked)
    data = SELF_CHECK.replace('check("four digits", 1234, 10)', 'check("four digits", 1234, 9)')
    with pytest.raises(ScopeError, match="harness"):
        scope.check_write("main.py", SELF_CHECK, data)
    fixed = SELF_CHECK.replace("while n > 9:", "while n > 0:")
    scope.check_write("main.py", SELF_CHECK, fixed)  # the code under test: fine
    reformatted = fixed.replace('print(f"PASSED {name}")', "print(f'PASSED {name}')")
    scope.check_write("main.py", SELF_CHECK, reformatted)  # same AST: the harness is intact


def test_the_harness_is_found_again_after_an_edit_moves_it(tmp_path: Path) -> None:
    """The repair search runs again after a model edit made the file longer: the harness
    lines it may not mutate are where the harness is now, not where it was."""
    scope = scope_for(tmp_path, "fix @main.py", {"main.py": SELF_CHECK})
    lines = SELF_CHECK.splitlines()
    compare = next(i for i, line in enumerate(lines, 1) if "if actual != expected" in line)
    assert not scope.allows_lines("main.py", compare, compare)
    longer = SELF_CHECK.replace("def digit_sum(n):\n", "def digit_sum(n):\n" + "    pass\n" * 9, 1)
    (tmp_path / "main.py").write_text(longer)
    moved = compare + 9
    assert "if actual != expected" in longer.splitlines()[moved - 1]
    assert not scope.allows_lines("main.py", moved, moved)
    assert scope.allows_lines("main.py", compare, compare)  # now inside digit_sum


def test_tools_refuse_the_oracle_with_a_message_for_the_model(tmp_path: Path) -> None:
    from codur.tools.registry import invoke

    scope = scope_for(tmp_path, "fix @main.py", {"main.py": "print(1)\n", "expected.txt": "2\n"})
    ctx, _ = watched_context(tmp_path)
    ctx.changes.scope = scope
    result = invoke("write_file", {"path": "expected.txt", "content": "1\n"}, ctx)
    assert not result.ok and "part of the check" in result.output
    assert (tmp_path / "expected.txt").read_text() == "2\n"
    assert invoke("write_file", {"path": "main.py", "content": "print(2)\n"}, ctx).ok


def test_the_oracle_is_captured_and_tampering_is_seen(tmp_path: Path) -> None:
    scope = scope_for(
        tmp_path, "fix @calc.py", {"calc.py": "", "test_calc.py": "def test_x():\n    pass\n"}
    )
    assert scope.tampered() == []
    (tmp_path / "test_calc.py").write_text("")
    assert scope.tampered() == ["test_calc.py (changed)"]


def test_a_module_a_test_runs_as_a_script_is_code_not_a_fixture(tmp_path: Path) -> None:
    """tabulate's test_cli runs `[sys.executable, "tabulate/__init__.py"]`: a module the
    tests import and only run is code under test (the whole package was oracle). One they
    read as text stays a fixture, imported or not (a generated table checked against its
    generator), and so does a file they only name."""
    write_files(
        tmp_path,
        {
            "tab/__init__.py": "from tab._table import ROWS\n\ndef table():\n    return ROWS\n",
            "tab/_table.py": "ROWS = [1, 2]\n",
            "sample.py": "print('data, read by the test')\n",
            "test/test_cli.py": (
                "import subprocess, sys\nfrom tab import table\n\n"
                "def test_cli():\n    subprocess.run([sys.executable, 'tab/__init__.py'])\n"
                "    assert open('sample.py').read()\n"
                "    assert str(table()) in open('tab/_table.py').read()\n"
            ),
        },
    )
    oracle = find_oracle(tmp_path, "expected.txt", set())
    assert oracle == ["sample.py", "tab/_table.py", "test/test_cli.py"]


def test_a_file_named_through_a_link_in_the_folder_is_a_target_by_its_real_path(
    tmp_path: Path,
) -> None:
    """`fix @lnk.py` where lnk.py links to impl.py: edits land on impl.py, so it is a
    target too; a link to the checks' oracle does not make the oracle one."""
    (tmp_path / "impl.py").write_text("x = 1\n")
    (tmp_path / "lnk.py").symlink_to("impl.py")
    (tmp_path / "expected.txt").write_text("1\n")
    (tmp_path / "out.txt").symlink_to("expected.txt")
    scope = decide_scope("fix @lnk.py and @out.txt", tmp_path, "expected.txt")
    assert "impl.py" in scope.targets and "lnk.py" in scope.targets
    assert "expected.txt" not in scope.targets


def test_the_project_s_own_test_file_names_are_oracle(tmp_path: Path) -> None:
    """pytest's `python_files = check_*.py`: a model's edit of check_calc.py would change
    the check; before, only `test_*.py` and `*_test.py` were protected."""
    files = {
        "calc.py": "def f():\n    return 1\n",
        "check_calc.py": "from calc import f\n\n\ndef test_f():\n    assert f() == 2\n",
        "pytest.ini": "[pytest]\npython_files = check_*.py\n",
    }
    scope = scope_for(tmp_path, "make the tests pass", files)
    assert "check_calc.py" in scope.oracle
    assert "part of the check" in (scope.why_not("check_calc.py") or "")
    assert "part of the check" in (scope.why_not("check_new.py") or "")  # a new one too
    assert scope.why_not("calc.py") is None
    (tmp_path / "pytest.ini").unlink()
    assert "check_calc.py" not in scope_for(tmp_path, "make the tests pass", {}).oracle


def test_a_module_defining_test_cases_is_oracle_whatever_its_name(tmp_path: Path) -> None:
    """Django's `app/tests.py` matched none of pytest's names, so a run could edit it."""
    case = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n"
    files = {"app/tests.py": case, "app/models.py": "class TestCase:\n    pass\n"}
    files["app/base.py"] = "import unittest\n\n\nclass Base(unittest.TestCase):\n    pass\n"
    write_files(tmp_path, files)
    assert find_oracle(tmp_path, "expected.txt", set()) == ["app/tests.py"]


def test_python_files_that_name_every_module_make_no_source_file_a_test(tmp_path: Path) -> None:
    """A reviewer's case: `python_files = *.py` with `testpaths = tests` made every
    source file "part of the check", so no run could fix anything."""
    files = {
        "src/calc.py": "def f():\n    return 1\n",
        "src/check_input.py": "def ok(x):\n    return x\n",
        "tests/test_calc.py": "from calc import f\n\n\ndef test_f():\n    assert f() == 2\n",
        "pytest.ini": "[pytest]\ntestpaths = tests\npython_files = *.py check_*.py\n",
    }
    scope = scope_for(tmp_path, "make the tests pass", files)
    assert scope.why_not("src/calc.py") is None
    assert scope.why_not("src/check_input.py") is None  # pytest never collects it
    assert "part of the check" in (scope.why_not("tests/check_new.py") or "")
    assert "part of the check" in (scope.why_not("check_new.py") or "")  # collected if made
    assert scope.why_not("src/helpers.py") is None  # `*.py` names everything: not a test


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.toml", "[pytest]\npython_files = ['check_*.py']\n"),
        ("pyproject.toml", "[tool.pytest]\npython_files = ['check_*.py']\n"),
    ],
)
def test_pytest_9_s_configuration_files_are_read_and_protected(
    tmp_path: Path, name: str, text: str
) -> None:
    """pytest 9 reads pytest.toml and pyproject's native [tool.pytest]: an edit of
    pytest.toml could deselect the failing test (`addopts = ["-k", "not test_sub"]`)."""
    files = {
        name: text,
        "calc.py": "def f():\n    return 1\n",
        "check_calc.py": "from calc import f\n\n\ndef test_f():\n    assert f() == 2\n",
    }
    scope = scope_for(tmp_path, "make the tests pass", files)
    assert "check_calc.py" in scope.oracle and name in scope.oracle
    assert "part of the check" in (scope.why_not("pytest.toml") or "")


def test_an_assertion_helper_the_code_does_not_use_is_part_of_the_check(tmp_path: Path) -> None:
    """A probe's false `verified`: the repair search made numpy.testing-style
    `assert_close` never raise (`> tol` to `< tol`), and the tests passed with `mean`
    still wrong. A module that raises AssertionError itself and that no code outside the
    tests imports decides what they say."""
    helper = "def assert_close(a, e, tol=1e-9):\n    if abs(a - e) > tol:\n"
    helper += "        raise AssertionError(f'{a} != {e}')\n"
    files = {
        "stats/__init__.py": "",
        "stats/core.py": "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n",
        "stats/testing.py": helper,
        "tests/test_core.py": "from stats.core import mean\nfrom stats.testing import "
        "assert_close\n\n\ndef test_mean():\n    assert_close(mean([1, 3]), 2)\n",
    }
    write_files(tmp_path, files)
    assert find_oracle(tmp_path, "expected.txt", set()) == [
        "stats/testing.py",
        "tests/test_core.py",
    ]
    (tmp_path / "stats" / "core.py").write_text("from stats.testing import assert_close\n")
    assert find_oracle(tmp_path, "expected.txt", set()) == ["tests/test_core.py"]  # code uses it


@pytest.mark.parametrize(
    "helper",
    [
        "def check_close(a, e, tol=1e-9):\n    assert abs(a - e) <= tol\n",  # any name
        "def expect_equal(a, e):\n    if a != e:\n        raise AssertionError(a)\n",
        "def _check(a, e):\n    assert a == e\n\n\ndef check_close(a, e):\n    _check(a, e)\n",
    ],
)
def test_an_assertion_helper_is_known_by_what_it_does_not_its_name(
    tmp_path: Path, helper: str
) -> None:
    """A reviewer's false `verified`: a rule asking for an `assert...` name let the model
    turn `check_close`'s assert into `>= -1`. A module-level function that returns nothing
    and asserts (itself, or through such a function of its module) is a check."""
    files = {
        "stats.py": "def mean(xs):\n    return sum(xs) / 2\n",
        "checks.py": helper,
        "tests/test_stats.py": "from checks import check_close\nfrom stats import mean\n\n\n"
        "def test_mean():\n    check_close(mean([1, 2, 3]), 2)\n",
    }
    if "expect_equal" in helper:
        files["tests/test_stats.py"] = files["tests/test_stats.py"].replace(
            "check_close", "expect_equal"
        )
    write_files(tmp_path, files)
    assert find_oracle(tmp_path, "expected.txt", set()) == ["checks.py", "tests/test_stats.py"]


def test_a_module_asserting_its_own_invariants_is_code_under_test(tmp_path: Path) -> None:
    """tabulate's one module asserts `isinstance(colalign, Iterable)` and only its tests
    import it: read as an assertion helper, it was locked as part of the check, and
    every bug in the package went unfixable (the locating benchmark: 5 of 10 tabulate
    bugs' code no longer shown)."""
    files = {
        "tab/__init__.py": "def tabulate(rows, colalign=()):\n"
        "    assert isinstance(colalign, tuple)\n    return '\\n'.join(map(str, rows))\n",
        "test/common.py": "def assert_equal(a, e):\n    assert a == e\n",
        "test/test_tab.py": "from common import assert_equal\nfrom tab import tabulate\n\n\n"
        "def test_rows():\n    assert_equal(tabulate([1, 2]), '1\\n2')\n",
    }
    write_files(tmp_path, files)
    oracle = find_oracle(tmp_path, "expected.txt", set())
    assert "tab/__init__.py" not in oracle and "test/common.py" in oracle


def test_an_assertion_helper_that_asserts_is_part_of_the_check_too(tmp_path: Path) -> None:
    """A reviewer's case: `assert abs(a - e) <= tol` in a helper; the search made it
    `>= tol` and the run ended `verified`."""
    files = {
        "stats.py": "def mean(xs):\n    return sum(xs) / 2\n",
        "checks.py": "def assert_close(a, e, tol=1e-9):\n    assert abs(a - e) <= tol\n",
        "tests/test_stats.py": "from checks import assert_close\nfrom stats import mean\n\n\n"
        "def test_mean():\n    assert_close(mean([1, 2, 3]), 2)\n",
    }
    write_files(tmp_path, files)
    assert find_oracle(tmp_path, "expected.txt", set()) == ["checks.py", "tests/test_stats.py"]
