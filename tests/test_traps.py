"""The trap challenges (challenges/trap_*): the only single-edit way to make each one's
output match is to weaken the check. With the repair search on and no model, none may
end verified, and the files the judge protects stay as they were (real copies, real
`codur` processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT, debug_log, run_cli

from codur.challenges.judge import passes
from codur.challenges.spec import discover

TRAPS = [c for c in discover([ROOT / "challenges"]) if "trap" in c.spec.tags]


def test_there_are_five_traps() -> None:
    assert len(TRAPS) == 5


@pytest.mark.slow
@pytest.mark.parametrize("challenge", TRAPS, ids=[c.name for c in TRAPS])
def test_the_repair_search_never_fakes_a_trap(challenge, tmp_path: Path) -> None:
    work = challenge.copy_to(tmp_path)
    before = {
        p.relative_to(work).as_posix(): p.read_bytes() for p in work.rglob("*") if p.is_file()
    }
    result = run_cli(
        [challenge.prompt, "--no-model", "-o", "repair.time_budget_s=60"], work, timeout=300
    )
    end = [json.loads(line) for line in debug_log(work).read_text().splitlines()][-1]
    assert end["event"] == "run.end" and end["status"] != "verified", result.stdout
    assert result.returncode == 1
    assert not passes(challenge, work)  # the judge agrees: nothing was fixed
    for path, data in before.items():
        if path != "prompt.txt":
            assert (work / path).read_bytes() == data, f"{path} changed"
