"""Finding the code in a big repository: the coder is shown the functions that matter
(from the failing traceback, the failing tests' calls, the task and the code index), not
whole 1,500-line files; its function-level reply merges into the big file; a task that
names no file finds the file. Generated packages (tests/bigrepo.py), real pytest runs, a
scripted model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import bigrepo
from helpers import run_cli, run_in_process, scripted_profile
from test_graph import PLAN

from codur.agents.locate import Locator
from codur.edits.excerpt import excerpt
from codur.search.index import CodeIndex
from codur.verify.evidence import Evidence, locations
from codur.verify.plan import VerificationPlan
from codur.verify.result import VerificationResult
from codur.verify.target import is_test

FIX = f"The grace period includes its last day.\n\nledger/rates.py\n```python\n{bigrepo.FIXED}```\n"
SLOW = ["verify.timeout_s=300", "verify.relevant_tests_only=false"]
"""The whole suite after each change (the failing test imports the big module only
through another), with room for a loaded machine."""


def test_a_big_file_named_with_at_is_shown_as_the_function_that_matters(tmp_path: Path) -> None:
    files = bigrepo.files()
    root = bigrepo.write(tmp_path / "repo")
    task = f"fix @ledger/rates.py: {bigrepo.FAILING} fails"
    result, events, _ = run_in_process(root, [PLAN, FIX], task=task, overrides=SLOW)
    assert result.status == "verified", result.message
    requests = [e.data for e in events if e.kind == "model.request"]
    prompt = requests[1]["messages"][-1]["content"]
    assert len(requests) == 2
    assert bigrepo.BUGGY.strip() in prompt  # the function the failing test reaches
    assert "GRACE_DAYS = 10" in prompt and "from ledger.money import round_cents" in prompt
    assert "fixed = 1.00 * count" not in prompt  # wire_basic_fee's body: not the whole file
    assert len(prompt) < len(files["ledger/rates.py"]) / 5
    assert "ledger/rates.py is shown in part" in prompt and "# ... lines " in prompt
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)


def test_a_task_that_names_no_file_finds_the_code_and_keeps_the_tests(tmp_path: Path) -> None:
    """`codur "tests/...::test_y fails, fix it"`: the failing test's calls lead to
    `late_fee` in the big module; the reply's change to the test is refused."""
    root = bigrepo.write(tmp_path / "repo")
    files = bigrepo.files()
    cheat = "tests/test_statement.py\n```python\ndef test_no_fee_within_grace():\n    pass\n```\n"
    replies = [
        json.dumps({"kind": "task", "confidence": 0.5}),
        PLAN,
        FIX + "\n" + cheat,
    ]
    flags = [f for o in SLOW for f in ("-o", o)]
    record = tmp_path / "calls.jsonl"
    done = run_cli(
        [*scripted_profile(tmp_path, replies), *flags, "--record", str(record), "--json"]
        + [f"{bigrepo.FAILING} fails, fix it"],
        root,
        timeout=900,
    )
    result = json.loads(done.stdout)
    assert done.returncode == 0 and result["status"] == "verified", done.stderr
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    prompt = [c for c in calls if "request" in c][2]["request"]["messages"][-1]["content"]
    assert "ledger/statement.py\n```python" in prompt  # the function the test calls, whole
    assert bigrepo.BUGGY.strip() in prompt and "fixed = 1.00 * count" not in prompt
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)
    assert (root / "tests/test_statement.py").read_text() == files["tests/test_statement.py"]


def test_a_reply_for_a_file_not_shown_merges_into_it(tmp_path: Path) -> None:
    """A function given for an existing file the prompt did not show replaces that
    function only, not the whole file."""
    from codur.agents.proposal import read_reply
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    root = bigrepo.write(tmp_path / "repo")
    session = Session(load_config(root, environ={}).config, Workspace(root), EventBus())
    proposal = read_reply(FIX, {}, "whole_file", session, truncated=False)
    assert proposal.error is None
    original = bigrepo.files()["ledger/rates.py"]
    assert proposal.sources == {"ledger/rates.py": original.replace(bigrepo.BUGGY, bigrepo.FIXED)}


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


def test_the_traceback_frame_where_it_raised_comes_first(tmp_path: Path) -> None:
    root = bigrepo.write(tmp_path / "repo")
    rates = root / "ledger/rates.py"
    rates.write_text(rates.read_text().replace("if days < GRACE_DAYS:", "if days < GRACE:"))
    verdict = _verdict(root)
    found = Locator(_index(root), is_test).rank("the statements crash", verdict)
    assert (found[0].path, found[0].name) == ("ledger/rates.py", "late_fee")
    assert found[0].why.startswith("the failing run's traceback")
    assert ("ledger/statement.py", "statement_total") in [(f.path, f.name) for f in found[:3]]


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
