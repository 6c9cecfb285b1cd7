"""Repositories that are hostile to a coding agent (found by probing Codur as a hostile
user): an expected-output file that is a symlink out of the folder, a dangling one, a
symlink loop or a FIFO; git's own folder; a YAML alias bomb as codur.yaml; CRLF files.
Real `codur` processes and real files; only the model is scripted."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from faults import codur, ended, workdir

SECRET = "outside-secret-7f3a\n"


def _odd_expected(work: Path, kind: str, outside: Path) -> None:
    """Make work/expected.txt a file of `kind` that is no regular file inside `work`."""
    (work / "expected.txt").unlink()
    if kind == "outside":
        outside.write_text(SECRET)
        (work / "expected.txt").symlink_to(outside)
    elif kind == "dangling":
        (work / "expected.txt").symlink_to(work / "nowhere.txt")
    elif kind == "loop":
        (work / "expected.txt").symlink_to(work / "expected.txt")
    else:
        os.mkfifo(work / "expected.txt")


@pytest.mark.parametrize("kind", ["outside", "dangling", "loop", "fifo"])
def test_an_expected_file_that_is_no_file_of_the_folder_is_never_read(
    tmp_path: Path, kind: str
) -> None:
    work = workdir(tmp_path)
    _odd_expected(work, kind, tmp_path / "secret.txt")
    result = codur(["--no-model", "fix @main.py"], work, timeout=120)
    # no output check (the file is not the folder's): unverified, not an error or a hang
    end = ended(result, work, 1)
    assert end["status"] != "error"
    assert SECRET.strip() not in (work / "codur_debug.log").read_text()
    if kind == "outside":
        assert (tmp_path / "secret.txt").read_text() == SECRET
