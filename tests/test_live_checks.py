"""Never silent while a check's program, the test suite or the repair search runs:
`--json` emits `program.progress` and `repair.progress` events, at most one a second, and
the terminal's live line says what runs (the repair search's tracing stage included).
The real CLI on real slow programs (checks that sleep), with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import BUGGY, FIXED, run_cli, scripted_profile, whole_file, write_files
from terminal import Terminal
from test_live_progress import terminal_env

from codur.events import EventBus, Ticker

SLEEP = "import time\ntime.sleep(3)\n"
"""The head of a check that takes 3 s: two progress events at least."""


def events_of(args: list[str], work: Path) -> list[dict[str, Any]]:
    done = run_cli([*args, "--json"], cwd=work)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def between(events: list[dict[str, Any]], start: str, kind: str, end: str) -> list[list[dict]]:
    """The `kind` events inside each `start` .. `end` pair, with the pair around them."""
    spans, inside = [], None
    for event in events:
        if event["event"] == start:
            inside = [event]
        elif inside is not None and event["event"] in (kind, end):
            inside.append(event)
            if event["event"] == end:
                spans.append(inside)
                inside = None
    return spans


def assert_paced(span: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The progress events of a span: some, at most one a second, elapsed rising."""
    progress = span[1:-1]
    assert len(progress) >= 2, span  # a 3 s program: progress while it ran
    gaps = [b["ts"] - a["ts"] for a, b in zip(span[:-1], progress, strict=False)]
    assert min(gaps) >= 0.9  # at most one a second (ts is rounded to ms)
    elapsed = [p["elapsed_s"] for p in progress]
    assert elapsed == sorted(elapsed) and elapsed[0] >= 0.9
    return progress


@pytest.mark.slow
def test_json_progress_while_a_check_program_runs(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": SLEEP + BUGGY, "expected.txt": "10\n"})
    script = scripted_profile(tmp_path, [whole_file("main.py", SLEEP + FIXED)])
    events = events_of([*script, "fix @main.py"], work)
    spans = between(events, "program.start", "program.progress", "program.end")
    assert len(spans) == 2  # the failing check, then the passing one
    for span in spans:
        for progress in assert_paced(span):
            assert progress["command"] == span[0]["command"] and progress["by"] == "verify"


@pytest.mark.slow
def test_json_progress_while_the_test_suite_runs(tmp_path: Path) -> None:
    bug = "def add(a, b):\n    return a - b\n"
    test = f"{SLEEP}from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    work = tmp_path / "w"
    write_files(work, {"calc.py": bug, "test_calc.py": test})
    fixed = whole_file("calc.py", bug.replace("a - b", "a + b"))
    events = events_of([*scripted_profile(tmp_path, [fixed]), "fix @calc.py"], work)
    spans = between(events, "program.start", "program.progress", "program.end")
    suites = [s for s in spans if "pytest" in " ".join(s[0]["command"])]
    assert suites  # the suite ran as a check
    for span in suites:
        assert_paced(span)


@pytest.mark.slow
def test_json_progress_while_the_repair_search_runs(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": SLEEP + BUGGY, "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, [], repair=True)  # the search fixes it: no model call
    events = events_of([*flags, "fix @main.py"], work)
    progress = [e for e in events if e["event"] == "repair.progress"]
    start = next(e for e in events if e["event"] == "repair.start")
    assert [p["stage"] for p in progress][:1] == ["tracing"]  # the checks under a tracer
    searching = [p for p in progress if p["ts"] > start["ts"]]
    assert searching and all(p["candidates"] == start["candidates"] for p in searching)
    tried = [p["tried"] for p in searching]
    assert tried == sorted(tried)
    gaps = [b["ts"] - a["ts"] for a, b in zip(progress, progress[1:], strict=False)]
    assert not gaps or min(gaps) >= 0.9
    assert (work / "main.py").read_text() == SLEEP + FIXED


@pytest.mark.slow
def test_a_terminal_shows_the_repair_search_tracing(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": SLEEP + BUGGY, "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, [], repair=True)
    term = Terminal([*flags, "fix @main.py"], work, terminal_env())
    shown = term.expect(" s · tracing the checks")  # before any candidate runs
    assert "repair search: " in shown
    term.expect(" candidates tried")
    term.expect("verified")
    assert term.close() == 0


def test_the_ticker_waits_a_second_between_events() -> None:
    """Ticker itself: nothing before a second has passed, then one event a second at most
    however often it is called."""
    now = [0.0]
    bus, sent = EventBus(), []
    bus.subscribe(sent.append)
    tick = Ticker(bus, "x.progress", 1.0, clock=lambda: now[0])
    for step in range(35):
        now[0] = step / 10
        tick(step=step)
    assert [(e.data["elapsed_s"], e.data["step"]) for e in sent] == [
        (1.0, 10),
        (2.0, 20),
        (3.0, 30),
    ]
