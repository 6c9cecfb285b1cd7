"""Every benchmark script still starts: its imports resolve against the current code (a
rename elsewhere must not break a benchmark that runs only now and then)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if "main()" in p.read_text())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_script_starts(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage:" in result.stdout


def test_every_script_is_covered() -> None:
    helpers = {"humaneval_codur.py", "humaneval_judge.py"}
    assert {p.name for p in BENCH.glob("*.py")} - helpers == {p.name for p in SCRIPTS}
