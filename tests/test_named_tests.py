"""A test the task names must pass on the files as left: one the project's configuration
deselects, or that skips, is no pass (a hostile probe's runs ended `verified` with the
named test never run). Real projects in temporary folders, real pytest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import debug_log, run_cli

from codur.task import named_tests

CORE = (
    "def total(xs):\n    s = 0\n    for i in range(len(xs) - 1):\n        s += xs[i]\n"
    "    return s\n\n\ndef maximum(xs):\n    return max(xs)\n"
)
TESTS = (
    "import os\n\nimport pytest\n\nfrom stats.core import maximum, total\n\n\n{mark}"
    "def test_total():\n    assert total([1, 2, 3]) == 6\n\n\n"
    "def test_maximum():\n    assert maximum([1, 3]) == 3\n"
)


def test_the_ids_a_task_names() -> None:
    task = "tests/test_core.py::test_total and tests/test_x.py::TestC::test_y[1] fail, fix it."
    expected = ["tests/test_core.py::test_total", "tests/test_x.py::TestC::test_y[1]"]
    assert named_tests(task) == expected
    assert named_tests("fix @tests/test_core.py") == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mark", "addopts"),
    [
        ("", "--deselect tests/test_core.py::test_total"),
        ("@pytest.mark.skipif(not os.environ.get('STATS_DB'), reason='no db')\n", ""),
        ("@pytest.mark.xfail(strict=False)\n", ""),
    ],
    ids=["deselected", "skipped", "xfail"],
)
def test_a_named_test_that_does_not_run_is_no_pass(tmp_path: Path, mark: str, addopts: str) -> None:
    (tmp_path / "src" / "stats").mkdir(parents=True)
    (tmp_path / "src" / "stats" / "__init__.py").write_text("")
    (tmp_path / "src" / "stats" / "core.py").write_text(CORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text(TESTS.format(mark=mark))
    config = f'[tool.pytest.ini_options]\npythonpath = ["src"]\naddopts = "{addopts}"\n'
    (tmp_path / "pyproject.toml").write_text(config)
    args = ["--no-model", "-o", "repair.enabled=false", "tests/test_core.py::test_total fails"]
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # it said `verified`, exit 0
    log = [json.loads(line) for line in debug_log(tmp_path).read_text().splitlines()]
    checks = str([r["checks"] for r in log if r["event"] == "verify.result"])
    assert "did not pass (tests/test_core.py::test_total)" in checks or "skipped" in checks


@pytest.mark.slow
def test_a_call_the_task_states_must_hold_beside_the_tests(tmp_path: Path) -> None:
    """The tests do not call `total`; the task says what it should return. Before, the
    tests passing made it `verified: the check already passes`, the bug left in."""
    (tmp_path / "src" / "stats").mkdir(parents=True)
    (tmp_path / "src" / "stats" / "__init__.py").write_text("")
    (tmp_path / "src" / "stats" / "core.py").write_text(CORE)
    (tmp_path / "tests").mkdir()
    tests = "from stats.core import maximum\n\n\ndef test_maximum():\n"
    tests += "    assert maximum([1, 3]) == 3\n"
    (tmp_path / "tests" / "test_core.py").write_text(tests)
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    task = "fix the bug in src/stats/core.py: total([1, 2, 3]) should return 6"
    done = run_cli(["--no-model", task], cwd=tmp_path)
    assert done.returncode == 10, done.stdout + done.stderr  # checked, by the stated call
    assert "range(len(xs))" in (tmp_path / "src" / "stats" / "core.py").read_text()
    assert "checked against 1 call stated in the task" in done.stdout + done.stderr


@pytest.mark.slow
def test_a_claim_that_holds_of_the_bug_does_not_block_the_fix(tmp_path: Path) -> None:
    """ "returns 3. Expected 6." reads as a claim of 3 (the bug as it is): it held on the
    files as found, so beside the tests it is dropped, not required of every fix."""
    (tmp_path / "src" / "stats").mkdir(parents=True)
    (tmp_path / "src" / "stats" / "__init__.py").write_text("")
    (tmp_path / "src" / "stats" / "core.py").write_text(CORE)
    (tmp_path / "tests").mkdir()
    tests = "from stats.core import total\n\n\ndef test_total():\n"
    (tmp_path / "tests" / "test_core.py").write_text(tests + "    assert total([1, 2, 3]) == 6\n")
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    done = run_cli(["--no-model", "total([1, 2, 3]) returns 3. Expected 6."], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "range(len(xs))" in (tmp_path / "src" / "stats" / "core.py").read_text()


def test_a_named_id_names_its_parameters_and_a_leading_dot_is_dropped() -> None:
    from codur.tools.python import PytestSummary
    from codur.verify.stage_run import Ran, proven

    assert named_tests("./tests/test_core.py::test_total fails") == [
        "tests/test_core.py::test_total"
    ]
    passing = ["tests/test_core.py::test_total[1]", "tests/test_core.py::TestC::test_y"]
    ran = Ran("failing", "pytest", PytestSummary(passed=2, exit_code=0, passing=passing), 0.1)
    ids = ["tests/test_core.py::test_total", "tests/test_core.py::TestC"]
    assert proven(ran, ids, "pytest").unproven == ""  # a reviewer: never passed before
    assert proven(ran, ["tests/test_core.py::test_tot"], "pytest").unproven  # no prefix of it


@pytest.mark.parametrize(
    ("line", "stops"),
    [
        ("__main__.py: error: unrecognized arguments: --cov=x", "install the plugin"),
        ("__main__.py: error: unrecognized arguments: --ff", "use its cache"),
        ("__main__.py: error: argument --level: invalid parse_level value: 'x'", ""),
    ],
)
def test_which_usage_errors_stop_the_run(line: str, stops: str) -> None:
    """An option no plugin knows stops the run; a bad value may be the code's (a conftest
    option's type function) and is left to the search and the model (a reviewer)."""
    from codur.errors import ProjectEnvError
    from codur.verify.evidence import Evidence
    from codur.verify.plan import VerificationPlan
    from codur.verify.preflight import require_runnable
    from codur.verify.result import VerificationResult

    error = f"pytest could not run (exit code 4): ERROR: usage: __main__.py [options]\n{line}\n"
    evidence = Evidence(check="tests", passed=False, command="pytest", summary=error[:300])
    evidence = evidence.model_copy(update={"feedback": error})
    verdict = VerificationResult(
        passed=False, strategy="tests", evidence=[evidence], plan=VerificationPlan()
    )
    if stops:
        with pytest.raises(ProjectEnvError, match=stops):
            require_runnable(verdict)
    else:
        require_runnable(verdict)


@pytest.mark.slow
def test_a_slow_suite_leaves_the_repair_search_time_for_its_failing_test(tmp_path: Path) -> None:
    """The search traced the whole suite and took its time for a candidate's: with a
    suite of 6 s and a budget of 8 s it tried no candidate, though the failing test alone
    runs in a fraction of a second."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (tests / "test_slow.py").write_text(
        "import time\n\n\ndef test_a():\n    time.sleep(3)\n\n\ndef test_b():\n    time.sleep(3)\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    )
    flags = ["--no-model", "-o", "repair.time_budget_s=8"]
    done = run_cli([*flags, "fix the failing test"], cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize(
    ("plugin", "missing", "stops"),
    [
        ("pytest_randomly", "pytest_randomly", True),
        ("mypkg.plugin", "mypkg", True),  # the package is not there at all
        ("mypkg.plugin", "mypkg.helpers", False),  # pytest 8: a module it imports, the code's
    ],
)
def test_a_plugin_not_installed_stops_the_run_and_a_broken_one_does_not(
    plugin: str, missing: str, stops: bool
) -> None:
    from codur.errors import ProjectEnvError
    from codur.verify.preflight import _require_plugins

    text = f"ERROR: Error importing plugin \"{plugin}\": No module named '{missing}'\n"
    if stops:
        with pytest.raises(ProjectEnvError, match=f"loads the plugin {plugin}"):
            _require_plugins(text)
    else:
        _require_plugins(text)
