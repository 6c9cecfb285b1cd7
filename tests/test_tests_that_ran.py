"""The tests that call a changed function are those the suite ran and passed: pytest's
own list of passes decides where the files' reading cannot (a probe's false `verified`s:
the only test of the fix deselected by the project's options, skipped by a conftest
hook, or never collected; and an honest fix ended `unverified` because its test sat
under a `skipif` that did not apply). Real projects, real pytest, no model."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from codur.verify.calls import uncalled, uncalled_of

CALC = "def scale(x, f):\n    return x - f\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = (
    "import sys\n\nimport pytest\n\nfrom calc import mul, scale\n\n\n{mark}"
    "def test_scale():\n    assert scale(3, 5) == 8\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)
TASK = "fix scale in calc.py: scale(2, 2) should return 4"


def project(root: Path, mark: str, ini: str = "", conftest: str = "") -> Path:
    (root / "tests").mkdir()
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TESTS.format(mark=mark))
    (root / "pytest.ini").write_text(f"[pytest]\npythonpath = .\n{ini}")
    if conftest:
        (root / "tests" / "conftest.py").write_text(conftest)
    return root


RUNSLOW = (
    "import pytest\n\n\ndef pytest_collection_modifyitems(config, items):\n"
    "    for item in items:\n        if 'slow' in item.keywords:\n"
    "            item.add_marker(pytest.mark.skip(reason='needs --runslow'))\n"
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mark", "ini", "conftest"),
    [
        ("@pytest.mark.slow\n", 'addopts = -m "not slow"\nmarkers = slow\n', ""),
        ("", "addopts = --deselect tests/test_calc.py::test_scale\n", ""),
        ("@pytest.mark.slow\n", "markers = slow\n", RUNSLOW),
        ("", "python_functions = check_* test_mul\n", ""),
    ],
)
def test_a_test_the_suite_did_not_run_calls_nothing(
    tmp_path: Path, mark: str, ini: str, conftest: str
) -> None:
    done = run_cli(["--no-model", TASK], cwd=project(tmp_path, mark, ini, conftest))
    assert done.returncode == 10, done.stdout + done.stderr  # it said `verified`, exit 0
    assert "no test calls calc.py: scale" in done.stdout + done.stderr


@pytest.mark.slow
def test_a_test_under_a_skipif_that_ran_calls(tmp_path: Path) -> None:
    """A `skipif(sys.platform == "win32")` test ran here and passed: it calls `scale`
    (before: `unverified`, no test calls paths.py: depth)."""
    mark = "@pytest.mark.skipif(sys.platform == 'win32', reason='posix')\n"
    done = run_cli(["--no-model", "fix scale in calc.py"], cwd=project(tmp_path, mark))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified (project tests, 2 passed)" in done.stdout + done.stderr


def test_the_ids_that_passed_decide_which_tests_call(tmp_path: Path) -> None:
    mark = "@pytest.mark.skipif(sys.platform == 'win32', reason='posix')\n"
    root = project(tmp_path, mark)
    changed = {"calc.py": ["scale"]}
    assert uncalled_of(root, changed, ["tests"]) == ["calc.py: scale"]  # may not run
    ran = ["tests/test_calc.py::test_scale", "tests/test_calc.py::test_mul"]
    assert uncalled_of(root, changed, ["tests"], ran) == []
    assert uncalled_of(root, changed, ["tests"], ran[1:]) == ["calc.py: scale"]


def test_a_patched_function_is_not_reached_through_its_caller(tmp_path: Path) -> None:
    """A probe's false `verified`: the test patched `scale` and called `report`, which
    calls `scale`; only direct uses were set aside."""
    calc = CALC + "\n\ndef report(x, f):\n    return f'{scale(x, f)}'\n"
    (tmp_path / "calc.py").write_text(calc)
    (tmp_path / "tests").mkdir()
    test = "from unittest import mock\n\nimport calc\n\n\n@mock.patch('calc.scale', "
    test += "return_value=15)\ndef test_report(fake):\n    assert calc.report(3, 5) == '15'\n"
    (tmp_path / "tests" / "test_report.py").write_text(test)
    assert uncalled(tmp_path, {"calc.py": calc.replace("x - f", "x + f")}) == ["calc.py: scale"]
    other = "import calc\n\n\ndef test_report():\n    assert calc.report(3, 5)\n"
    (tmp_path / "tests" / "test_other.py").write_text(other)
    assert uncalled(tmp_path, {"calc.py": calc.replace("x - f", "x + f")}) == []


def test_a_test_defined_again_under_its_name_is_replaced(tmp_path: Path) -> None:
    """pytest collects the last `test_scale` of a file: the first calls nothing."""
    test = "from calc import scale\n\n\ndef test_scale():\n    assert scale(3, 5) == 8\n\n\n"
    test += "def test_scale():\n    assert True\n"
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(test)
    assert uncalled(tmp_path, {"calc.py": CALC.replace("x - f", "x + f")}) == ["calc.py: scale"]


def test_a_function_of_a_test_file_counts_only_when_called(tmp_path: Path) -> None:
    """A helper or a function no rule makes a test (`python_functions = check_*`) runs
    only when a test calls it; a fixture or a set-up method is called by the framework."""
    test = "from calc import mul, scale\n\n\ndef helper():\n    return scale(1, 1)\n\n\n"
    test += "def check_mul():\n    assert mul(2, 3) == 6\n"
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(test)
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_functions = check_*\n")
    before = {"calc.py": CALC.replace("x - f", "x + f")}
    assert uncalled(tmp_path, before) == ["calc.py: scale"]
    (tmp_path / "test_calc.py").write_text(test.replace("mul(2, 3)", "helper() or mul(2, 3)"))
    assert uncalled(tmp_path, before) == []
    fixture = "import pytest\n\nfrom calc import scale\n\n\n@pytest.fixture\ndef scaled():\n"
    (tmp_path / "test_calc.py").write_text(fixture + "    return scale(1, 1)\n")
    assert uncalled(tmp_path, before) == []


@pytest.mark.slow
def test_a_project_whose_tests_are_its_doctests_is_verified_by_them(tmp_path: Path) -> None:
    """`addopts = --doctest-modules` and no test file: the doctests are the suite (a
    probe's run found `no tests` and ran no check)."""
    pad = 'def pad(s, width):\n    """Pad with dots.\n\n    >>> pad("ab", 4)\n    \'ab..\'\n'
    pad += '    """\n    return s + "." * (width - len(s) - 1)\n'
    (tmp_path / "textutil.py").write_text(pad)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --doctest-modules\n")
    # the search finds the fix in ~18 s; a loaded machine starved its 20 s budget once
    done = run_cli(
        ["--no-model", "-o", "repair.time_budget_s=120", "make the doctests pass"], cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified (project tests, 1 passed)" in done.stdout + done.stderr
    assert "(width - len(s))" in (tmp_path / "textutil.py").read_text()


def test_a_function_whose_own_doctest_passed_is_called(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    changed = {"calc.py": ["scale", "mul"]}
    assert uncalled_of(tmp_path, changed, ["."], ["calc.py::calc.scale"]) == ["calc.py: mul"]


def test_a_test_of_the_same_name_in_another_class_is_another_test(tmp_path: Path) -> None:
    """A reviewer's false `verified`: `TestAdd::test_basic` passed, and the deselected
    `TestScale::test_basic` counted by its name."""
    test = "from calc import mul, scale\n\n\nclass TestAdd:\n    def test_basic(self):\n"
    test += "        mul(2, 3)\n\n\nclass TestScale:\n    def test_basic(self):\n"
    test += "        scale(2, 3)\n"
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text(test)
    changed = {"calc.py": ["scale"]}
    ran = ["test_calc.py::TestAdd::test_basic"]
    assert uncalled_of(tmp_path, changed, ["."], ran) == ["calc.py: scale"]
    record = {"files": [str(tmp_path / "test_calc.py")], "name": "test_basic"}
    assert uncalled_of(tmp_path, changed, ["."], [{**record, "classes": ["TestAdd"]}]) == [
        "calc.py: scale"
    ]
    assert uncalled_of(tmp_path, changed, ["."], [{**record, "classes": ["TestScale"]}]) == []


@pytest.mark.parametrize(
    ("patch", "called"),
    [
        ("@mock.patch('requests.get')\n", True),  # another library's `get`
        ("@mock.patch(f'{MODULE}.get')\n", False),  # built at run time: the project's
        ("@mock.patch('client.Client.get')\n", False),
    ],
)
def test_a_patch_blocks_the_project_s_function_only(
    tmp_path: Path, patch: str, called: bool
) -> None:
    client = "import requests\n\n\nclass Client:\n    def get(self, url):\n"
    client += "        return requests.get(url).ok\n"
    (tmp_path / "client.py").write_text(client)
    test = (
        "from unittest import mock\n\nfrom client import Client\n\nMODULE = 'client.Client'\n\n\n"
    )
    test += patch + "def test_get(fake):\n    Client().get('u')\n"
    (tmp_path / "test_client.py").write_text(test)
    before = {"client.py": client.replace(".ok", ".status")}
    assert uncalled(tmp_path, before) == ([] if called else ["client.py: Client.get"])


MIXIN = (
    "from calc import mul, scale\n\n\nclass ScaleChecks:\n    def test_basic(self):\n"
    "        scale(2, 3)\n\n\nclass AddChecks:\n    def test_basic(self):\n        mul(2, 3)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["same", "other"])
def test_a_test_written_in_a_base_class_is_found_where_it_is_written(
    tmp_path: Path, where: str
) -> None:
    """A reviewer's cases: a test written in a base class (in the test file, or a mixin
    in another file) ran under its subclass; only the mixin that subclass inherits from
    counts (TestScale deselected, its ScaleChecks.test_basic calls nothing)."""
    head = MIXIN if where == "same" else "from mixins import AddChecks, ScaleChecks\n"
    tests = head + "import pytest\n\n\nclass TestAdd(AddChecks):\n    pass\n\n\n"
    tests += "class TestScale(ScaleChecks):\n    pass\n"
    files = {"calc.py": CALC, "tests/test_calc.py": tests}
    files |= {"tests/mixins.py": MIXIN} if where == "other" else {}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = . tests\n")
    done = run_cli(["--no-model", TASK], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified (project tests, 2 passed)" in done.stdout + done.stderr
    marked = tests.replace("class TestScale", "@pytest.mark.skip\nclass TestScale")
    (tmp_path / "tests" / "test_calc.py").write_text(marked)
    (tmp_path / "calc.py").write_text(CALC)
    done = run_cli(["--no-model", TASK], cwd=tmp_path)
    assert done.returncode == 10, done.stdout + done.stderr
    assert "no test calls calc.py: scale" in done.stdout + done.stderr
