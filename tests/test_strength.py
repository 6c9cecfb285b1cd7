"""How strong a pass's evidence is: `strength` row by row (a pure function of the checks),
then real runs (the CLI in a subprocess, the Python API, a scripted model, real files)
that end `verified` on the project's own check and `checked` on a derived one, as
`--json`, the summary, `codur runs`, `codur trace`, the API and the exit code say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, debug_log, run_cli, scripted_profile, whole_file

from codur import Agent
from codur.errors import ExitCode
from codur.verify.evidence import Evidence
from codur.verify.strength import status_of, strength


def ev(basis: str | None, passed: bool = True, cases: int = 1, ran: bool = True) -> Evidence:
    check = {
        "expected_output": "output",
        "task_output": "output",
        "project_tests": "tests",
        "partial_tests": "tests",
    }
    kind = "syntax" if basis is None else check.get(basis, "derived")
    return Evidence(
        check=kind, basis=basis, passed=passed, command="c", summary="s", cases=cases, ran=ran
    )


ORACLE = Evidence(check="oracle", passed=True, command="o", summary="unchanged")

ROWS: list[tuple[str, list[Evidence], tuple[str, str, str] | None]] = [
    # (row, the checks' evidence, (level, status, description) or None)
    ("expected output", [ev("expected_output"), ORACLE],
     ("project", "verified", "verified (expected output)")),
    ("project tests", [ev("project_tests", cases=6), ORACLE],
     ("project", "verified", "verified (project tests, 6 passed)")),
    ("both of the project's own", [ev("expected_output"), ev("project_tests", cases=2)],
     ("project", "verified", "verified (expected output; project tests, 2 passed)")),
    ("hollow project tests, then docstring examples", [ev("project_tests", ran=False,
     cases=0), ev("docstrings", cases=3)],
     ("docstring", "checked", "checked against 3 docstring examples")),
    ("an output stated in the task", [ev("task_output")],
     ("task", "checked", "checked against the output stated in the task")),
    ("one call stated in the task", [ev("task_claims")],
     ("task", "checked", "checked against 1 call stated in the task")),
    ("an output and calls stated in the task, and examples", [ev("task_output"),
     ev("task_claims", cases=2), ev("docstrings", cases=4)], ("task", "checked",
     "checked against the output stated in the task and 2 calls stated in the task")),
    ("one docstring example", [ev("docstrings")],
     ("docstring", "checked", "checked against 1 docstring example")),
    ("a test the model wrote", [ev("model_test", cases=2), ORACLE],
     ("model", "checked", "checked by a test the model wrote from the task")),
    ("part of the project tests: the suite cut at its budget", [ev("partial_tests", cases=3),
     ORACLE], ("partial", "checked", "checked by part of the project tests (3 passed; the "
     "whole suite stopped at verify.suite_budget_s)")),
    ("a cut suite keeps even the expected output's pass checked", [ev("expected_output"),
     ev("partial_tests", cases=2)], ("partial", "checked", "checked by part of the project "
     "tests (2 passed; the whole suite stopped at verify.suite_budget_s)")),
    ("the project's test command, no counts", [ev("project_tests", cases=0), ORACLE],
     ("project", "verified", "verified (the project's test command)")),
    ("a failing check is no evidence", [ev("project_tests", passed=False), ev("docstrings")],
     ("docstring", "checked", "checked against 1 docstring example")),
    ("static checks and the oracle only", [ev(None), ORACLE], None),
    ("nothing", [], None),
]  # fmt: skip


@pytest.mark.parametrize(("row", "evidence", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_the_strength_table(row: str, evidence: list[Evidence], expected: tuple | None) -> None:
    found = strength(evidence)
    if expected is None:
        assert found is None, row
        return
    assert (found.level, found.status, found.description) == expected, row
    assert found.owned == (found.status == "verified")


def test_unknown_evidence_is_never_verified() -> None:
    levels = ("project", "partial", "task", "docstring", "model", None)
    assert [status_of(level) for level in levels] == [
        "verified",
        "checked",
        "checked",
        "checked",
        "checked",
        "checked",
    ]


STUB = '''def absolute_sum(values: list) -> int:
    """The sum of the absolute values.
    >>> absolute_sum([1, -2])
    3
    >>> absolute_sum([3])
    3
    """
'''
RIGHT = STUB + "    return sum(abs(v) for v in values)\n"
NO_CROSSCHECK = ["-o", "crosscheck.candidates=0"]


def run_end(root: Path) -> dict:
    lines = debug_log(root).read_text().splitlines()
    return [json.loads(line) for line in lines if '"run.end"' in line][-1]


@pytest.mark.slow
def test_docstring_examples_only_end_checked_everywhere_the_run_is_told(tmp_path: Path) -> None:
    """The only check is the docstring's two examples: `checked`, exit 10, and every place
    that tells how the run ended says so (on main: `verified`, exit 0)."""
    root = tmp_path / "work"
    root.mkdir()
    (root / "solution.py").write_text(STUB)
    flags = [*scripted_profile(tmp_path, [whole_file("solution.py", RIGHT)]), *NO_CROSSCHECK]
    done = run_cli(["implement @solution.py", "--json", *flags], root)
    assert done.returncode == ExitCode.CHECKED == 10, done.stdout + done.stderr
    end = [json.loads(line) for line in done.stdout.splitlines()][-1]
    assert end["event"] == "run.end" and end["status"] == "checked"
    assert end["evidence"] == {
        "level": "docstring",
        "owned": False,
        "description": "checked against 2 docstring examples",
    }
    assert end["exit_code"] == 10 and (root / "solution.py").read_text() == RIGHT

    (root / "solution.py").write_text(STUB)  # again, for the summary a person reads
    flags = [*scripted_profile(tmp_path, [whole_file("solution.py", RIGHT)], "t"), *NO_CROSSCHECK]
    shown = run_cli(["implement @solution.py", *flags], root)
    assert shown.returncode == 10, shown.stdout + shown.stderr
    assert "\nchecked against 2 docstring examples: pytest test_codur_doctest.py" in shown.stdout
    assert "not verified: no expected output or test of the project checked" in shown.stdout
    assert "\nverified" not in shown.stdout

    runs = run_cli(["runs"], root)
    assert runs.stdout.count("checked against 2 docstring examples") == 2, runs.stdout
    trace = run_cli(["trace"], root)
    assert "evidence: checked against 2 docstring examples" in trace.stdout, trace.stdout
    assert "checked  exit code 10" in trace.stdout


@pytest.mark.slow
def test_the_projects_own_checks_end_verified_and_say_which(tmp_path: Path) -> None:
    """Expected output, then tests that import the code: `verified`, exit 0, naming them."""
    root = tmp_path / "out"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    done = run_cli(
        ["fix @main.py", *scripted_profile(tmp_path, [whole_file("main.py", FIXED)])], root
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\nverified (expected output): python main.py" in done.stdout
    end = run_end(root)
    assert (end["status"], end["evidence"]["level"], end["evidence"]["owned"]) == (
        "verified",
        "project",
        True,
    )

    tested = tmp_path / "tests"
    tested.mkdir()
    (tested / "util.py").write_text("def double(x):\n    return x + x + 1\n")
    test = "from util import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
    (tested / "test_util.py").write_text(test)
    fixed = "def double(x):\n    return x + x\n"
    flags = scripted_profile(tmp_path, [whole_file("util.py", fixed)], "u")
    done = run_cli(["fix @util.py", "--json", *flags], tested)
    assert done.returncode == 0, done.stdout + done.stderr
    end = json.loads(done.stdout.splitlines()[-1])
    assert end["status"] == "verified"
    assert end["evidence"]["description"] == "verified (project tests, 1 passed)"


@pytest.mark.slow
def test_a_call_the_task_states_is_derived_evidence(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "calc.py").write_text("def total(a, b):\n    return sum(range(a, b))\n")
    fixed = "def total(a, b):\n    return sum(range(a, b + 1))\n"
    flags = [*scripted_profile(tmp_path, [whole_file("calc.py", fixed)]), "--json"]
    done = run_cli(["fix @calc.py so that `total(1, 5)` returns 15", *flags], root)
    assert done.returncode == 10, done.stdout + done.stderr
    end = json.loads(done.stdout.splitlines()[-1])
    assert (end["status"], end["evidence"]["level"]) == ("checked", "task")
    assert end["evidence"]["description"] == "checked against 1 call stated in the task"


@pytest.mark.slow
def test_the_api_keeps_is_verified_for_the_projects_own_evidence(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "solution.py").write_text(STUB)
    script = tmp_path / "script.yaml"
    script.write_text(json.dumps([whole_file("solution.py", RIGHT)]))
    quiet = ["repair.enabled=false", "sampling.candidates=0", "crosscheck.candidates=0"]
    agent = Agent(root, "scripted/s", enable_planning=False, script=str(script), overrides=quiet)
    result = agent.run("implement @solution.py")
    assert (result.status, result.is_verified, result.passed_checks) == ("checked", False, True)
    assert result.exit_code == 10 and result.evidence is not None
    assert (result.evidence.level, result.evidence.owned) == ("docstring", False)
    assert result.evidence.description == "checked against 2 docstring examples"

    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    script.write_text(json.dumps([whole_file("main.py", FIXED)]))
    result = agent.run("fix @main.py")
    assert (result.status, result.is_verified, result.passed_checks) == ("verified", True, True)
    assert result.exit_code == 0 and result.evidence.owned
