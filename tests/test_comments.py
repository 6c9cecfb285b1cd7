"""Comments, docstrings and docs describe behaviour: none points at a design document
("seed 002") that is not in the repository."""

from __future__ import annotations

import re

from helpers import ROOT

SEED = re.compile(r"\bseeds? 0\d\d\b", re.IGNORECASE)


def test_no_comment_points_at_a_seed_document() -> None:
    files = [*(ROOT / "codur").rglob("*.py"), *(ROOT / "docs").rglob("*.md")]
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if SEED.search(line)
    ]
    assert len(files) > 100 and found == []
