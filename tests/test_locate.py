"""Finding the code in a big repository: the ranking of the functions a failing check
is about (codur/agents/locate.py) on real pytest output, and the excerpt a big file is
shown as (codur/edits/excerpt.py). A generated package (tests/bigrepo.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import bigrepo
import pytest

from codur.agents.locate import Locator
from codur.edits.excerpt import excerpt
from codur.search.index import CodeIndex
from codur.verify.evidence import Evidence, locations
from codur.verify.plan import VerificationPlan
from codur.verify.result import VerificationResult
from codur.verify.target import is_test


def _verdict(root: Path) -> VerificationResult:
    """The package's tests run by pytest, as a verdict of the tests check."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    failing = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("FAILED ")]
    evidence = Evidence(
        check="tests",
        passed=False,
        command="pytest .",
        summary="",
        feedback=done.stdout,
        failing_tests=failing,
        locations=locations(done.stdout, root),
    )
    return VerificationResult(
        passed=False, strategy="tests", evidence=[evidence], plan=VerificationPlan()
    )


def _index(root: Path) -> CodeIndex:
    index = CodeIndex(None)
    index.update((p.relative_to(root).as_posix(), p) for p in sorted(root.rglob("*.py")))
    return index


@pytest.mark.slow
def test_the_traceback_frame_where_it_raised_comes_first(tmp_path: Path) -> None:
    root = bigrepo.write(tmp_path / "repo")
    rates = root / "ledger/rates.py"
    rates.write_text(rates.read_text().replace("if days < GRACE_DAYS:", "if days < GRACE:"))
    verdict = _verdict(root)
    found = Locator(_index(root), is_test).rank("the statements crash", verdict)
    assert (found[0].path, found[0].name) == ("ledger/rates.py", "late_fee")
    assert found[0].why.startswith("the failing run's traceback")
    assert ("ledger/statement.py", "statement_total") in [(f.path, f.name) for f in found[:3]]


@pytest.mark.slow
def test_an_assertion_in_the_test_leads_through_its_calls(tmp_path: Path) -> None:
    root = bigrepo.write(tmp_path / "repo")
    verdict = _verdict(root)
    assert verdict.failed[0].failing_tests == [bigrepo.FAILING]
    found = Locator(_index(root), is_test).rank(f"{bigrepo.FAILING} fails", verdict)
    top = [(f.path, f.name) for f in found[:3]]
    assert ("ledger/rates.py", "late_fee") in top and (
        "ledger/statement.py",
        "statement_total",
    ) in top
    assert all(not is_test(f.path) for f in found)


def test_an_excerpt_keeps_imports_used_constants_and_the_class_header() -> None:
    source = bigrepo.rates_module()
    shown = excerpt(source, ["late_fee", "RateTable.rate"])
    assert shown is not None and shown.total == source.count("\n")
    text = shown.text
    assert text.startswith('"""Fees and rates for every kind of payment the ledger books."""')
    assert "from ledger.money import round_cents" in text
    assert 'GRACE_DAYS = 10\n"""Days after the due date' in text  # the names late_fee reads
    assert "class RateTable:\n" in text and "    def rate(self, tier):" in text
    assert "def with_rate" not in text and "def wire_basic_fee" not in text
    start = source.splitlines().index("def late_fee(days, balance):") + 1
    assert f"{start}-{start + 5}" in shown.ranges()
    assert "    # ... lines 16-18 not shown ...\n" in text  # RateTable.__init__, indented
    assert excerpt(source, ["no_such_function"]) is None


def test_progress_dots_run_into_a_path_are_read_as_the_path(tmp_path: Path) -> None:
    """pytest -q printed its progress and then a frame on one line (seen in
    more-itertools' suite): the frame is found, and a 'path' too long to exist is no
    frame instead of an OSError that stopped the check."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("X = 1\n")
    dots = "." * 300 + "EFE" + "." * 300
    text = f"{dots}{tmp_path}/pkg/mod.py:1: in f\n{dots}long.py:3: in g\n"
    assert [(loc.path, loc.line) for loc in locations(text, tmp_path)] == [("pkg/mod.py", 1)]


def _failing(tests: list[str], feedback: str = "") -> VerificationResult:
    evidence = Evidence(
        check="tests", passed=False, command="tests", summary="", feedback=feedback,
        failing_tests=tests,
    )  # fmt: skip
    return VerificationResult(
        passed=False, strategy="tests", evidence=[evidence], plan=VerificationPlan()
    )


def test_the_failing_tests_own_words_do_not_crowd_the_code_out(tmp_path: Path) -> None:
    """The search reads the failing tests' source, which the tests' own code (never a
    result) matches best: the code is still found past the first SEARCH_DEPTH chunks."""
    (tmp_path / "billing").mkdir()
    (tmp_path / "billing/__init__.py").write_text("")
    (tmp_path / "billing/invoice.py").write_text(
        "def invoice_total(lines, discount):\n"
        '    """The sum of the lines less the discount, never below zero."""\n'
        "    total = sum(line.price * line.count for line in lines)\n"
        "    return max(0, total - discount)\n"
    )
    (tmp_path / "tests").mkdir()
    body = "    assert invoice_total([1, 2], discount) == invoice_total([2, 1], discount)\n"
    cases = "".join(f"def test_total_{n}(discount=0):\n{body * 3}\n" for n in range(60))
    (tmp_path / "tests/test_invoice.py").write_text(
        f"from billing.invoice import invoice_total\n\n{cases}"
    )
    verdict = _failing(["tests/test_invoice.py::test_total_0"])
    found = Locator(_index(tmp_path), is_test).searched("invoice_total discount items\n" + body * 3)
    assert [(f.path, f.name) for f in found] == [("billing/invoice.py", "invoice_total")]
    ranked = Locator(_index(tmp_path), is_test).rank("the invoice total is wrong", verdict)
    assert ("billing/invoice.py", "invoice_total") in [(f.path, f.name) for f in ranked]


def test_a_unittest_id_names_the_failing_test(tmp_path: Path) -> None:
    """unittest's ids (tests.test_calc.CalcTest.test_add) lead through the test's calls
    like pytest's do."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/__init__.py").write_text("")
    (tmp_path / "tests/test_calc.py").write_text(
        "import unittest\n\nimport calc\n\n\nclass CalcTest(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(calc.add(2, 2), 4)\n"
    )
    locator = Locator(_index(tmp_path), is_test)
    verdict = _failing(["tests.test_calc.CalcTest.test_add"])
    assert locator.failing_tests(verdict) == ["tests.test_calc.CalcTest.test_add"]
    relative = ["test_calc.CalcTest.test_add"]  # `-s tests` without `-t .`
    assert "calc.add(2, 2)" in locator.sources(locator.failing_tests(_failing(relative)))[0]
    stray = _failing(["add", "calc"])  # words a program printed after FAILED / ERROR
    assert locator.failing_tests(stray) == []
    found = locator.rank("the sums are wrong", verdict)
    assert (found[0].path, found[0].name, found[0].why) == (
        "calc.py",
        "add",
        "the failing test calls it",
    )
