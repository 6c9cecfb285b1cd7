"""What the repair search has done on each state of the code: a run searches the same
code at most once to the end, and a search cut short by its budget resumes where it
stopped (the candidates it tried are not tried again).

A state of the code is the digest of the workspace's Python files (the code the search
mutates and the tests that judge it): a failed model attempt that changed none of them
leaves nothing new to search, however its failure reads (a failure message naming an
object's address differs every run).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import TypedDict

from codur.config.schema import RepairConfig
from codur.verify.target import python_files


class Searched(TypedDict):
    """The searches of one state of the code so far (kept in the run's state)."""

    spent_s: float
    """Wall time spent on it; a search its budget cut counts its whole budget."""
    tried: list[str]
    """`candidate_id` of every candidate tried."""
    done: bool
    """Searched to the end: a fix was found, or every candidate failed."""


def code_key(root: Path) -> str:
    """The digest of the Python files under `root` (their paths and contents)."""
    digest = hashlib.sha256()
    for path in sorted(python_files(root)):
        digest.update(path.encode() + b"\0")
        try:
            digest.update(regular_bytes(root / path))
        except OSError as exc:  # unreadable: its name and error stand for it
            digest.update(f"unreadable: {exc.strerror}".encode())
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def regular_bytes(path: Path) -> bytes:
    """The file's bytes; OSError for anything but a regular file (a FIFO named `x.py`
    would block the read for ever), opened without waiting for a writer."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read()


def candidate_id(description: str) -> str:
    """A short, stable name for a candidate (its description names files and lines)."""
    return hashlib.sha256(description.encode()).hexdigest()[:12]


def budget_s(record: Searched | None, cfg: RepairConfig, first: bool) -> float:
    """Seconds the next search of this code may take; 0: nothing left to search.
    `first`: no model attempt yet and a model may be called, so only the first budget,
    once (and only single edits, `first_max_depth`)."""
    if first:
        return min(cfg.first_budget_s, cfg.time_budget_s) if record is None else 0.0
    if record is not None and record["done"]:
        return 0.0
    spent = record["spent_s"] if record is not None else 0.0
    return max(0.0, cfg.time_budget_s - spent)


def after(
    record: Searched | None,
    budget: float,
    duration_s: float,
    tried: list[str],
    done: bool,
    cut: bool,
) -> Searched:
    """`record` with one more search added (`budget`: what that search was given; `cut`:
    it ran out of it, so all of it counts as spent)."""
    spent = max(duration_s, budget) if cut else duration_s
    before = record or Searched(spent_s=0.0, tried=[], done=False)
    return Searched(
        spent_s=round(before["spent_s"] + spent, 3),
        tried=[*before["tried"], *tried],
        done=done,
    )
