"""Do the tests call the functions a run changed (codur/verify/calls.py)? Real files in a
temporary folder; each case is a project a run could leave."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.verify.calls import changed_functions, uncalled

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SUB = "\n\ndef sub(a, b):\n    return a - b\n"
PLUS = CALC.replace("a + b", "_plus(a, b)") + "\n\ndef _plus(a, b):\n    return a + b\n"
PAIR = "\n\nclass Pair:\n    def __eq__(self, other):\n        return True\n"
MINUS = "\n\ndef sub(a, b):\n    return _minus(a, b)\n\n\ndef _minus(a, b):\n    return a - b\n"
OVERLOADS = "@overload\ndef f(x: int): ...\n@overload\ndef f(x: str): ...\n"
OVERLOADS += "def f(x):\n    return x\n"


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_new_function_no_test_names_is_uncalled(tmp_path: Path) -> None:
    root = project(tmp_path, {"calc.py": CALC + SUB, "tests/test_calc.py": TEST})
    assert uncalled(root, {"calc.py": CALC}) == ["calc.py: sub"]


def test_a_new_test_of_it_calls_it(tmp_path: Path) -> None:
    test = TEST.replace("add\n", "add, sub\n", 1)
    test += "\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
    root = project(tmp_path, {"calc.py": CALC + SUB, "tests/test_calc.py": test})
    assert uncalled(root, {"calc.py": CALC}) == []


@pytest.mark.parametrize(
    ("code", "why"),
    [
        (PLUS, "a called function calls it"),
        (CALC + "\n\nOPS = {'-': lambda a, b: sub(a, b)}\n" + SUB, "import-time code names it"),
        (CALC + PAIR, "special method"),
        (CALC + "\n\n@register\ndef sub(a, b):\n    return a - b\n", "a decorator may register it"),
        (CALC.replace("a + b", "a+b  "), "add changed; the test calls add"),
    ],
)
def test_what_counts_as_called(tmp_path: Path, code: str, why: str) -> None:
    root = project(tmp_path, {"calc.py": code, "tests/test_calc.py": TEST})
    assert uncalled(root, {"calc.py": CALC}) == [], why


def test_a_helper_only_an_uncalled_function_calls_is_uncalled(tmp_path: Path) -> None:
    code = CALC + MINUS
    root = project(tmp_path, {"calc.py": code, "tests/test_calc.py": TEST})
    assert uncalled(root, {"calc.py": CALC}) == ["calc.py: sub", "calc.py: _minus"]


def test_its_own_recursion_does_not_call_it(tmp_path: Path) -> None:
    code = CALC + "\n\ndef fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n"
    root = project(tmp_path, {"calc.py": code, "test_calc.py": TEST})
    assert uncalled(root, {"calc.py": CALC}) == ["calc.py: fact"]


def test_a_method_is_called_by_its_name_through_another_module(tmp_path: Path) -> None:
    files = {
        "shop/cart.py": "class Cart:\n    def total(self):\n        return 1\n",
        "shop/api.py": "from shop.cart import Cart\n\ndef checkout():\n    return Cart().total()\n",
        "tests/test_api.py": "from shop.api import checkout\n\ntest = checkout()\n",
    }
    root = project(tmp_path, files)
    before = {"shop/cart.py": files["shop/cart.py"].replace("return 1", "return 0")}
    assert uncalled(root, before) == []


def test_a_new_file_counts_every_function_in_it(tmp_path: Path) -> None:
    root = project(tmp_path, {"calc.py": CALC, "extra.py": SUB, "tests/test_calc.py": TEST})
    assert uncalled(root, {"extra.py": None}) == ["extra.py: sub"]


def test_changed_functions_ignore_docstrings_and_count_repeated_names() -> None:
    assert changed_functions(OVERLOADS, OVERLOADS.replace("return x", "return 2 * x")) == ["f"]
    documented = CALC.replace(":\n", ':\n    """Adds."""\n', 1)
    assert changed_functions(CALC, documented) == []
    assert changed_functions(CALC, "def add(:\n") == []  # no longer parses: no answer
    assert changed_functions(CALC, CALC.replace("b)", "b=0)", 1)) == ["add"]


def test_tests_and_unchanged_files_are_not_judged(tmp_path: Path) -> None:
    root = project(tmp_path, {"calc.py": CALC, "tests/test_calc.py": TEST + SUB})
    assert uncalled(root, {"tests/test_calc.py": TEST, "calc.py": CALC}) == []
