"""Do the tests call the functions a run changed (codur/verify/calls.py)? Real files in a
temporary folder; each case is a project a run could leave. Many came from a hostile
review: edits no test runs that an earlier reading took as called."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codur.verify.calls import changed_functions, uncalled

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SUB = "\n\ndef sub(a, b):\n    return a - b\n"
PLUS = CALC.replace("a + b", "_plus(a, b)") + "\n\ndef _plus(a, b):\n    return a + b\n"
MINUS = "\n\ndef sub(a, b):\n    return _minus(a, b)\n\n\ndef _minus(a, b):\n    return a - b\n"
OVERLOADS = "@overload\ndef f(x: int): ...\n@overload\ndef f(x: str): ...\n"
OVERLOADS += "def f(x):\n    return x\n"
PAIR = "class Pair:\n    def __init__(self, v):\n        self.v = v\n\n"
PAIR += "    def __eq__(self, other):\n        return self.v == other.v\n"


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def missed(tmp_path: Path, files: dict[str, str], before: dict[str, str | None]) -> list[str]:
    return uncalled(project(tmp_path, files), before)


def test_a_new_function_no_test_uses_is_uncalled(tmp_path: Path) -> None:
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]


def test_a_new_test_of_it_calls_it(tmp_path: Path) -> None:
    test = TEST.replace("add\n", "add, sub\n", 1)
    test += "\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": test}
    assert missed(tmp_path, files, {"calc.py": CALC}) == []


CALLED = {
    "a called function calls it": (PLUS, TEST),
    "import-time code uses it": (CALC + "\n\nOPS = {'-': lambda a, b: sub(a, b)}\n" + SUB, TEST),
    "a decorator may register it": (
        CALC + "\n\n@app.route('/sub')\ndef sub(a, b):\n    return 1\n",
        TEST,
    ),
    "add changed; the test calls add": (CALC.replace("a + b", "a+b  "), TEST),
    "imported under another name": (CALC + SUB, "from calc import sub as minus\n\nminus(3, 1)\n"),
    "a string names it": (CALC + SUB, "import calc\n\ngetattr(calc, 'sub')(3, 1)\n"),
    "its class is used: a special method": (
        CALC + PAIR,
        "from calc import Pair\n\nPair(1) == Pair(1)\n",
    ),
    "a subclass is used": (
        CALC + PAIR + "\n\nclass Twin(Pair):\n    pass\n",
        "from calc import Twin\n\nTwin(1) == Twin(1)\n",
    ),
}


@pytest.mark.parametrize("why", CALLED)
def test_what_counts_as_called(tmp_path: Path, why: str) -> None:
    code, test = CALLED[why]
    files = {"calc.py": code, "tests/test_calc.py": test}
    assert missed(tmp_path, files, {"calc.py": CALC}) == [], why


UNCALLED = {
    "re-exported by the package": (
        {"pkg/__init__.py": "from pkg.ops import add, sub\n\n__all__ = ['add', 'sub']\n"},
        "pkg/ops.py: sub",
    ),
    "named in comments and docstrings": (
        {"pkg/__init__.py": '"""add and sub."""\n# sub: see ops\n'},
        "pkg/ops.py: sub",
    ),
    "a property nobody reads": (
        {
            "pkg/ops.py": CALC + "\n\nclass Box:\n    @property\n    def size(self):\n"
            "        return 1\n"
        },
        "pkg/ops.py: Box.size",
    ),
    "a cached function nobody calls": (
        {
            "pkg/ops.py": "import functools\n\n" + CALC + "\n\n@functools.lru_cache\n"
            "def sub(a, b):\n    return a - b\n"
        },
        "pkg/ops.py: sub",
    ),
    "a method named like one the tests call on something else": (
        {"pkg/ops.py": CALC + "\n\nclass Job:\n    def run(self):\n        return 1\n"},
        "pkg/ops.py: Job.run",
    ),
    "the special method of a class nobody uses": (
        {"pkg/ops.py": "def add(a, b):\n    return a + b\n\n\n" + PAIR},
        "pkg/ops.py: Pair.__eq__",
    ),
    "import-time code of a file no test loads": (
        {"examples/demo.py": "from pkg.ops import sub\n\nprint(sub(3, 1))\n"},
        "pkg/ops.py: sub",
    ),
    "form feeds before it": (
        {"pkg/ops.py": "\x0c\n\x0c\ndef add(a, b):\n    return a + b\n" + SUB},
        "pkg/ops.py: sub",
    ),
}
OPS_TEST = "import subprocess\n\nfrom pkg.ops import add\n\n\ndef test_add():\n"
OPS_TEST += "    assert add(1, 2) == 3\n    subprocess.run(['true'])\n"


@pytest.mark.parametrize("why", UNCALLED)
def test_what_does_not_count_as_called(tmp_path: Path, why: str) -> None:
    extra, expected = UNCALLED[why]
    files = {"pkg/ops.py": CALC + SUB, "tests/test_ops.py": OPS_TEST, **extra}
    before = {"pkg/ops.py": CALC}
    assert expected in missed(tmp_path, files, before), why


def test_a_main_block_counts_only_when_a_test_runs_the_script(tmp_path: Path) -> None:
    cli = "def main():\n    print(1)\n\n\nif __name__ == '__main__':\n    main()\n"
    imports = "import cli\n\n\ndef test_it():\n    assert cli\n"
    files = {"cli.py": cli, "test_cli.py": imports}
    assert missed(tmp_path, files, {"cli.py": None}) == ["cli.py: main"]
    runs = "import subprocess, sys\n\nsubprocess.run([sys.executable, 'cli.py'])\nimport cli\n"
    (tmp_path / "test_cli.py").write_text(runs)
    assert uncalled(tmp_path, {"cli.py": None}) == []
    (tmp_path / "test_cli.py").write_text(
        "import subprocess, sys\n\nsubprocess.run([sys.executable, '-m', 'cli'])\n"
    )
    assert uncalled(tmp_path, {"cli.py": None}) == []


def test_a_helper_only_an_uncalled_function_calls_is_uncalled(tmp_path: Path) -> None:
    files = {"calc.py": CALC + MINUS, "tests/test_calc.py": TEST}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub", "calc.py: _minus"]


def test_its_own_recursion_does_not_call_it(tmp_path: Path) -> None:
    code = CALC + "\n\ndef fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n"
    assert missed(tmp_path, {"calc.py": code, "test_calc.py": TEST}, {"calc.py": CALC}) == [
        "calc.py: fact"
    ]


def test_a_method_is_called_through_another_module(tmp_path: Path) -> None:
    files = {
        "shop/cart.py": "class Cart:\n    def total(self):\n        return 1\n",
        "shop/api.py": "from shop.cart import Cart\n\ndef checkout():\n    return Cart().total()\n",
        "tests/test_api.py": "from shop.api import checkout\n\ntest = checkout()\n",
    }
    before = {"shop/cart.py": files["shop/cart.py"].replace("return 1", "return 0")}
    assert missed(tmp_path, files, before) == []


def test_a_new_file_counts_every_function_in_it(tmp_path: Path) -> None:
    keywords = "\n\ndef kw(a, *, b, c=1):\n    return a\n"  # b: a None among kw_defaults
    files = {"calc.py": CALC, "extra.py": SUB + keywords, "tests/test_calc.py": TEST}
    assert missed(tmp_path, files, {"extra.py": None}) == ["extra.py: sub", "extra.py: kw"]


def test_changed_functions_ignore_docstrings_and_count_repeated_names() -> None:
    assert changed_functions(OVERLOADS, OVERLOADS.replace("return x", "return 2 * x")) == ["f"]
    documented = CALC.replace(":\n", ':\n    """Adds."""\n', 1)
    assert changed_functions(CALC, documented) == []
    assert changed_functions(CALC, "def add(:\n") == []  # no longer parses: no answer
    assert changed_functions(CALC, CALC.replace("b)", "b=0)", 1)) == ["add"]


def test_tests_and_unchanged_files_are_not_judged(tmp_path: Path) -> None:
    files = {"calc.py": CALC, "tests/test_calc.py": TEST + SUB}
    assert missed(tmp_path, files, {"tests/test_calc.py": TEST, "calc.py": CALC}) == []


def test_code_too_deep_to_compare_or_files_that_are_no_files_give_no_answer(
    tmp_path: Path,
) -> None:
    branches = "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, 400))
    deep = "def f(x):\n    if x == 0:\n        return 0\n" + branches
    assert isinstance(changed_functions(None, deep), list)  # no RecursionError
    sum_chain = "\n\ndef g():\n    return " + " + ".join(["1"] * 990) + "\n"  # dump: too deep
    project(tmp_path, {"calc.py": CALC + SUB + sum_chain, "tests/test_calc.py": TEST})
    os.mkfifo(tmp_path / "pipe.py")  # reading it would block for ever
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    assert "calc.py: sub" in uncalled(tmp_path, {"calc.py": CALC})


def test_only_the_suite_s_tests_count(tmp_path: Path) -> None:
    """A test outside `testpaths` never runs: what it calls is not called."""
    bench = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "bench/test_sub.py": bench}
    project(tmp_path, files)
    assert uncalled(tmp_path, {"calc.py": CALC}, ["tests"]) == ["calc.py: sub"]
    assert uncalled(tmp_path, {"calc.py": CALC}) == []  # the whole folder is the suite


@pytest.mark.parametrize(
    "marked",
    [
        "@pytest.mark.skipif(not os.environ.get('RELEASE'), reason='release only')\n",
        "@pytest.mark.xfail\n",
        "@unittest.skip('later')\n",
    ],
)
def test_a_test_that_may_not_run_calls_nothing(tmp_path: Path, marked: str) -> None:
    """A probe's false `verified`: the only test of the changed function skipped unless
    an environment variable was set, and the suite passed without it."""
    release = f"import os\n\nimport pytest\n\nfrom calc import sub\n\n\n{marked}"
    release += "def test_sub():\n    assert sub(3, 1) == 2\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_release.py": release}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    module = "import pytest\n\nfrom calc import sub\n\npytestmark = pytest.mark.skip\n\n\n"
    (tmp_path / "tests" / "test_release.py").write_text(module + "def test_sub():\n    sub(1, 1)\n")
    assert uncalled(tmp_path, {"calc.py": CALC}) == ["calc.py: sub"]


def test_markers_read_as_pytest_reads_them(tmp_path: Path) -> None:
    """A marker on one parameter leaves the others running; a module's `importorskip` or
    an annotated `pytestmark` may skip every test (a reviewer's cases)."""
    param = "import pytest\n\nfrom calc import sub\n\n\n@pytest.mark.parametrize('a', "
    param += "[1, pytest.param(2, marks=pytest.mark.xfail)])\ndef test_sub(a):\n    sub(a, 1)\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": param}
    assert missed(tmp_path, files, {"calc.py": CALC}) == []
    for head in ("pytest.importorskip('numpy')\n", "pytestmark: list = [pytest.mark.skip]\n"):
        module = f"import pytest\n\nfrom calc import sub\n\n{head}\n\ndef test_sub():\n"
        (tmp_path / "tests" / "test_sub.py").write_text(module + "    sub(1, 1)\n")
        assert uncalled(tmp_path, {"calc.py": CALC}) == ["calc.py: sub"], head


@pytest.mark.parametrize(
    "body",
    [
        "    pytest.skip('later')\n    assert sub(3, 1) == 2\n",
        "    if not os.environ.get('DB'):\n        pytest.skip('no db')\n    sub(1, 1)\n",
        "    pytest.xfail('known')\n    sub(1, 1)\n",
        "    raise unittest.SkipTest('later')\n    sub(1, 1)\n",
    ],
)
def test_a_test_that_may_skip_itself_calls_nothing(tmp_path: Path, body: str) -> None:
    """A probe's case: `pytest.skip()` in the body left the test counted as calling."""
    head = "import os\nimport unittest\n\nimport pytest\n\nfrom calc import sub\n\n\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST}
    files["tests/test_sub.py"] = head + "def test_sub():\n" + body
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]


def test_a_test_class_whose_set_up_skips_calls_nothing(tmp_path: Path) -> None:
    cls = "import unittest\n\nfrom calc import sub\n\n\nclass TestSub(unittest.TestCase):\n"
    cls += "    def setUp(self):\n        self.skipTest('no db')\n\n"
    cls += "    def test_sub(self):\n        self.assertEqual(sub(3, 1), 2)\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": cls}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    (tmp_path / "tests" / "test_sub.py").write_text(cls.replace("self.skipTest('no db')", "pass"))
    assert uncalled(tmp_path, {"calc.py": CALC}) == []


def test_a_skip_marker_under_the_module_s_own_name_is_read(tmp_path: Path) -> None:
    """`needs_db = pytest.mark.skipif(...)` then `@needs_db` (or `pytestmark = needs_db`)."""
    head = "import os\n\nimport pytest\n\nfrom calc import sub\n\n"
    head += "needs_db = pytest.mark.skipif(not os.environ.get('DB'), reason='db')\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST}
    files["tests/test_sub.py"] = head + "\n\n@needs_db\ndef test_sub():\n    sub(1, 1)\n"
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    module = head + "pytestmark = needs_db\n\n\ndef test_sub():\n    sub(1, 1)\n"
    (tmp_path / "tests" / "test_sub.py").write_text(module)
    assert uncalled(tmp_path, {"calc.py": CALC}) == ["calc.py: sub"]


@pytest.mark.parametrize(
    "patch",
    [
        "def test_sub(monkeypatch):\n    monkeypatch.setattr(calc, 'sub', lambda a, b: 2)\n",
        "def test_sub(monkeypatch):\n    monkeypatch.setattr('calc.sub', lambda a, b: 2)\n",
        "@mock.patch('calc.sub', return_value=2)\ndef test_sub(fake):\n",
        "def test_sub():\n    with mock.patch.object(calc, 'sub', return_value=2):\n",
    ],
)
def test_a_call_the_test_patched_out_is_no_call(tmp_path: Path, patch: str) -> None:
    """A probe's case: the test replaced `sub` and called the replacement."""
    head = "from unittest import mock\n\nimport calc\n\n\n"
    indent = "        " if patch.rstrip().endswith(":") and "with" in patch else "    "
    test = head + patch + f"{indent}assert calc.sub(3, 1) == 2\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": test}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    also = "\n\ndef test_real():\n    assert calc.sub(3, 1) == 2\n"
    (tmp_path / "tests" / "test_sub.py").write_text(test + also)
    assert uncalled(tmp_path, {"calc.py": CALC}) == []  # another test calls the real one


def test_the_project_s_python_files_are_its_tests(tmp_path: Path) -> None:
    """pytest's `python_files = check_*.py`: those files are the tests that call."""
    check = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"
    files = {"calc.py": CALC + SUB, "check_calc.py": check}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    (tmp_path / "pytest.ini").write_text("[pytest]\npython_files = check_*.py\n")
    assert uncalled(tmp_path, {"calc.py": CALC}) == []


SUB_TEST = "def test_sub():\n    assert sub(3, 1) == 2\n"


@pytest.mark.parametrize(
    "module",
    [
        "from pytest import skip\n\n\ndef test_sub():\n    skip('later')\n    sub(1, 1)\n",
        "pytest.skip('no db', allow_module_level=True)\n\n\n" + SUB_TEST,
        "if sys.platform != 'none':\n    pytestmark = pytest.mark.skip('x')\n\n\n" + SUB_TEST,
        "class TestSub:\n    pytestmark = pytest.mark.skip('x')\n\n    def test_sub(self):\n"
        "        sub(1, 1)\n",
        "@pytest.fixture\ndef db():\n    pytest.skip('no db')\n\n\n"
        "def test_sub(db):\n    sub(1, 1)\n",
        "def need_db():\n    pytest.skip('no db')\n\n\ndef test_sub():\n    need_db()\n"
        "    sub(1, 1)\n",
        "slow = [pytest.mark.skip('x')]\npytestmark = slow\n\n\n" + SUB_TEST,
        "@pytest.fixture(autouse=True)\ndef db():\n    pytest.skip('no db')\n\n\n" + SUB_TEST,
    ],
)
def test_every_way_a_test_file_may_skip_its_test_is_read(tmp_path: Path, module: str) -> None:
    """A reviewer's cases: pytest reports `1 skipped` for each, and each was read as a
    call of `sub`."""
    head = "import sys\n\nimport pytest\n\nfrom calc import sub\n\n\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": head + module}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]


@pytest.mark.parametrize(
    "module",
    [
        "import pytest\n\nfrom calc import sub\n\n\n@pytest.mark.parametrize('a', [1, "
        "pytest.param(2, marks=pytest.mark.xfail(reason='k'))])\ndef test_sub(a):\n    sub(a, 1)\n",
        "import pytest\n\nfrom calc import sub\n\n\ndef test_sub():\n"
        "    pytest.importorskip('json')\n    sub(1, 1)\n",
        "from unittest import mock\n\nimport calc\n\n\n@mock.patch('subprocess.run')\n"
        "def test_sub(fake):\n    calc.sub(1, 1)\n",
        "from unittest import mock\n\nimport calc\n\n\ndef test_sub():\n"
        "    with mock.patch.object(calc, 'sub', wraps=calc.sub):\n        calc.sub(1, 1)\n",
    ],
)
def test_what_still_calls_after_the_review(tmp_path: Path, module: str) -> None:
    """A marker on one parameter, an `importorskip` of a standard module, a patch of a
    standard-library name, a spy that wraps the real function: the test still calls it
    (the first version read each as no call)."""
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": module}
    assert missed(tmp_path, files, {"calc.py": CALC}) == []


@pytest.mark.parametrize(
    "module",
    [
        "@mock.patch('calc.sub', return_value=2)\nclass TestSub(TestCase):\n"
        "    def test_sub(self, fake):\n        calc.sub(3, 1)\n",
        "class TestSub(TestCase):\n    def setUp(self):\n        p = mock.patch('calc.sub')\n"
        "        p.start()\n\n    def test_sub(self):\n        calc.sub(3, 1)\n",
        "@pytest.fixture(autouse=True)\ndef fake(monkeypatch):\n"
        "    monkeypatch.setattr(calc, 'sub', lambda a, b: 2)\n\n\ndef test_sub():\n"
        "    calc.sub(3, 1)\n",
        "@pytest.fixture\ndef fake(monkeypatch):\n    monkeypatch.setattr(calc, 'sub', max)\n\n\n"
        "def test_sub(fake):\n    calc.sub(3, 1)\n",
    ],
)
def test_a_patch_on_the_class_or_in_a_fixture_replaces_the_call(
    tmp_path: Path, module: str
) -> None:
    head = "from unittest import TestCase, mock\n\nimport pytest\n\nimport calc\n\n\n"
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/test_sub.py": head + module}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]


def test_the_project_s_python_functions_name_its_tests(tmp_path: Path) -> None:
    """`python_functions = check_*`: a patch in `check_sub` is a test's patch."""
    check = "import calc\n\n\ndef check_add():\n    calc.add(1, 2)\n\n\n"
    check += "def check_sub(monkeypatch):\n    monkeypatch.setattr('calc.sub', max)\n"
    check += "    calc.sub(3, 1)\n"
    ini = "[pytest]\npython_files = check_*.py\npython_functions = check_*\n"
    files = {"calc.py": CALC + SUB, "check_calc.py": check, "pytest.ini": ini}
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]


def test_python_files_replace_pytest_s_names_and_hold_under_testpaths(tmp_path: Path) -> None:
    """`python_files = check_*.py`: pytest no longer collects test_legacy.py; `*.py`
    under `testpaths = tests` makes no source file a test."""
    legacy = "from calc import sub\n\n\ndef test_sub():\n    sub(1, 1)\n"
    check = "from calc import add\n\n\ndef test_add():\n    add(1, 2)\n"
    ini = "[pytest]\npython_files = check_*.py\n"
    files = {"calc.py": CALC + SUB, "check_calc.py": check, "test_legacy.py": legacy}
    assert missed(tmp_path, {**files, "pytest.ini": ini}, {"calc.py": CALC}) == ["calc.py: sub"]
    ini = "[pytest]\ntestpaths = tests\npython_files = *.py\n"
    files = {"src/calc.py": CALC + SUB, "tests/test_calc.py": TEST, "pytest.ini": ini}
    root = project(tmp_path / "other", files)
    assert uncalled(root, {"src/calc.py": CALC}) == ["src/calc.py: sub"]


@pytest.mark.parametrize(
    ("conftest", "test"),
    [
        (
            "import pytest\n\n\n@pytest.fixture\ndef db():\n    pytest.skip('no db')\n",
            "from calc import sub\n\n\ndef test_sub(db):\n    sub(1, 1)\n",
        ),
        (
            "import pytest\n\nimport calc\n\n\n@pytest.fixture(autouse=True)\n"
            "def fake(monkeypatch):\n    monkeypatch.setattr(calc, 'sub', max)\n",
            "import calc\n\n\ndef test_sub():\n    calc.sub(1, 1)\n",
        ),
    ],
)
def test_a_conftest_fixture_that_skips_or_patches_is_followed(
    tmp_path: Path, conftest: str, test: str
) -> None:
    """The tests under a conftest.py whose fixture skips (a `db` that is not there) or
    patches `sub` do not call `sub`; a test file's own fixture of that name replaces it."""
    files = {"calc.py": CALC + SUB, "tests/test_calc.py": TEST, "tests/conftest.py": conftest}
    files["tests/test_sub.py"] = test
    assert missed(tmp_path, files, {"calc.py": CALC}) == ["calc.py: sub"]
    own = "import pytest\n\n\n@pytest.fixture\ndef db():\n    return 1\n\n\n"
    own += "@pytest.fixture\ndef fake():\n    return 1\n\n\n"
    (tmp_path / "tests" / "test_sub.py").write_text(own + test.replace("():", "(fake):"))
    assert uncalled(tmp_path, {"calc.py": CALC}) == []
    (tmp_path / "tests" / "test_sub.py").write_text(test)
    (tmp_path / "other").mkdir()
    (tmp_path / "tests" / "conftest.py").rename(tmp_path / "other" / "conftest.py")
    assert uncalled(tmp_path, {"calc.py": CALC}) == []  # a conftest elsewhere: no effect


def test_an_autouse_fixture_that_skips_some_tests_leaves_the_others_running(
    tmp_path: Path,
) -> None:
    """A conftest's autouse fixture skipping the tests of a marker (or a platform) skips
    some tests, not every test; one that skips at the top of its body skips them all."""
    conftest = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef platform(request):\n"
    conftest += "    if request.node.get_closest_marker('windows'):\n        pytest.skip('win')\n"
    test = "from calc import sub\n\n\ndef test_sub():\n    sub(1, 1)\n"
    files = {"calc.py": CALC + SUB, "tests/conftest.py": conftest, "tests/test_sub.py": test}
    assert missed(tmp_path, files, {"calc.py": CALC}) == []
    always = conftest.replace("    if request.node.get_closest_marker('windows'):\n    ", "")
    (tmp_path / "tests" / "conftest.py").write_text(always)
    assert uncalled(tmp_path, {"calc.py": CALC}) == ["calc.py: sub"]
