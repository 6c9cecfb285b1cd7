"""Fault injection, the machine's side: a read-only folder and a full disk are ordinary
conditions, each with its one-line error and exit code 11 (they were exit 4, "internal
error ... a bug"). Real mounts (a read-only bind mount, a tmpfs of a few blocks): the
tests run as root, which permission bits do not stop; they are skipped where mounting
is not allowed."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import BUGGY, debug_log, run_cli, scripted_profile, whole_file

from codur.errors import ExitCode

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier


def mount(*args: str) -> str | None:
    """Run mount; why it failed (None: it worked)."""
    if shutil.which("mount") is None:
        return "no mount command"
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    return None if done.returncode == 0 else (done.stderr.strip() or "mount failed")


@contextmanager
def mounted(target: Path, *args: str) -> Iterator[None]:
    why = mount(*args, str(target))
    if why is not None:
        pytest.skip(f"cannot mount here ({why}): needs root with CAP_SYS_ADMIN")
    try:
        yield
    finally:
        subprocess.run(["umount", str(target)], check=True)


def project(folder: Path) -> None:
    (folder / "main.py").write_text(BUGGY)
    (folder / "expected.txt").write_text("10\n")


def test_a_read_only_folder_is_said_in_one_line(tmp_path: Path) -> None:
    source, work = tmp_path / "source", tmp_path / "work"
    source.mkdir()
    work.mkdir()
    project(source)
    with mounted(work, "--bind", str(source)):
        if mount("-o", "remount,bind,ro", str(work)) is not None:
            pytest.skip("cannot remount the bind mount read-only here")
        result = run_cli(["--no-model", "fix @main.py"], cwd=work)
    assert result.returncode == ExitCode.CANNOT_WRITE, result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"codur: error: cannot write {debug_log(work)}: the file system is read-only"
    )
    assert "internal error" not in result.stderr
    assert (source / "main.py").read_text() == BUGGY


def test_a_full_disk_is_said_in_one_line_and_keeps_the_files(tmp_path: Path) -> None:
    """The disk fills while the run writes (a fix the model sends, bigger than the space
    left): one line naming the file and the condition, the end record written when the
    log can take it, and main.py whole (old or new, never cut)."""
    work = tmp_path / "work"
    work.mkdir()
    with mounted(work, "-t", "tmpfs", "-o", "size=256k", "tmpfs"):
        project(work)
        log = debug_log(work)
        big = BUGGY + "# " + "x" * 400_000 + "\n"  # no room for it
        reply = whole_file("main.py", big)
        flags = [*scripted_profile(tmp_path, [reply, reply]), "--max-iterations", "1"]
        result = run_cli([*flags, "fix @main.py"], cwd=work)
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        main = (work / "main.py").read_text()
    assert result.returncode == ExitCode.CANNOT_WRITE, result.stdout + result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "codur: error: cannot write main.py: no space left on the disk; free some and run again"
    )
    assert "internal error" not in result.stderr
    assert lines[-1]["event"] == "run.end" and lines[-1]["exit_code"] == ExitCode.CANNOT_WRITE
    assert main == BUGGY
