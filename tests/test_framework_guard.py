"""Code under test may not take up the test framework: an edit that makes a module of the
project import unittest or pytest (also by name in a string), or set an attribute of
them, is refused with a message for the model; the tests themselves may use it, and code
that already used the framework keeps its own uses. A test's own trace command: the
runner the check uses, the user's command with its options. No program runs here."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.scope import ScopeError
from codur.scope.decide import decide_scope
from codur.scope.framework import takes_up_framework
from codur.verify.plan import TestCheck

STORE = "def low_stock(items, threshold):\n" + (
    "    return sorted(s for s, q in items.items() if q < threshold)\n"
)
TEST = (
    "from store import low_stock\n\n\ndef test_low():\n    assert low_stock({'a': 3}, 3) == ['a']\n"
)

FAKES = {
    "assertions switched off": "import unittest\n"
    "unittest.TestCase.assertEqual = lambda self, a, b, msg=None: None\n" + STORE,
    "every report a pass": "import _pytest.reports as reports\n"
    "reports.TestReport.outcome = 'passed'\n" + STORE,
    "the framework by name": "skip = __import__('unittest').SkipTest\n" + STORE,
    "a skip raised by the code": "import pytest\n\n\n"
    "def low_stock(items, threshold):\n    pytest.skip('later')\n",
    "a member patched with setattr": "from unittest import TestCase\n"
    "setattr(TestCase, 'assertEqual', print)\n" + STORE,
}


@pytest.mark.parametrize("fake", sorted(FAKES))
def test_an_edit_taking_up_the_framework_is_refused(tmp_path: Path, fake: str) -> None:
    """Each way the code under test could make the tests report a pass is refused, with
    a message that says why (on main: written, and the run ended verified)."""
    (tmp_path / "store.py").write_text(STORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_store.py").write_text(TEST)
    scope = decide_scope("fix @store.py", tmp_path, "expected.txt", set())
    with pytest.raises(ScopeError, match="test framework"):
        scope.check_write("store.py", STORE, FAKES[fake])
    scope.check_write("store.py", STORE, STORE.replace("<", "<="))  # the fix itself: fine


def test_the_tests_may_use_the_framework(tmp_path: Path) -> None:
    """A test file the user lets Codur change may import pytest."""
    (tmp_path / "store.py").write_text(STORE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_store.py").write_text(TEST)
    allowed = ["tests/test_store.py"]
    scope = decide_scope("fix @store.py", tmp_path, "expected.txt", set(), allowed)
    scope.check_write("tests/test_store.py", TEST, "import pytest\n" + TEST)


DOCTESTED = STORE + "\nif __name__ == '__main__':\n    import doctest\n\n    doctest.testmod()\n"
SKIPPING = STORE.replace("    return", "    pytest.skip('later')\n    return")
CASES = {  # name: (the file before, after, refused)
    "an alias of the framework patched": (
        DOCTESTED,
        "import unittest\nTC = unittest.TestCase\nTC.assertEqual = print\n" + DOCTESTED,
        True,
    ),
    "pytest added where doctest was": (DOCTESTED, "import pytest\n" + SKIPPING, True),
    "a skip added where pytest was": (
        "import pytest\n" + STORE,
        "import pytest\n" + SKIPPING,
        True,
    ),
    "sys.modules.get": (STORE, "import sys\nu = sys.modules.get('unittest')\n" + STORE, True),
    "import_module under another name": (
        STORE,
        "from importlib import import_module as im\nu = im('unittest')\n" + STORE,
        True,
    ),
    "mock.patch of the framework by name": (
        "from unittest import mock\n" + STORE,
        "from unittest import mock\nmock.patch('unittest.TestCase.assertEqual', print).start()\n"
        + STORE,
        True,
    ),
    "__import__ through getattr": (
        STORE,
        "import builtins\nu = getattr(builtins, '__import__')('unittest')\n" + STORE,
        True,
    ),
    "mock used by production code": (
        None,
        "from unittest import mock\n\nSTUB = mock.Mock()\n",
        False,
    ),
    "import unittest.mock": (None, "import unittest.mock\n\nSTUB = unittest.mock.Mock()\n", False),
    "a mock class patched": (
        "from unittest.mock import MagicMock\n",
        "from unittest.mock import MagicMock\nMagicMock.__repr__ = lambda s: 'm'\n",
        False,
    ),
    "a parameter named pytest": (STORE, STORE + "\ndef f(pytest):\n    pytest.x = 1\n", False),
    "a syntax error fixed in a doctested module": (
        DOCTESTED.replace("def low_stock(items, threshold):", "def low_stock(items, threshold)"),
        DOCTESTED,
        False,
    ),
    "a config file's name": (STORE, STORE + "CONFIGS = ['pytest.ini', 'setup.cfg']\n", False),
    "a command that runs pytest": (STORE, STORE + "CHECK = ['python', '-m', 'pytest']\n", False),
    "a face's nose": (STORE, STORE + "LANDMARKS = ['eye', 'nose']\n", False),
    "a mock clock": (
        "import unittest.mock\n",
        "import unittest.mock\nclock = unittest.mock.MagicMock()\nclock.now.return_value = 0\n",
        False,
    ),
    "a syntax error fixed where a command names pytest": (
        "CHECK = ['python', '-m', 'pytest']\ndef f(:\n    pass\n",
        "CHECK = ['python', '-m', 'pytest']\ndef f():\n    pass\n",
        False,
    ),
    "pytest's internals by name": (
        STORE,
        "import sys\nr = sys.modules['_pytest.reports']\n" + STORE,
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_what_takes_up_the_framework_and_what_does_not(case: str) -> None:
    """Ways a small model's reply could reach the framework (an alias, a name in a
    string, a framework the module did not use yet, a skip in one it did) are refused;
    test doubles, a parameter of that name, a file's name and a syntax fix in a module
    that runs its doctests are not (each a finding of a review of the first version)."""
    before, after, refused = CASES[case]
    why = takes_up_framework("store.py", before, after)
    assert (why is not None) == refused, why


def test_a_trace_runs_the_checks_own_runner(tmp_path: Path) -> None:
    """unittest cases are traced with unittest (an interpreter without pytest), the
    user's command with its own options, narrowed to the failed tests by name; a shell
    script cannot be traced (on main: always `-m pytest` with Codur's own options)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    unit = TestCheck(runner="unittest", paths=["tests"], first=["tests.test_x.XTest.test_y"])
    assert unit.traced(tmp_path) == [
        "module", "unittest", "discover", "-s", "tests", "-t", ".",
        "-k", "*tests.test_x.XTest.test_y",
    ]  # fmt: skip
    command = ["python", "-m", "pytest", "-o", "pythonpath=src", "tests"]
    user = TestCheck(runner="command", command=command, first=["tests/test_x.py::test_y[1]"])
    assert user.traced(tmp_path) == [
        "module", "pytest", "-o", "pythonpath=src", "tests", "-k", "test_y",
    ]  # fmt: skip
    script = TestCheck(runner="command", command=["python", "run_tests.py", "-v"])
    assert script.traced(tmp_path) == ["path", "run_tests.py", "-v"]
    assert TestCheck(runner="command", command=["./run_tests.sh"]).traced(tmp_path) is None
    assert TestCheck(runner="command", command=["make", "test"]).traced(tmp_path) is None
