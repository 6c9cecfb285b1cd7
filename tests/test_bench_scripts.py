"""Every benchmark script still starts: its imports resolve against the current code (a
rename elsewhere must not break a benchmark that runs only now and then)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
FOLDERS = (BENCH, BENCH / "realrepo")
SCRIPTS = sorted(p for folder in FOLDERS for p in folder.glob("*.py") if "main()" in p.read_text())
HELPERS = {
    "humaneval_codur.py", "humaneval_judge.py", "journal.py", "latency_log.py",
    "latency_report.py",
    "realrepo/bare.py", "realrepo/mutate.py", "realrepo/packages.py", "realrepo/suite.py",
    "realrepo/tasks.py", "realrepo/validate.py",
}  # fmt: skip
"""Modules the scripts import, with no command line of their own."""


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(BENCH).as_posix())
def test_the_script_starts(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage:" in result.stdout


def test_every_script_is_covered() -> None:
    every = {p.relative_to(BENCH).as_posix() for folder in FOLDERS for p in folder.glob("*.py")}
    assert every - HELPERS == {p.relative_to(BENCH).as_posix() for p in SCRIPTS}
