"""The two ways a program starts (codur.sandbox.started): forked from Codur while it is
small, through child.py once a fork would copy a large memory's page tables; both take
the same steps and fail alike. Real subprocesses."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codur.process import run_process
from codur.sandbox import Sandbox, started
from codur.sandbox.child import Steps
from codur.sandbox.confine import landlock_unavailable
from codur.sandbox.private import libc
from codur.sandbox.started import CHILD, Start

pytestmark = pytest.mark.usefixtures("both_ways")


def test_the_way_follows_codur_s_memory(both_ways: str) -> None:
    start = Start.of(["true"], Steps(parent=1), libc, {})
    if both_ways == "exec":
        assert start.argv[:4] == [sys.executable, "-I", "-S", str(CHILD)]
        assert start.argv[-1] == "true" and "preexec_fn" not in start.popen
    else:
        assert start.argv == ["true"] and "preexec_fn" in start.popen
    start.close()


def test_no_step_means_a_plain_start() -> None:
    assert Start.of(["true"], Steps(), libc, {"A": "1"}).popen == {"env": {"A": "1"}}


def test_a_missing_program_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no-such-program"):
        run_process(["no-such-program"], tmp_path, 10, 1000, memory_limit=1 << 32)


def test_a_step_that_fails_stops_the_program_before_it_runs(tmp_path: Path) -> None:
    """A Landlock "ruleset" that is a plain file: the program never runs."""
    marker = tmp_path / "ran"
    program = [sys.executable, "-c", f"open({str(marker)!r}, 'w')"]
    with open(tmp_path / "not-a-ruleset", "w") as plain:
        start = Start.of(program, Steps(landlock=plain.fileno()), libc, dict(os.environ))
        procs = []
        with pytest.raises(subprocess.SubprocessError, match="could not start|preexec_fn"):
            try:
                procs.append(subprocess.Popen(start.argv, **start.popen))  # noqa: S603
                start.started()
            finally:
                start.close()
    for proc in procs:
        assert proc.wait() == 255  # child.py's exit, having reported
    assert not marker.exists()


@pytest.mark.skipif(landlock_unavailable() is not None, reason="no Landlock here")
def test_a_confined_program_holds_no_descriptor_of_its_start(tmp_path: Path) -> None:
    """Neither the ruleset nor the report pipe reaches the program; its writes stay in
    its folder."""
    from codur.sandbox.confine import Landlock

    code = "import os; open('mine.txt', 'w'); print(sorted(os.listdir('/proc/self/fd')))"
    box = Sandbox(confiner=Landlock())
    result = run_process([sys.executable, "-c", code], tmp_path, 10, 10_000, sandbox=box)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "['0', '1', '2', '3']"
    assert (tmp_path / "mine.txt").exists()
    outside = run_process(
        [sys.executable, "-c", f"open({str(tmp_path.parent / 'x.txt')!r}, 'w')"],
        tmp_path,
        10,
        10_000,
        sandbox=box,
    )
    assert outside.exit_code != 0 and "PermissionError" in outside.stderr


def test_the_bound_is_codur_s_resident_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(started, "FORK_BELOW_BYTES", 1 << 62)
    assert not started.fork_is_costly()
    monkeypatch.setattr(started, "FORK_BELOW_BYTES", 1)
    assert started.fork_is_costly()


def test_the_program_gets_its_own_signals_and_environment(tmp_path: Path) -> None:
    """Nothing of the way it started shows (child.py is Python, which ignores SIGPIPE and
    coerces the locale): no signal left ignored, so a pipeline's SIGPIPE ends it; the
    environment as given."""
    script = "grep SigIgn /proc/self/status; echo $LC_CTYPE $ONLY_HERE"
    env = {"LC_CTYPE": "C", "ONLY_HERE": "yes"}
    result = run_process(["sh", "-c", script], tmp_path, 10, 10_000, env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["SigIgn:", _inherited_ignored(), "C", "yes"]


def _inherited_ignored() -> str:
    """The signals this process ignores but those Python ignores itself at start-up
    (SIGPIPE, SIGXFSZ): what a program it starts should ignore too (all zero, unless the
    tests run under `nohup` or as a shell's background job, which ignore SIGHUP, SIGINT
    and SIGQUIT for every process they start)."""
    line = next(
        ln for ln in Path("/proc/self/status").read_text().splitlines() if ln.startswith("SigIgn:")
    )
    mask = int(line.split()[1], 16) & ~((1 << (signal.SIGPIPE - 1)) | (1 << (signal.SIGXFSZ - 1)))
    return f"{mask:016x}"


def test_a_step_failing_otherwise_than_os_error_is_reported_too(tmp_path: Path) -> None:
    """A memory cap setrlimit cannot take (OverflowError): the program never runs, and
    the caller gets SubprocessError either way (not an exit code of the program)."""
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w')"
    with pytest.raises(subprocess.SubprocessError):
        run_process([sys.executable, "-c", code], tmp_path, 10, 1000, memory_limit=2**70)
    assert not marker.exists()
