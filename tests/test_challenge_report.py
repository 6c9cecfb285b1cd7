"""The challenge runner's report splits the runs Codur passed (verified, checked) by the
level of their evidence and counts those the judge failed: from a small journal on disk
(one line written before levels were recorded), through the report files."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from codur.challenges.journal import Journal
from codur.challenges.outcome import JudgedRun
from codur.challenges.report import write_reports


def outcome(name: str, passed: bool, status: str, evidence: str = "") -> JudgedRun:
    return JudgedRun(name, passed, status, 0, 1, 1.0, seed=1, evidence=evidence)


def test_false_passes_per_evidence_level_from_a_journal(tmp_path: Path) -> None:
    out = tmp_path / "out"
    journal = Journal(out, {"profile": "s"})
    for run in (
        outcome("expected", True, "verified", "project"),
        outcome("tests", False, "verified", "project"),  # the judge's hidden check failed it
        outcome("examples", False, "checked", "docstring"),
        outcome("examples2", True, "checked", "docstring"),
        outcome("claims", True, "checked", "task"),
        outcome("stuck", False, "stuck"),  # not a pass of Codur's: not counted
    ):
        journal.add(run)
    older = asdict(outcome("older", False, "verified"))
    del older["evidence"]  # a line from before levels were recorded
    with journal.path.open("a") as f:
        f.write(json.dumps(older) + "\n")

    outcomes = list(journal.finished().values())
    summary = write_reports(outcomes, out)
    assert summary.by_evidence == {
        "project": {"runs": 2, "judge_failed": 1},
        "task": {"runs": 1, "judge_failed": 0},
        "docstring": {"runs": 2, "judge_failed": 1},
        "unrecorded": {"runs": 1, "judge_failed": 1},
    }
    assert summary.false_passes == 3
    md = (out / "report.md").read_text()
    assert (
        "Verified or checked but the judge failed: 3 (by evidence: project 1 of 2; task 0 of 1; "
        "docstring 1 of 2; unrecorded 1 of 1)." in md
    )
    assert "| examples | 1 | FAIL | checked | docstring |" in md
    assert "| stuck | 1 | FAIL | stuck | - |" in md
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["false_passes"] == 3
    assert report["summary"]["by_evidence"]["docstring"] == {"runs": 2, "judge_failed": 1}
