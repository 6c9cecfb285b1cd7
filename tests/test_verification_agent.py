"""The verification agent picks its strategy from real folders and runs real checks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import watched_context, write_files

from codur.config.schema import VerifyConfig
from codur.events import Event
from codur.verify.agent import verify_task
from codur.verify.result import VerificationResult

CALC = "def add(a, b):\n    return a + b\n"
CALC_BUG = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
CONFTEST = "import sys, pathlib\n\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1]))\n"
PRICES = (
    "CATALOG = {'apple': 1}\n\n\n"
    "def price(name):\n"
    "    try:\n"
    "        return CATALOG[name]\n"
    "    except IndexError:\n"
    "        return 0\n\n\n"
    "print(price('apple'))\n"
    "print(price('kiwi'))\n"
)


def check(
    tmp_path: Path,
    files: dict[str, str],
    refs: list[str] = (),
    changed: list[str] = (),
    cfg: VerifyConfig | None = None,
) -> tuple[VerificationResult, list[Event]]:
    write_files(tmp_path, files)
    ctx, events = watched_context(tmp_path)
    return verify_task(ctx, cfg or VerifyConfig(), list(refs), list(changed)), events


def test_output_strategy_compares_with_the_expected_file(tmp_path: Path) -> None:
    result, events = check(tmp_path, {"shop.py": PRICES, "expected.txt": "1\n0\n"}, ["shop.py"])
    assert (result.passed, result.strategy) == (False, "output")
    assert "shop.py (named in the task) has a known expected output in expected.txt" in (
        result.reasoning
    )
    failed = result.failed[0]
    assert failed.exceptions == ["KeyError"]
    assert [(loc.path, loc.line, loc.function) for loc in failed.locations] == [
        ("shop.py", 12, "<module>"),
        ("shop.py", 6, "price"),
    ]
    assert "it fails at shop.py line 6 in price (KeyError)" in result.suggestions
    assert "Expected output:" in result.feedback and "KeyError" in result.feedback
    tools = [e.data["tool"] for e in events if e.kind == "tool.call"]
    assert "run_python_file" in tools
    verdict = [e.data for e in events if e.kind == "verify.result"]
    assert verdict == [
        {
            "passed": False,
            "strategy": "output",
            "reasoning": result.reasoning,
            "checks": [failed.summary],
            "suggestions": result.suggestions,
        }
    ]
    (tmp_path / "shop.py").write_text(PRICES.replace("IndexError", "KeyError"))
    assert check(tmp_path, {}, ["shop.py"])[0].passed


def test_first_wrong_line_is_pointed_out(tmp_path: Path) -> None:
    files = {"main.py": "for i in range(3):\n    print(i * 2)\n", "expected.txt": "0\n2\n5\n"}
    result, _ = check(tmp_path, files)
    assert result.strategy == "output" and "the folder's entry point" in result.reasoning
    assert result.suggestions == ["output line 3 is '4', expected '5'"]


@pytest.mark.slow
def test_tests_strategy_runs_the_relevant_tests_first(tmp_path: Path) -> None:
    files = {
        "calc.py": CALC_BUG,
        "other.py": "def one():\n    return 1\n",
        "tests/test_calc.py": TEST_CALC,
        "tests/test_other.py": "from other import one\n\n\ndef test_one():\n    assert one()\n",
        "tests/conftest.py": CONFTEST,
    }
    result, events = check(tmp_path, files, changed=["calc.py"])
    assert (result.passed, result.strategy) == (False, "tests")
    assert result.plan.checks[0].related == ["tests/test_calc.py"]
    assert "then the tests that import the changed code: tests/test_calc.py" in result.reasoning
    assert result.failed[0].failing_tests == ["tests/test_calc.py::test_add"]
    assert "run_pytest" in [e.data["tool"] for e in events if e.kind == "tool.call"]
    assert [e.data["stage"] for e in events if e.kind == "verify.run"] == ["related"]
    everything, _ = check(tmp_path, {}, changed=["README.md"])
    assert everything.plan.checks[0].paths == ["tests"]
    assert everything.plan.checks[0].related == []
    assert "the test suite: tests (the tests/ tree)" in everything.reasoning
    (tmp_path / "calc.py").write_text(CALC)
    assert check(tmp_path, {}, changed=["calc.py"])[0].passed


@pytest.mark.slow
def test_tests_that_reach_no_named_file_say_nothing_of_it(tmp_path: Path) -> None:
    """The only tests import other modules: they still run and must pass, but the verdict
    does not rest on them; a test reaching the file through a package still counts."""
    files = {
        "calc.py": CALC_BUG,
        "other.py": "def one():\n    return 1\n",
        "tests/test_other.py": "from other import one\n\n\ndef test_one():\n    assert one()\n",
        "tests/conftest.py": CONFTEST,
    }
    result, _ = check(tmp_path, files, refs=["calc.py"])
    tests = result.plan.checks[0]
    assert tests.unreached == ["calc.py"] and result.passed
    assert result.strategy == "static" and result.evidence[0].ran is False
    assert "no test reaches calc.py" in result.reasoning
    assert "(no test reaches calc.py)" in result.evidence[0].summary
    package = {"shop/__init__.py": "from calc import add\n", "tests/test_other.py": "import shop\n"}
    package["tests/test_other.py"] += "\n\ndef test_add():\n    assert shop.add(2, 3) == 5\n"
    reached, _ = check(tmp_path, package, refs=["calc.py"])
    assert reached.plan.checks[0].unreached == [] and not reached.passed
    assert reached.strategy == "tests"


@pytest.mark.parametrize(
    ("target", "test"),
    [
        ("my-tool.py", "subprocess.run([sys.executable, 'my-tool.py'])"),
        ("app/__main__.py", "subprocess.run([sys.executable, '-m', 'app'])"),
        ("नमस्ते.py", "importlib.import_module('नमस्ते')"),
    ],
)
def test_a_test_reaches_a_script_it_runs_by_any_name(
    tmp_path: Path, target: str, test: str
) -> None:
    """Names that are not one word (a hyphen, combining marks) and a package run with -m."""
    from codur.verify.reach import unreached

    files = {target: "print(4)\n", "other.py": "x = 1\n", "test_cli.py": test + "\n"}
    write_files(tmp_path, files)
    assert unreached(tmp_path, [target]) == []
    (tmp_path / "test_cli.py").write_text("import other\n")
    assert unreached(tmp_path, [target]) == [target]


@pytest.mark.slow
def test_hybrid_needs_both_the_output_and_the_tests(tmp_path: Path) -> None:
    files = {
        "main.py": "from calc import add\n\nprint(add(2, 2))\n",
        "expected.txt": "0\n",
        "calc.py": CALC_BUG,
        "test_calc.py": TEST_CALC,
    }
    result, _ = check(tmp_path, files, ["main.py"], ["calc.py"])
    assert result.strategy == "hybrid" and not result.passed
    assert [e.check for e in result.evidence] == ["output", "tests"]
    assert [e.passed for e in result.evidence] == [True, False]


def test_static_strategy_without_tests_or_expected_output(tmp_path: Path) -> None:
    good, _ = check(tmp_path, {"lib.py": CALC}, changed=["lib.py"])
    assert (good.passed, good.strategy) == (True, "static")
    assert "no expected output and no tests" in good.reasoning
    broken, _ = check(tmp_path, {"lib.py": "def add(a, b)\n    return a\n"}, changed=["lib.py"])
    assert not broken.passed and "SyntaxError" in broken.feedback
    missing, _ = check(tmp_path, {"lib.py": "import no_such_module_here\n"}, changed=["lib.py"])
    assert not missing.passed and "ModuleNotFoundError" in missing.feedback


def test_static_strategy_runs_the_configured_linter(tmp_path: Path) -> None:
    linter = "import sys; bad = [f for f in sys.argv[1:] if 'TODO' in open(f).read()]; "
    linter += "print(*bad); sys.exit(1 if bad else 0)"
    cfg = VerifyConfig(lint_command=[sys.executable, "-c", linter])
    flagged, _ = check(tmp_path, {"lib.py": "X = 1  # TODO\n"}, changed=["lib.py"], cfg=cfg)
    assert not flagged.passed and "lib.py" in flagged.feedback
    clean, _ = check(tmp_path, {"lib.py": "X = 1\n"}, changed=["lib.py"], cfg=cfg)
    assert clean.passed


def test_entry_point_found_by_the_discovery_tool_never_a_fixed_name(tmp_path: Path) -> None:
    files = {
        "tool/cli.py": "def run():\n    print('ok')\n\n\nif __name__ == '__main__':\n    run()\n",
        "tool/expected.txt": "ok\n",
    }
    result, events = check(tmp_path, files)
    assert result.passed and result.strategy == "output"
    assert "tool/cli.py (found by discover_entry_points)" in result.reasoning
    assert "discover_entry_points" in [e.data["tool"] for e in events if e.kind == "tool.call"]


def test_nothing_to_verify(tmp_path: Path) -> None:
    result, _ = check(tmp_path, {"notes.md": "hello\n"})
    assert (result.passed, result.strategy, result.plan.checks) == (True, "none", [])
