"""The project's test suite: found from pytest's configuration, a tests/ tree or unittest
test cases, or the configured test command (`--test-cmd`); run in stages (the tests that
failed, those of the changed code, the whole suite) in real folders with real pytest and
unittest runs; the whole suite passing is what `verified` rests on, and a suite cut at
`verify.suite_budget_s` leaves the run `checked`. The model is scripted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli, scripted_profile, watched_context, whole_file, write_files

from codur.config.schema import VerifyConfig
from codur.scope.decide import decide_scope
from codur.verify.agent import verify_task
from codur.verify.plan import TestCheck

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

CALC_BUG = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 2 * x\n"
CALC = CALC_BUG.replace("a - b", "a + b")
TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SLOW = {"timeout_s": 600, "suite_budget_s": 900}
"""Generous limits: a loaded machine starts pytest slowly."""
CLI_SLOW = ["-o", "verify.timeout_s=600", "-o", "verify.suite_budget_s=900"]

CONFIGS = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["checks"]\n',
    "pytest.ini": "[pytest]\ntestpaths = checks\n",
    "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\ntestpaths =\n    checks\n",
    "setup.cfg": "[metadata]\nname = calc\n\n[tool:pytest]\ntestpaths = checks\n",
}


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_the_suite_is_what_pytests_configuration_says(tmp_path: Path, config: str) -> None:
    """testpaths in each file pytest reads: the suite runs `checks/` only, so a failing
    example test outside it does not fail the check (on main: `pytest .` ran it)."""
    write_files(
        tmp_path,
        {
            "calc.py": CALC,
            config: CONFIGS[config],
            "checks/test_calc.py": TEST_ADD,
            "examples/test_demo.py": "def test_demo():\n    assert False, 'an example'\n",
        },
    )
    ctx, _ = watched_context(tmp_path)
    result = verify_task(ctx, VerifyConfig(**SLOW), [], [])
    assert result.plan.checks[0].paths == ["checks"]
    assert f"pytest's configuration in {config}, testpaths checks" in result.reasoning
    assert result.passed, result.evidence[0].summary
    assert result.evidence[0].command == "pytest checks"


def test_a_tests_tree_without_configuration_is_the_suite(tmp_path: Path) -> None:
    """Every test file under tests/: pytest runs that tree (on main: the whole folder)."""
    write_files(tmp_path, {"calc.py": CALC, "tests/test_calc.py": TEST_ADD})
    ctx, _ = watched_context(tmp_path)
    result = verify_task(ctx, VerifyConfig(**SLOW), [], [])
    assert result.passed and result.plan.checks[0].paths == ["tests"]
    assert "the test suite: tests (the tests/ tree)" in result.reasoning


UNITTEST = (
    "import unittest\n\nfrom calc import add, double\n\n\n"
    "class CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_double(self):\n        self.assertEqual(double(4), 8)\n"
)


def test_unittest_cases_run_by_discovery_with_an_interpreter_without_pytest(
    tmp_path: Path,
) -> None:
    """unittest test cases and no pytest configuration: `python -m unittest discover` in
    the project's interpreter (a venv without pytest here); the failing test runs first
    by its id, then the whole suite, and the fix ends verified (on main: pytest, which
    that interpreter lacks, so the run ended unverified)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    assert subprocess.run([python, "-c", "import pytest"], capture_output=True).returncode != 0
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, "tests/test_calc.py": UNITTEST})
    flags = [*scripted_profile(tmp_path, [whole_file("calc.py", CALC)]), *CLI_SLOW]
    done = run_cli(
        ["fix @calc.py", "--json", "-o", f"tools.python={python}", *flags], root, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    runs = [e for e in events if e["event"] == "verify.run"]
    assert [(r["stage"], r["passed"]) for r in runs] == [
        ("suite", False),  # the files as found: the failing ids come from here
        ("failing", True),
        ("suite", True),
    ]
    assert runs[0]["failing"] == ["test_calc.CalcTest.test_add"]
    assert runs[1]["command"][-4:] == ["-s", "tests", "-k", "*test_calc.CalcTest.test_add"]
    assert runs[2]["command"] == ["python", "-m", "unittest", "discover", "-s", "tests"]
    end = events[-1]
    assert end["status"] == "verified" and end["evidence"]["level"] == "project"


MARKED = (
    "import pytest\n\nfrom calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "@pytest.mark.slow\ndef test_against_the_network():\n    assert False, 'no network here'\n"
)


def test_the_test_command_given_on_the_command_line_is_the_suite(tmp_path: Path) -> None:
    """`--test-cmd "pytest -m 'not slow' tests"`: the project's way to run its tests,
    which leaves out a test that cannot pass here, so the fix ends verified by it."""
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, "tests/test_calc.py": MARKED})
    flags = [*scripted_profile(tmp_path, [whole_file("calc.py", CALC)]), *CLI_SLOW]
    done = run_cli(
        ["fix @calc.py", "--test-cmd", "pytest -m 'not slow' tests", *flags], root, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified (project tests, 1 passed): pytest -m 'not slow' tests: 1 passed" in done.stdout
    assert "checked by: pytest -m 'not slow' tests;" in done.stdout
    assert (root / "calc.py").read_text() == CALC


def test_a_test_command_whose_program_is_missing_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    """A mistyped `--test-cmd` is a bad value (exit 2, one line naming the flag), not a
    failure inside Codur retried four times (exit 4); nothing runs, nothing changes."""
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, "tests/test_calc.py": MARKED})
    for command, where in (("nosuchprog -x", "on PATH"), ("./run_tests.sh", f"in {root}")):
        done = run_cli(["fix @calc.py", "--no-model", "--test-cmd", command], root)
        assert done.returncode == 2, done.stdout + done.stderr
        head = command.split()[0]
        said = f"--test-cmd: the test command `{command}` cannot run: {head} is not found {where}"
        assert said in done.stderr
        assert "verify:" not in done.stdout  # before the first check
    assert (root / "calc.py").read_text() == CALC_BUG


SCRIPT = (
    "import sys\n\nfrom calc import add\n\n"
    "print('add(2, 3) =', add(2, 3))\nsys.exit(0 if add(2, 3) == 5 else 1)\n"
)


def test_a_script_as_the_test_command_is_judged_by_its_exit_code(tmp_path: Path) -> None:
    """`verify.test_command: python check_calc.py`: a script of the project, run by the
    project's interpreter, is the check (it reports no counts: its exit code decides),
    and the script itself is oracle: no edit of the run may change it."""
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, "check_calc.py": SCRIPT})
    script = ["python", "check_calc.py"]
    scope = decide_scope("fix @calc.py", root, "expected.txt", test_command=script)
    assert "check_calc.py" in scope.oracle
    flags = [*scripted_profile(tmp_path, [whole_file("calc.py", CALC)]), *CLI_SLOW]
    command = ["-o", "verify.test_command=python check_calc.py"]
    done = run_cli(["fix @calc.py", *command, *flags], root, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified (the project's test command)" in done.stdout
    assert "python check_calc.py: exit code 0 (no test counts reported)" in done.stdout


CONFTEST = (
    "import pytest\n\nimport calc\n\n\n@pytest.fixture\ndef calc_module():\n    return calc\n"
)
DOUBLE = "def test_double(calc_module):\n    assert calc_module.double(4) == 8\n"


def test_the_failing_test_first_and_the_whole_suite_before_verified(tmp_path: Path) -> None:
    """A reply that fixes the failing test but breaks one that reaches the code only
    through a conftest fixture (no import of it: not a test of the changed code) does not
    end verified: the whole suite runs after the failing test and the changed code's
    tests, fails, and the next reply is asked for (on main: only the tests importing
    calc ran, and the first reply ended verified)."""
    root = tmp_path / "work"
    write_files(
        root,
        {
            "calc.py": CALC_BUG,
            "tests/conftest.py": CONFTEST,
            "tests/test_calc.py": TEST_ADD,
            "tests/test_double.py": DOUBLE,
        },
    )
    broken = CALC.replace("2 * x", "x + 2")
    replies = [whole_file("calc.py", broken), whole_file("calc.py", CALC)]
    flags = [*scripted_profile(tmp_path, replies), *CLI_SLOW]
    done = run_cli(["fix @calc.py", "--json", *flags], root, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    runs = [(e["stage"], e["passed"]) for e in events if e["event"] == "verify.run"]
    assert runs == [
        ("related", False),  # as found: test_calc.py, which imports calc, fails
        ("failing", True),  # the first reply: test_add alone, first
        ("related", True),
        ("suite", False),  # test_double fails: not verified
        ("related", True),  # the second reply (both failing files: the suite itself, which
        ("suite", True),  # lists its passes: both tests that failed must be among them)
    ]
    failing = [e for e in events if e["event"] == "verify.run" and e["stage"] == "failing"]
    assert failing[0]["command"] == ["pytest", "tests/test_calc.py::test_add"]  # that test alone
    suites = [e for e in events if e["event"] == "verify.run" and e["stage"] == "suite"]
    assert suites[0]["failing"] == ["tests/test_double.py::test_double"]
    end = events[-1]
    assert end["status"] == "verified" and end["model_calls"] == 2
    assert end["evidence"]["description"] == "verified (project tests, 2 passed)"


def test_a_suite_cut_at_its_budget_ends_checked_not_verified(tmp_path: Path) -> None:
    """The failing test and the changed code's tests pass, but the whole suite holds a
    test that never ends: it is stopped at verify.suite_budget_s and the run ends
    `checked` (exit 10) on part of the project's tests, saying why, never `verified`."""
    root = tmp_path / "work"
    write_files(
        root,
        {
            "calc.py": CALC_BUG,
            "tests/test_calc.py": TEST_ADD,
            "tests/test_wait.py": "import time\n\n\ndef test_wait():\n    time.sleep(3600)\n",
        },
    )
    flags = [*scripted_profile(tmp_path, [whole_file("calc.py", CALC)]), *CLI_SLOW]
    budget = ["-o", "verify.suite_budget_s=90"]
    done = run_cli(["fix @calc.py", "--json", *flags, *budget], root, timeout=1800)
    assert done.returncode == 10, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    runs = [e for e in events if e["event"] == "verify.run"]
    assert [(r["stage"], r["passed"], r["cut"]) for r in runs[-2:]] == [
        ("related", True, False),
        ("suite", False, True),
    ]
    end = events[-1]
    assert end["status"] == "checked" and end["evidence"]["level"] == "partial"
    assert end["evidence"]["description"] == (
        "checked by part of the project tests (1 passed; the whole suite stopped at "
        "verify.suite_budget_s)"
    )
    assert "not verified: the whole test suite did not finish within" in done.stderr


def test_a_projects_own_quiet_option_still_shows_the_counts(tmp_path: Path, monkeypatch) -> None:
    """`addopts = "-q"` (and `PYTEST_ADDOPTS=-q`): pytest reads them before Codur's flags,
    and a second `-q` from Codur made it print no counts line, so a passing suite read as
    0 passed, hollow, and a correct fix ended unverified; the verbosity is set now."""
    config = '[tool.pytest.ini_options]\naddopts = "-q"\ntestpaths = ["tests"]\n'
    write_files(
        tmp_path, {"calc.py": CALC, "pyproject.toml": config, "tests/test_calc.py": TEST_ADD}
    )
    monkeypatch.setenv("PYTEST_ADDOPTS", "-q")
    ctx, _ = watched_context(tmp_path)
    result = verify_task(ctx, VerifyConfig(**SLOW), [], [])
    assert result.passed and result.evidence[0].ran, result.evidence[0].summary
    assert "1 passed" in result.evidence[0].summary


SKIPPING = (
    "import pytest\n\nimport calc\n\n\n"
    "def test_add():\n"
    "    if getattr(calc, 'LATER', False):\n        pytest.skip('the boundary comes later')\n"
    "    assert calc.add(2, 3) == 5\n\n\n"
    "def test_double():\n    assert calc.double(4) == 8\n"
)


def test_a_failed_test_that_is_skipped_now_is_no_pass(tmp_path: Path) -> None:
    """The test that failed earlier runs again by its id; skipped this time (here the
    code sets what the test skips on), it is not shown to pass and the check fails,
    saying so (on main: 0 failed, 1 skipped, and the whole suite then passed: verified)."""
    later = CALC_BUG + "\nLATER = True\n"
    write_files(tmp_path, {"calc.py": later, "tests/test_calc.py": SKIPPING})
    ctx, events = watched_context(tmp_path)
    check = TestCheck(paths=["tests"], first=["tests/test_calc.py::test_add"])
    evidence = check.run(ctx)
    assert not evidence.passed
    assert "1 of the tests the task names or that failed earlier skipped" in evidence.summary
    runs = [e for e in events if e.kind == "verify.run"]
    assert [(r.data["stage"], r.data["passed"]) for r in runs] == [("failing", False)]
    write_files(tmp_path, {"calc.py": CALC})
    assert check.run(ctx).passed  # the fix itself: the test passes, then the suite


SRC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def test_the_failed_tests_run_with_the_users_command_and_its_options(tmp_path: Path) -> None:
    """`--test-cmd "python -m pytest -o pythonpath=src tests"`: the failed test runs first
    through that command, narrowed by name, so its options hold (on main: `pytest
    tests/test_calc.py -k test_add` without them: ModuleNotFoundError, a failure the
    project's own command never shows)."""
    write_files(tmp_path, {"src/calc.py": CALC, "tests/test_calc.py": SRC_TEST})
    ctx, events = watched_context(tmp_path)
    command = ["python", "-m", "pytest", "-o", "pythonpath=src", "tests"]
    check = TestCheck(runner="command", command=command, first=["tests/test_calc.py::test_add"])
    evidence = check.run(ctx)
    assert evidence.passed, evidence.summary
    runs = [e.data for e in events if e.kind == "verify.run"]
    assert [(r["stage"], r["passed"]) for r in runs] == [("failing", True), ("suite", True)]
    assert runs[0]["command"] == [*command, "-rfEp", "-k", "test_add"]


def test_unittest_cases_without_pytest_are_fixed_by_the_search_with_no_model(
    tmp_path: Path,
) -> None:
    """The repair search traces the check's own runner: unittest in an interpreter
    without pytest (on main: it traced `-m pytest`, which that interpreter lacks, saw no
    line run, and had no candidate)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, "tests/test_calc.py": UNITTEST})
    python = venv / "bin" / "python"
    flags = ["--no-model", "--json", "-o", f"tools.python={python}", *CLI_SLOW]
    done = run_cli(["fix @calc.py", *flags], root, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    start = next(e for e in events if e["event"] == "repair.start")
    assert start["traced"] and start["files"] == ["calc.py"]
    assert events[-1]["status"] == "verified"
    assert (root / "calc.py").read_text() == CALC


PARAMETRIZED = (
    "import pytest\n\nfrom calc import add\n\n\n"
    "@pytest.mark.parametrize('pair', [(2, 3)], ids=['small numbers'])\n"
    "def test_add(pair):\n    assert add(*pair) == 5\n"
)
SIBLINGS = (
    "import unittest\n\nfrom calc import add\n\n\n"
    "class CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    @unittest.skip('not yet')\n    def test_add_big(self):\n        pass\n"
)


def test_failed_tests_are_run_exactly_whatever_their_names(tmp_path: Path) -> None:
    """A parametrized id with a space runs by its id; unittest's `test_add` runs alone,
    not its skipped sibling `test_add_big` (each a regression a review found in the first
    version: the fix could not be verified)."""
    write_files(tmp_path / "p", {"calc.py": CALC, "tests/test_calc.py": PARAMETRIZED})
    ctx, _ = watched_context(tmp_path / "p")
    spaced = TestCheck(paths=["tests"], first=["tests/test_calc.py::test_add[small numbers]"])
    assert spaced.run(ctx).passed
    write_files(tmp_path / "u", {"calc.py": CALC, "tests/test_calc.py": SIBLINGS})
    ctx, events = watched_context(tmp_path / "u")
    unit = TestCheck(runner="unittest", paths=["tests"], first=["test_calc.CalcTest.test_add"])
    evidence = unit.run(ctx)
    assert evidence.passed, evidence.summary
    runs = [e.data for e in events if e.kind == "verify.run"]
    assert [(r["stage"], r["passed"]) for r in runs] == [("failing", True), ("suite", True)]


def test_a_pytest_command_that_reports_no_counts_is_not_verified(tmp_path: Path) -> None:
    """The code under test ends the process with exit code 0 before pytest reports: a
    pytest command always reports its counts, so none is no pass (on main: `exit code 0
    (no test counts reported)`, and verified)."""
    quitting = "import os\n\nos._exit(0)\n" + CALC
    write_files(tmp_path, {"calc.py": quitting, "tests/test_calc.py": TEST_ADD})
    ctx, _ = watched_context(tmp_path)
    check = TestCheck(runner="command", command=["python", "-m", "pytest", "tests"])
    evidence = check.run(ctx)
    assert not (evidence.passed and evidence.ran), evidence.summary


def test_the_search_traces_through_xdist_workers_by_not_trusting_an_empty_trace(
    tmp_path: Path,
) -> None:
    """`--test-cmd "python -m pytest -n 2 tests"`: the tests run in xdist's workers, so a
    trace of the command sees only conftest.py; that is no trace, and the search tries
    every line (on the first version: no candidate, unverified)."""
    pytest.importorskip("xdist")
    root = tmp_path / "work"
    write_files(
        root,
        {
            "calc.py": CALC_BUG,
            "tests/test_calc.py": TEST_ADD,
            "conftest.py": "X = 1\n",
            "tests/conftest.py": "import calc  # imported in the main process too\n",
        },
    )
    test_cmd = ["--test-cmd", "python -m pytest -n 2 tests"]
    done = run_cli(
        ["fix @calc.py", "--no-model", "--json", *test_cmd, *CLI_SLOW], root, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    start = next(e for e in events if e["event"] == "repair.start")
    assert not start["traced"] and "calc.py" in start["files"]
    assert events[-1]["status"] == "verified"


ONE_FILE = (
    "import pytest\n\nimport calc\n\n\n"
    "def test_add():\n"
    "    if getattr(calc, 'LATER', False):\n        pytest.skip('the boundary comes later')\n"
    "    assert calc.add(2, 3) == 5\n"
)


def test_a_skip_in_a_suite_of_the_failed_tests_alone_is_no_pass(tmp_path: Path) -> None:
    """The failed test's file is the whole suite, so it runs once, as the suite; there
    too the test that failed must be among the passes (on the first version: the skip
    was verified, `1 passed, 1 skipped`)."""
    write_files(tmp_path, {"calc.py": CALC + "\nLATER = True\n", "tests/test_calc.py": ONE_FILE})
    ctx, events = watched_context(tmp_path)
    check = TestCheck(paths=["tests"], held=["tests/test_calc.py::test_add"])
    evidence = check.run(ctx)
    assert not evidence.passed
    assert "1 of the tests the task names or that failed earlier skipped" in evidence.summary
    runs = [e.data for e in events if e.kind == "verify.run"]
    assert [(r["stage"], r["passed"]) for r in runs] == [("suite", False)]
    write_files(tmp_path, {"calc.py": CALC})
    assert check.run(ctx).passed


SHAPES = "SHAPES = ['circle', 'sqaure']\n\n\ndef area(shape):\n    return 1\n"
SHAPES_TEST = (
    "import pytest\n\nimport shapes\n\n\n"
    "@pytest.mark.parametrize('shape', shapes.SHAPES)\n"
    "def test_has_area(shape):\n    assert shape in ('circle', 'square')\n"
)


def test_a_failed_test_the_fix_renamed_is_left_to_the_suite(tmp_path: Path) -> None:
    """The test's parameters come from the code, and the fix renames the one that failed
    (`sqaure` -> `square`): pytest no longer finds that id, so the suite judges (on the
    first version: `not found`, and the fix could never be verified)."""
    fixed = SHAPES.replace("sqaure", "square")
    write_files(tmp_path, {"shapes.py": fixed, "tests/test_shapes.py": SHAPES_TEST})
    ctx, _ = watched_context(tmp_path)
    ids = ["tests/test_shapes.py::test_has_area[sqaure]"]
    evidence = TestCheck(paths=["tests"], first=ids).run(ctx)
    assert evidence.passed and evidence.ran, evidence.summary


def test_a_quiet_pytest_command_is_still_counted(tmp_path: Path) -> None:
    """`pytest -qq tests` prints no counts line; Codur sets the verbosity for its own
    reading, so the correct fix is verified on the counts (and a pytest command that
    reports none is no pass)."""
    write_files(tmp_path, {"calc.py": CALC, "tests/test_calc.py": TEST_ADD})
    ctx, _ = watched_context(tmp_path)
    evidence = TestCheck(runner="command", command=["pytest", "-qq", "tests"]).run(ctx)
    assert evidence.passed and evidence.ran and "1 passed" in evidence.summary


def test_a_unittest_command_that_reports_no_counts_is_not_verified(tmp_path: Path) -> None:
    quitting = "import os\n\nos._exit(0)\n" + CALC
    write_files(tmp_path, {"calc.py": quitting, "tests/test_calc.py": UNITTEST})
    ctx, _ = watched_context(tmp_path)
    command = ["python", "-m", "unittest", "discover", "-s", "tests"]
    evidence = TestCheck(runner="command", command=command).run(ctx)
    assert not (evidence.passed and evidence.ran), evidence.summary


def test_the_failed_tests_stage_still_names_what_failed(tmp_path: Path) -> None:
    """The first stage lists passes (`-rp`) and failures alike: the model is told which
    test failed (on the second version, `-rp` replaced `-rfE` and the failing list was
    empty, so candidates were checked on the whole plan)."""
    write_files(tmp_path, {"calc.py": CALC_BUG, "tests/test_calc.py": TEST_ADD})
    ctx, _ = watched_context(tmp_path)
    evidence = TestCheck(paths=["tests"], first=["tests/test_calc.py::test_add"]).run(ctx)
    assert not evidence.passed
    assert evidence.failing_tests == ["tests/test_calc.py::test_add"]


def test_ids_of_tests_outside_the_folder_are_not_the_projects(tmp_path: Path) -> None:
    """The docstrings' generated test lives outside the folder: its id is no test of the
    project's to run first (on the second version: `no such file`, never passing)."""
    from codur.verify.project_tests import staged_tests

    tests = {"tests/test_calc.py": TEST_ADD, "tests/test_double.py": DOUBLE}
    write_files(tmp_path, {"calc.py": CALC, **tests})
    failing = ["tests/test_calc.py::test_add", "test_codur_doctest.py::test_add_1"]
    files = (sorted(tests), sorted(tests))
    check, _ = staged_tests(tmp_path, VerifyConfig(**SLOW), files, [], failing)
    assert check.first == ["tests/test_calc.py::test_add"]


@pytest.mark.parametrize("name", ["calc_tests", "calc_test"])
def test_test_cases_in_a_module_no_runner_s_names_find_are_run_and_protected(
    tmp_path: Path, name: str
) -> None:
    """A user's `calc_tests.py` (test cases, run by `python -m unittest calc_tests`):
    neither pytest's names nor unittest's `test*.py` find it. Before, the task naming it
    made it the file to edit, calc.py read-only, and no check ran (`unverified`); a
    `calc_test.py` was given to pytest, which that interpreter lacks (exit 12)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = tmp_path / "work"
    write_files(root, {"calc.py": CALC_BUG, f"{name}.py": UNITTEST})
    python = venv / "bin" / "python"
    flags = ["--no-model", "--json", "-o", f"tools.python={python}", *CLI_SLOW]
    done = run_cli([f"make the tests in {name}.py pass", *flags], root, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    runs = [e for e in events if e["event"] == "verify.run"]
    assert runs[-1]["command"] == ["python", "-m", "unittest", name]
    assert events[-1]["status"] == "verified"
    assert (root / "calc.py").read_text() == CALC
    assert (root / f"{name}.py").read_text() == UNITTEST
    scope = decide_scope(f"make the tests in {name}.py pass", root, "expected.txt")
    assert f"{name}.py" in scope.oracle and scope.targets == ()
    assert "part of the check" in (scope.why_not(f"{name}.py") or "")


def test_a_module_pytest_s_names_miss_makes_pytest_run_every_module_by_path(
    tmp_path: Path,
) -> None:
    """Given the folder, pytest would pass over `calc_tests.py` (even when the file is
    named too, pytest 9 collects it once, by the folder's rules)."""
    pytest_style = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    files = {"calc.py": CALC, "tests/test_add.py": pytest_style, "tests/calc_tests.py": UNITTEST}
    write_files(tmp_path, files)
    ctx, _ = watched_context(tmp_path)
    result = verify_task(ctx, VerifyConfig(**SLOW), [], [])
    check = result.plan.checks[0]
    assert check.runner == "pytest" and check.paths == ["tests/calc_tests.py", "tests/test_add.py"]
    assert result.passed and "3 passed" in result.evidence[0].summary, result.evidence


def test_a_project_installed_editable_is_fixed_in_the_search_s_copies(tmp_path: Path) -> None:
    """`pip install -e .` puts the project's `src/` on its Python's path: a probe's run
    judged every candidate of the repair search against the workspace's code (the copy's
    tests imported it), and ended `found no fix`."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = tmp_path / "work"
    write_files(root, {"src/calc.py": CALC_BUG, "tests/test_calc.py": UNITTEST})
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "work.pth").write_text(f"{root / 'src'}\n")  # what an editable install writes
    python = venv / "bin" / "python"
    flags = ["--no-model", "--json", "-o", f"tools.python={python}", *CLI_SLOW]
    done = run_cli(["make the tests pass", *flags], root, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "src" / "calc.py").read_text() == CALC


def test_unittest_runs_modules_by_name_only_where_they_import_by_name(tmp_path: Path) -> None:
    """`tests/calc_test.py` in a folder without `__init__.py` imports its sibling
    `helpers` only with its folder on the path, as pytest puts it: by name under
    unittest, the import failed before and after any fix (a reviewer's case)."""
    from codur.verify import detect

    case = UNITTEST.replace("from calc import", "from helpers import CASES\nfrom calc import")
    write_files(tmp_path, {"calc.py": CALC, "tests/calc_test.py": case, "tests/helpers.py": ""})
    tests = ["tests/calc_test.py", "tests/helpers.py"]
    found = detect.suite(tmp_path, VerifyConfig(), tests, ["tests/calc_test.py"])
    assert found.runner == "pytest" and found.paths == ["tests"]
    (tmp_path / "tests" / "__init__.py").write_text("")
    found = detect.suite(tmp_path, VerifyConfig(), tests, ["tests/calc_test.py"])
    assert found.runner == "unittest" and found.paths == ["tests/calc_test.py"]


def test_a_test_command_is_shown_as_it_could_be_typed_again() -> None:
    """`--test-cmd "pytest -m 'not slow' -q"` showed as `pytest -m not slow -q`, another
    command when pasted (a probe's report)."""
    from codur.eventlines import VERBOSE

    event = {"stage": "suite", "command": ["pytest", "-m", "not slow", "-q"], "passed": True}
    line = VERBOSE["verify.run"]({**event, "duration_s": 1.0})
    assert line == "verify (the whole suite): pytest -m 'not slow' -q -> passed in 1.0s"
