"""Streaming verification: an output check stops the program (and its descendants) at the
first stdout line that cannot match the expected output, with the lines so far as the
failure; a program whose output so far could still match runs to its end and is judged
as before. Real programs in real folders; the model is scripted in the CLI test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import debug_log, run_cli, scripted_profile, whole_file, write_files
from test_process import gone

from codur.config.schema import ToolsConfig
from codur.events import Event, EventBus
from codur.tools.context import ToolContext
from codur.verify.check import normalize
from codur.verify.plan import OutputCheck
from codur.verify.stream import mismatch
from codur.workspace import Workspace

SLOW = (
    "import pathlib, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "pathlib.Path('child.pid').write_text(str(child.pid))\n"
    "print({first!r}, flush=True)\n"
    "time.sleep({sleep})\n"
    "pathlib.Path('finished').write_text('the program ran to its end')\n"
    "print('2')\n"
)
"""Prints a first line, starts a descendant, sleeps, then marks that it finished."""


def slow(first: str, sleep: float = 20) -> str:
    return SLOW.format(first=first, sleep=sleep)


def check(root: Path, timeout_s: float = 120) -> tuple[object, list[Event]]:
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    ctx = ToolContext(Workspace(root), ToolsConfig(run_timeout_s=timeout_s), bus=bus)
    evidence = OutputCheck(entry="main.py", expected_file="expected.txt").run(ctx)
    return evidence, [e for e in events if e.kind == "verify.run"]


@pytest.mark.slow
def test_a_wrong_first_line_stops_the_program_and_its_descendants(tmp_path: Path) -> None:
    write_files(tmp_path, {"main.py": slow("1  \r"), "expected.txt": "0\n2\n"})
    evidence, runs = check(tmp_path)
    assert not evidence.passed
    assert not (tmp_path / "finished").exists()  # stopped during its sleep, not after
    assert gone(tmp_path / "child.pid")  # the whole process tree
    (run,) = runs
    assert run.data["stopped_at_line"] == 1 and not run.data["timed_out"]
    assert run.data["exit_code"] is None and run.data["stdout"] == "1  \r\n"
    assert "stopped at output line 1" in evidence.summary
    assert "The program was stopped at output line 1" in evidence.feedback
    assert "Actual output:\n```\n1" in evidence.feedback
    assert evidence.first_wrong_line == 0


@pytest.mark.slow
def test_a_slow_program_whose_lines_match_runs_to_its_end(tmp_path: Path) -> None:
    # trailing spaces and CRLF are what the final comparison ignores: no early stop either
    write_files(tmp_path, {"main.py": slow("0 \r", sleep=2), "expected.txt": "0\r\n2  \n\n"})
    evidence, runs = check(tmp_path)
    assert evidence.passed, evidence.feedback
    assert (tmp_path / "finished").exists()
    assert runs[0].data["stopped_at_line"] is None and runs[0].data["exit_code"] == 0


@pytest.mark.parametrize(
    ("expected", "printed", "stop"),
    [
        ("a\nb\n", ["a", "b"], None),
        ("a\nb\n", ["a", "c"], 2),
        ("a\nb", ["a  ", "b\r"], None),  # trailing whitespace and CR are not compared
        ("a\nb\n", ["a", "", "b"], 2),  # a blank line where text is due cannot match
        ("a\n\nb\n", ["a", " ", "b"], None),  # a blank line that is due
        ("a\n", ["a", "", "", ""], None),  # trailing blank lines are dropped
        ("a\n", ["a", "", "x"], 3),  # text after the expected end
        ("", ["", "y"], 2),  # an empty expected output takes blank lines only
        ("a\n\n\n", ["a", "b"], 2),
    ],
)
def test_the_early_stop_is_exactly_as_strict_as_the_comparison(
    expected: str, printed: list[str], stop: int | None
) -> None:
    cannot_match = mismatch(expected)
    stopped = next((n + 1 for n, line in enumerate(printed) if cannot_match(n, line)), None)
    assert stopped == stop
    if stop is None:  # each output that stopped nothing here is one the comparison accepts
        assert normalize("\n".join(printed)) == normalize(expected)


@pytest.mark.slow
def test_codur_run_stops_a_slow_wrong_program_and_tells_the_model(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    write_files(root, {"main.py": slow("1"), "expected.txt": "0\n2\n"})
    fixed = "print(0)\nprint(2)\n"
    flags = scripted_profile(tmp_path, [whole_file("main.py", fixed)])
    done = run_cli([*flags, "-o", "tools.run_timeout_s=120", "fix @main.py"], root, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (root / "finished").exists()  # the first check did not wait for the sleep
    assert gone(root / "child.pid")
    records = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    first = next(r for r in records if r["event"] == "verify.run")
    assert first["stopped_at_line"] == 1 and first["stdout"] == "1\n"
    request = next(r for r in records if r["event"] == "model.request")
    told = json.dumps(request["messages"])
    assert "stopped at output line 1" in told
    assert records[-1]["status"] == "verified"
