"""A lucky mutation is weak evidence: a repair-search fix that only changes a constant is
reviewed (a differential check against the original on the tests' calls and nearby ones,
then the model) before the run may end verified. Real files, real processes, a real CLI
run; the model is scripted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import (
    ROOT,
    debug_log,
    run_cli,
    scripted_profile,
    watched_context,
    whole_file,
    write_files,
)

from codur.config.schema import RepairConfig, VerifyConfig
from codur.repair.differential import differential
from codur.repair.mutations import mutations
from codur.repair.review import needs_review, verdict_of
from codur.repair.search import Candidate, RepairResult
from codur.verify.agent import verify_task

BELOW_ZERO = (
    "def below_zero(operations: list[int]) -> bool:\n"
    '    """Whether a balance that starts at zero falls below zero after some operation."""\n'
    "    balance = 0\n"
    "    history = iter(operations)\n"
    "    next(history, None)\n"
    "    for op in history:\n"
    "        balance += op\n"
    "        if balance < 0:\n"
    "            return True\n"
    "    return False\n"
)
"""The bug: the first operation is skipped. Every assert below starts with a deposit of 1,
so starting the balance at 1 passes them all, and is wrong for `[-2]`."""
LUCKY = BELOW_ZERO.replace("balance = 0", "balance = 1")
RIGHT = BELOW_ZERO.replace("    next(history, None)\n", "")
TESTS = (
    "from below_zero import below_zero\n\n\n"
    "def test_below_zero():\n"
    "    assert below_zero([]) is False\n"
    "    assert below_zero([1, 2, -3, 1, 2, -3]) is False\n"
    "    assert below_zero([1, 2, -4, 5, 6]) is True\n"
    "    assert below_zero([1, -1, 2, -2, 5, -5, 4, -4]) is False\n"
    "    assert below_zero([1, -1, 2, -2, 5, -5, 4, -5]) is True\n"
    "    assert below_zero([1, -2, 2, -2, 5, -5, 4, -4]) is True\n"
)
TASK = "Fix the bug in @below_zero.py so that `pytest test_below_zero.py` passes"
BUDGET = ["-o", "repair.time_budget_s=600", "-o", "repair.first_budget_s=600"]
BUDGET += ["-o", "verify.timeout_s=120"]
"""Time for every candidate, and for each one's pytest, on a slow, busy machine."""


def result_of(*edits: tuple[str, int]) -> RepairResult:
    """A repair of BELOW_ZERO by the first edit of each (operator, line)."""
    chosen = tuple(
        next(e for e in mutations("below_zero.py", BELOW_ZERO, operators=[op]) if e.line == line)
        for op, line in edits
    )
    candidate = Candidate(chosen)
    sources = candidate.sources({"below_zero.py": BELOW_ZERO})
    return RepairResult(candidate, sources, "", 1, 1, 0, "repaired")


def test_a_fix_made_only_of_constant_edits_needs_a_review() -> None:
    assert needs_review(result_of(("constant", 3)))
    assert needs_review(result_of(("constant", 3), ("constant", 8)))
    assert not needs_review(result_of(("comparison", 8)))
    assert not needs_review(result_of(("constant", 3), ("comparison", 8)))


def test_the_model_s_verdict_is_its_first_confirm_or_reject() -> None:
    assert verdict_of("CONFIRM\nthe start value was wrong")[0] is True
    assert verdict_of("REJECT: it only fits the tests' first deposit")[0] is False
    confirmed, why = verdict_of("I am not sure.")
    assert confirmed is False and "no CONFIRM or REJECT" in why


@pytest.mark.slow
def test_the_differential_check_finds_changes_no_test_pins(tmp_path: Path) -> None:
    write_files(tmp_path, {"below_zero.py": BELOW_ZERO, "test_below_zero.py": TESTS})
    ctx, _ = watched_context(tmp_path)
    failing = verify_task(ctx, VerifyConfig(), [], [])
    assert not failing.passed
    found = differential(
        failing.plan,
        ctx,
        {"below_zero.py": BELOW_ZERO},
        {"below_zero.py": LUCKY},
        RepairConfig(),
        60,
    )
    assert found.tests_calls == 6 and found.pinned_changes == 2  # the two that failed
    assert found.compared > 6 and found.differences
    assert all(d.call.startswith("below_zero([") for d in found.differences)
    assert (tmp_path / "below_zero.py").read_text() == BELOW_ZERO  # scratch copies only


@pytest.mark.slow
def test_a_fix_of_a_function_with_no_arguments_has_no_nearby_call_to_confirm_it(
    tmp_path: Path,
) -> None:
    port = "def default_port():\n    return 8079\n"
    tests = (
        "from server import default_port\n\n\ndef test_port():\n    assert default_port() == 8080\n"
    )
    write_files(tmp_path, {"server.py": port, "test_server.py": tests})
    ctx, _ = watched_context(tmp_path)
    failing = verify_task(ctx, VerifyConfig(), [], [])
    fixed = {"server.py": port.replace("8079", "8080")}
    found = differential(failing.plan, ctx, {"server.py": port}, fixed, RepairConfig(), 60)
    assert (found.tests_calls, found.compared, found.pinned_changes) == (1, 1, 1)
    assert found.differences == []
    assert found.nearby_compared == 0 and not found.pins_everything  # nothing near it ran


def lucky_differential(tmp_path: Path, cfg: RepairConfig, nearby: bool = True):
    """The differential check of LUCKY against BELOW_ZERO under `cfg`."""
    write_files(tmp_path, {"below_zero.py": BELOW_ZERO, "test_below_zero.py": TESTS})
    ctx, _ = watched_context(tmp_path)
    failing = verify_task(ctx, VerifyConfig(), [], [])
    originals, fixed = {"below_zero.py": BELOW_ZERO}, {"below_zero.py": LUCKY}
    return differential(failing.plan, ctx, originals, fixed, cfg, 60, nearby=nearby)


@pytest.mark.slow
def test_without_nearby_calls_the_differential_check_confirms_nothing(tmp_path: Path) -> None:
    """Where programs are not confined no nearby call runs: the tests' own six compare
    as the tests ask, and that alone is no confirmation."""
    found = lucky_differential(tmp_path, RepairConfig(), nearby=False)
    assert (found.tests_calls, found.compared, found.nearby_compared) == (6, 6, 0)
    assert found.differences == [] and not found.nearby
    assert not found.pins_everything


@pytest.mark.slow
def test_tests_that_fill_the_probe_limit_leave_nothing_to_confirm_by(tmp_path: Path) -> None:
    """The tests make six calls; a limit of six (or one) leaves no room for nearby ones."""
    for probes in (6, 1):
        found = lucky_differential(tmp_path / str(probes), RepairConfig(review_probes=probes))
        assert (found.compared, found.nearby_compared, found.differences) == (6, 0, [])
        assert found.nearby and not found.pins_everything


def test_the_humaneval_report_counts_how_often_the_review_overrules_the_search() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from humaneval_report import summarize, summary_lines

    def run(task: str, passed: bool, reviews: list[str]) -> dict:
        return {
            "task_id": task, "mode": "codur", "seed": 1, "passed": passed, "status": "verified",
            "model_calls": 1, "prompt_tokens": 0, "completion_tokens": 0, "wall_s": 1.0,
            "repair_reviews": reviews,
        }  # fmt: skip

    runs = [run("a", True, ["overruled"]), run("b", False, ["unconfirmed"]), run("c", True, [])]
    summary = summarize(runs, ["a", "b", "c"])
    assert summary["codur"]["repair_reviews"] == {
        "overruled": {"passed": 1, "failed": 0},
        "unconfirmed": {"passed": 0, "failed": 1},
    }
    config = {"profile": "p", "task": "t"}
    assert any(
        "overruled the repair search 1 of 2 times" in line
        for line in summary_lines(summary, config)
    )


def log_records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def below_zero_folder(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    write_files(work, {"below_zero.py": BELOW_ZERO, "test_below_zero.py": TESTS})
    return work


@pytest.mark.slow
def test_the_model_overrules_a_lucky_constant_and_fixes_the_bug(tmp_path: Path) -> None:
    work = below_zero_folder(tmp_path)
    replies = [
        "REJECT: starting at 1 only matches tests whose first operation is 1; [-2] is wrong",
        whole_file("below_zero.py", RIGHT),
    ]
    flags = scripted_profile(tmp_path, replies, repair=True)
    result = run_cli([*flags, *BUDGET, "--json", TASK], cwd=work, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    assert (work / "below_zero.py").read_text() == RIGHT
    records = log_records(work)
    reviewed = [r for r in records if r["event"] == "repair.review"]
    assert len(reviewed) == 1 and reviewed[0]["change"].endswith("`0` -> `1`")
    assert (reviewed[0]["verdict"], reviewed[0]["by"]) == ("overruled", "model")
    assert reviewed[0]["differences"] and reviewed[0]["tests_calls"] == 6
    assert not [r for r in records if r["event"] == "file.write" and r.get("by") == "repair"]
    end = json.loads(result.stdout.splitlines()[-1])
    assert end["event"] == "run.end" and end["status"] == "verified"
    assert end["model_calls"] == 2
    assert end["repair_reviews"] == [
        {"change": reviewed[0]["change"], "verdict": "overruled", "by": "model"}
    ]


@pytest.mark.slow
def test_without_a_model_a_lucky_constant_is_not_verified(tmp_path: Path) -> None:
    work = below_zero_folder(tmp_path)
    result = run_cli(
        ["--no-model", "-o", "repair.enabled=true", *BUDGET, TASK], cwd=work, timeout=1500
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert (work / "below_zero.py").read_text() == LUCKY  # applied, and said to be unconfirmed
    end = log_records(work)[-1]
    assert end["status"] == "unverified" and "no model reviewed it" in end["message"]
    assert [r["verdict"] for r in end["repair_reviews"]] == ["unconfirmed"]
    assert "no model reviewed it" in result.stdout
