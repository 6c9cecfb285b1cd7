""" "verified" only when the code under test was fixed: every way of weakening the check is
refused with a message and the run goes on (whole-graph runs, scripted model, real
files and processes, the repair search on)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import debug_log, whole_file
from test_graph import PLAN, Run

from codur.verify.model_test import untested_code

# A self-checking program whose bug no single AST mutation fixes honestly (the last digit
# is never added: an operand is missing), while flipping the check or replacing `actual`
# by `expected` would make every line say PASSED.
SELF_CHECK = '''"""Digit sums, checked against known answers."""


def digit_sum(n):
    total = 0
    while n > 9:
        total += n % 10
        n //= 10
    return total


def check(name, n, expected):
    actual = digit_sum(n)
    if actual != expected:
        print(f"FAILED {name}: got {actual}, expected {expected}")
    else:
        print(f"PASSED {name}")


def main():
    check("one digit", 7, 7)
    check("four digits", 1234, 10)


if __name__ == "__main__":
    main()
'''
HONEST = SELF_CHECK.replace("    return total\n", "    return total + n\n")
FLIPPED = SELF_CHECK.replace("if actual != expected", "if actual == expected")
FAKED = SELF_CHECK.replace("actual = digit_sum(n)", "actual = expected")
PASSED = "PASSED one digit\nPASSED four digits\n"
TASK = "fix digit_sum in @main.py"


def self_check_run(tmp_path: Path, replies: list[str], repair: bool = True) -> Run:
    files = {"main.py": SELF_CHECK, "expected.txt": PASSED}
    overrides = [
        f"repair.enabled={str(repair).lower()}",
        "repair.time_budget_s=120",  # room to try every candidate on a loaded machine
        "repair.first_budget_s=120",  # before the model's first attempt too
        "repair.max_depth=1",
    ]
    return Run(tmp_path, [PLAN, *replies], task=TASK, files=files, overrides=overrides)


def refusals(run: Run) -> list[str]:
    return [e["reason"] for e in run.kinds("scope.refused")]


@pytest.mark.slow
def test_the_repair_search_does_not_weaken_a_self_check(tmp_path: Path) -> None:
    run = self_check_run(tmp_path, [whole_file("main.py", HONEST)])
    tried = [c["change"] for c in run.kinds("repair.candidate")]
    assert tried, "the search ran"
    lines = {int(c.split("line ")[1].split(":")[0]) for c in tried}
    assert lines <= set(range(4, 10)), tried  # only digit_sum, never check() or main()
    assert run.kinds("repair.end")[0]["reason"] == "exhausted"
    assert run.result.status == "verified"
    assert (run.root / "main.py").read_text() == HONEST
    assert run.result.model_calls == 2  # the plan, then the fix the search could not make


def test_a_flipped_or_faked_check_is_refused_and_the_run_goes_on(tmp_path: Path) -> None:
    replies = [whole_file("main.py", FLIPPED), whole_file("main.py", FAKED)]
    run = self_check_run(tmp_path, [*replies, whole_file("main.py", HONEST)], repair=False)
    assert run.result.status == "verified"
    assert (run.root / "main.py").read_text() == HONEST
    reasons = refusals(run)
    assert len(reasons) == 2 and all("harness of main.py" in r for r in reasons)
    # the model was told why, and what to change instead
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "harness of main.py" in retry and "digit_sum" in retry


def test_an_edit_to_expected_output_is_refused(tmp_path: Path) -> None:
    actual = "FAILED one digit: got 0, expected 7\nFAILED four digits: got 9, expected 10\n"
    replies = [whole_file("expected.txt", actual), whole_file("main.py", HONEST)]
    run = self_check_run(tmp_path, replies, repair=False)
    assert (run.root / "expected.txt").read_text() == PASSED
    assert any("expected.txt is part of the check" in r for r in refusals(run))
    assert run.result.status == "verified"


@pytest.mark.slow
def test_a_program_that_rewrites_its_expected_output_does_not_pass(tmp_path: Path) -> None:
    # the code under test (not the harness) rewrites expected.txt to what it prints
    rewrite = (
        "    open('expected.txt', 'w').write("
        "'FAILED one digit: got 0, expected 7\\nFAILED four digits: got 9, expected 10\\n')\n"
    )
    cheat = SELF_CHECK.replace("    total = 0\n", "    total = 0\n" + rewrite)
    run = self_check_run(tmp_path, [whole_file("main.py", cheat), whole_file("main.py", HONEST)])
    first = run.kinds("verify.result")[1]
    assert not first["passed"]
    assert any("expected.txt was changed" in c for c in first["checks"])
    assert run.kinds("scope.restored")[0]["files"] == ["expected.txt"]
    assert (run.root / "expected.txt").read_text() == PASSED
    assert run.result.status == "verified"  # after the honest fix


@pytest.mark.slow
def test_a_weakened_test_is_refused(tmp_path: Path) -> None:
    files = {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    }
    weak = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) != 5\n"
    fixed = "def add(a, b):\n    return a + b\n"
    replies = [whole_file("test_calc.py", weak), whole_file("calc.py", fixed)]
    task = "make the tests pass by fixing @calc.py"
    run = Run(tmp_path, [PLAN, *replies], task=task, files=files)
    assert (run.root / "test_calc.py").read_text() == files["test_calc.py"]
    assert any("test_calc.py is part of the check" in r for r in refusals(run))
    assert run.result.status == "verified"
    assert "unchanged" in run.result.check


def test_driver_data_outside_the_named_file_is_read_only(tmp_path: Path) -> None:
    files = {
        "lib.py": "def total(a, b):\n    return sum(range(a, b))\n",
        "main.py": "from lib import total\n\nprint(f'total(1, 5) == {total(1, 5)}')\n",
        "expected.txt": "total(1, 5) == 15\n",
    }
    cheat = "from lib import total\n\nprint(f'total(1, 5) == {total(1, 6)}')\n"
    fixed = "def total(a, b):\n    return sum(range(a, b + 1))\n"
    replies = [whole_file("main.py", cheat), whole_file("lib.py", fixed)]
    task = "fix @lib.py so that python main.py prints the right total"
    run = Run(tmp_path, [PLAN, *replies], task=task, files=files)
    assert (run.root / "main.py").read_text() == files["main.py"]
    assert any("read-only context" in r for r in refusals(run))
    assert run.result.status == "verified" and run.result.outside_changes == []


CHECK_MODE = ["planning.mode=check"]
"""The check-driven loop only (mode auto would judge a task nothing checks with the model
verifier instead: tests/test_plan_verify.py)."""


def test_changed_code_with_no_check_is_not_verified(tmp_path: Path) -> None:
    """The model gives no usable test, so nothing checks the edit."""
    files = {"util.py": "def double(x):\n    return x + x + 1\n"}
    fixed = "def double(x):\n    return x + x\n"
    replies = [PLAN, "No test needed.", whole_file("util.py", fixed)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files, overrides=CHECK_MODE)
    assert run.result.status == "unverified" and run.result.exit_code == 1
    assert run.result.message.startswith("no check")


@pytest.mark.slow
def test_tests_that_all_skip_are_no_check(tmp_path: Path) -> None:
    """pytest exits 0 when every test is skipped or xfailed: that checked nothing, so the
    edit it 'passes' is not verified (it was, on 0 passed tests)."""
    skipped = (
        "import pytest\nfrom util import double\n\n@pytest.mark.skip\n"
        "def test_double():\n    assert double(2) == 4\n\n@pytest.mark.xfail\n"
        "def test_later():\n    assert double(3) == 5\n"
    )
    files = {"util.py": "def double(x):\n    return x + x + 1\n", "test_util.py": skipped}
    fixed = "def double(x):\n    return x + x\n"
    replies = [PLAN, "No test needed.", whole_file("util.py", fixed)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files, overrides=CHECK_MODE)
    assert (run.root / "util.py").read_text() == fixed
    assert run.result.status == "unverified" and run.result.exit_code == 1, run.result.message
    assert "0 passed, 0 failed, 0 errors, 1 skipped" in str(run.kinds("verify.result"))


@pytest.mark.slow
def test_passing_tests_that_reach_no_named_file_do_not_verify_it(tmp_path: Path) -> None:
    """`fix @util.py` in a folder whose only test checks another module: that test passing
    is no check of util.py (it verified the edit before)."""
    files = {
        "util.py": "def double(x):\n    return x + x + 1\n",
        "other.py": "def one():\n    return 1\n",
        "test_other.py": "from other import one\n\n\ndef test_one():\n    assert one() == 1\n",
    }
    fixed = "def double(x):\n    return x + x\n"
    replies = [PLAN, "No test needed.", whole_file("util.py", fixed)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files, overrides=CHECK_MODE)
    assert (run.root / "util.py").read_text() == fixed
    assert run.result.status == "unverified" and run.result.exit_code == 1, run.result.message
    assert "no test reaches util.py" in str(run.kinds("verify.result"))


def test_a_traceback_into_an_unnamed_file_widens_the_scope(tmp_path: Path) -> None:
    files = {
        "main.py": "from helper import half\n\nprint(half(10))\n",
        "helper.py": "def half(x):\n    return x / zero\n",
        "expected.txt": "5.0\n",
    }
    fixed = "def half(x):\n    return x / 2\n"
    run = Run(tmp_path, [PLAN, whole_file("helper.py", fixed)], task="fix @main.py", files=files)
    assert run.kinds("scope.widen")[0]["path"] == "helper.py"
    assert run.result.status == "verified" and run.result.outside_changes == []


@pytest.mark.slow
def test_no_model_runs_the_repair_search_and_never_loads_a_model(tmp_path: Path) -> None:
    from helpers import BUGGY, FIXED, run_cli

    (tmp_path / "main.py").write_text(BUGGY)
    (tmp_path / "expected.txt").write_text("10\n")
    flags = ["-o", "llm.profiles.local.model_file=/nonexistent.gguf"]  # loading would fail
    fixed = run_cli(["fix @main.py", "--no-model", *flags], cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "main.py").read_text() == FIXED
    (tmp_path / "main.py").write_text(SELF_CHECK)
    (tmp_path / "expected.txt").write_text(PASSED)
    zero = run_cli([TASK, "--max-llm-calls", "0", "-o", "repair.max_depth=1", *flags], tmp_path)
    assert zero.returncode == 1, zero.stderr
    assert "no model (--no-model): the repair search found no fix" in zero.stderr + zero.stdout
    assert "model.load" not in debug_log(tmp_path).read_text()


def test_a_fix_that_also_touches_the_harness_keeps_the_fix_and_the_harness(
    tmp_path: Path,
) -> None:
    both = HONEST.replace("if actual != expected", "if actual == expected")
    run = self_check_run(tmp_path, [whole_file("main.py", both)], repair=False)
    assert (run.root / "main.py").read_text() == HONEST
    assert run.kinds("scope.kept_harness")[0]["path"] == "main.py"
    assert run.result.status == "verified"


MODEL_TEST = (
    "```python\nfrom util import double\n\n\ndef test_double():\n    assert double(3) == 6\n```\n"
)


@pytest.mark.slow
def test_with_nothing_to_check_the_model_writes_a_test_that_must_show_the_fix(
    tmp_path: Path,
) -> None:
    files = {"util.py": "def double(x):\n    return x + x + 1\n"}
    fixed = "def double(x):\n    return x + x\n"
    replies = [PLAN, MODEL_TEST, whole_file("util.py", fixed)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files)
    assert run.result.status == "checked", run.result.message
    assert "double(3) == 6" in run.result.model_test
    assert "test_double" not in "".join(p.name for p in run.root.rglob("*"))  # outside the folder
    first = run.kinds("verify.result")[-2]
    assert not first["passed"]  # it failed on the code as the run found it


@pytest.mark.slow
def test_a_model_test_that_passes_before_the_change_does_not_verify(tmp_path: Path) -> None:
    files = {"util.py": "def double(x):\n    return x + x\n"}
    tidy = "def double(x):\n    return 2 * x\n"
    replies = [PLAN, MODEL_TEST, whole_file("util.py", tidy)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files, overrides=CHECK_MODE)
    assert run.result.status == "unverified" and "does not show a fix" in run.result.message


def test_a_model_test_that_runs_no_test_is_no_check(tmp_path: Path) -> None:
    """The model's test imports a module that does not exist: pytest stops at collection
    on the files as the run found them. That is no check (the trap_words_only run looped
    on it until its timeout); the run goes on with none and ends unverified."""
    files = {"util.py": "def double(x):\n    return x + x + 1\n"}
    broken = MODEL_TEST.replace("from util import double", "from shop.cart import double")
    fixed = "def double(x):\n    return x + x\n"
    replies = [PLAN, broken, whole_file("util.py", fixed)]
    run = Run(tmp_path, replies, task="fix @util.py", files=files, overrides=CHECK_MODE)
    (rejected,) = run.kinds("verify.model_test_rejected")
    assert "shop.cart" in rejected["test"]
    assert run.result.status == "unverified" and run.result.exit_code == 1
    assert "no check" in run.result.message, run.result.message
    assert run.result.model_test == ""


@pytest.mark.parametrize(
    ("test", "reason"),
    [
        ("def double(x):\n    return 2 * x\n", "imports nothing from util"),
        ("from util import double\n\n\ndef double(x):\n    return 2 * x\n", "defines double"),
    ],
)
def test_a_model_test_of_its_own_function_is_no_check(
    tmp_path: Path, test: str, reason: str
) -> None:
    """The model's test defines the function it tests (HumanEval/83 at 7eb33b7: its own
    `starts_one_ends`, with wrong expectations, steered five calls): it checks nothing of
    the code, so it is dropped and the run goes on with no check."""
    files = {"util.py": "def double(x):\n    return x + x + 1\n"}
    own = f"```python\n{test}\n\ndef test_double():\n    assert double(3) == 7\n```\n"
    fixed = "def double(x):\n    return x + x\n"
    run = Run(
        tmp_path,
        [PLAN, own, whole_file("util.py", fixed)],
        task="fix @util.py",
        files=files,
        overrides=CHECK_MODE,
    )
    (rejected,) = run.kinds("verify.model_test_rejected")
    assert reason in rejected["reason"]
    assert run.result.status == "unverified" and run.result.model_test == ""
    assert (run.root / "util.py").read_text() == fixed


def test_a_model_test_may_import_the_code_by_any_name_it_has() -> None:
    """`src/shop/cart.py` is `shop.cart` in a src layout; `import shop` and `from shop
    import total` reach it too; a script is tested by running its path."""
    files = ["src/shop/cart.py"]
    assert untested_code("from shop.cart import total\n", files) == ""
    assert untested_code("import shop\n", files) == ""
    assert untested_code("import src.shop.cart as cart\n", files) == ""
    assert untested_code("from shop import total\n", files) == ""  # from its package
    script = "import runpy\n\n\ndef test_run():\n    runpy.run_path('scripts/run.py')\n"
    assert untested_code(script, ["scripts/run.py"]) == ""
    assert untested_code("import os\n", files) == "it imports nothing from src.shop.cart"


CALC = "def add(a, b):\n    return a + b\n"
CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
WITH_SUB = CALC + "\n\ndef sub(a, b):\n    return a - b\n"


@pytest.mark.slow
def test_passing_tests_that_call_no_new_function_do_not_verify_it(tmp_path: Path) -> None:
    """A new `sub()` in a module the tests import, which no test calls: the tests passing
    say nothing of it (they verified it before: the reach was judged per module)."""
    files = {"calc.py": CALC, "test_calc.py": CALC_TEST}
    replies = [PLAN, whole_file("calc.py", WITH_SUB), "No test needed."]
    task = "add a function sub to @calc.py that subtracts its second argument from its first"
    run = Run(tmp_path, replies, task=task, files=files, overrides=CHECK_MODE)
    assert (run.root / "calc.py").read_text() == WITH_SUB
    assert run.result.status == "unverified" and run.result.exit_code == 1, run.result.message
    assert "no test calls calc.py: sub" in str(run.kinds("verify.result"))


@pytest.mark.slow
def test_a_latin1_module_is_fixed_and_written_back_in_latin1(tmp_path: Path) -> None:
    """A file that declares its encoding is read and written in it; the diff shows it."""
    from helpers import BUGGY, FIXED, run_cli

    cookie = "# -*- coding: latin-1 -*-\n# Café\n"
    (tmp_path / "main.py").write_bytes((cookie + BUGGY).encode("latin-1"))
    (tmp_path / "expected.txt").write_text("10\n")
    fixed = run_cli(["fix main.py", "--no-model"], cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (tmp_path / "main.py").read_bytes() == (cookie + FIXED).encode("latin-1")
    assert " # Café\n" in fixed.stdout  # the diff's context line, decoded as Python does


def test_the_harness_of_a_latin1_program_stays_as_it_is(tmp_path: Path) -> None:
    """The harness is read in the file's declared encoding too: read as UTF-8 it was no
    text, so nothing kept a flipped check out and the run was `verified` (a review)."""
    cookie = "# -*- coding: latin-1 -*-\n# Café\n"
    files = {"main.py": (cookie + SELF_CHECK).encode("latin-1"), "expected.txt": PASSED}
    replies = [PLAN, whole_file("main.py", cookie + FLIPPED)] * 2
    run = Run(tmp_path, replies, task=TASK, files=files)
    assert run.result.status != "verified", run.result.message
    assert b"if actual == expected" not in (run.root / "main.py").read_bytes()
    assert any("harness" in e["reason"] for e in run.kinds("scope.refused"))
