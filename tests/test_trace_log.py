"""`codur trace` on hand-written logs: a killed run (its last line cut), unknown events,
older field names, a resumed run, the todo list and the verifier's verdict, run ids
resolved as `codur runs` takes them, and the exit-2 cases; any record, however damaged,
never stops the tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import debug_log, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from codur.traces.logfile import read_log
from codur.traces.render import outline
from codur.traces.tree import build

RUN = "20260301T101500-c0ffee"


def line(event: str, run: str = RUN, **data: Any) -> str:
    return json.dumps({"ts": 1000.0, "run": run, "event": event, **data})


KILLED = [
    line("run.start", task="make it faster", version="0.0.1"),  # an older Codur: fewer fields
    line("node.start", node="planner"),
    line(
        "todo.updated",
        items=[
            {"text": "profile the loop", "status": "done"},
            {"text": "cache the parse", "status": "in_progress"},
            {"text": "run the tests", "status": "pending"},
        ],
    ),
    line("frobnicate.happened", widget="gear", teeth=12),  # no Codur knows this one
    line("node.end", node="planner", duration_s=0.5),
    "this line is no JSON at all",
    json.dumps([1, 2, 3]),  # JSON, but no record
    line("node.start", node="agent"),
    line("model.request", profile="p", call=1),
    line(
        "model.response",
        profile="p",
        call=1,
        content=[{"type": "text", "text": "ok"}],
        prompt_tokens=40,
        completion_tokens=2,
    ),
    line(
        "tool.call",
        tool="call_mcp_tool",
        args=json.dumps({"server": "files", "tool_name": "stat", "arguments": {"path": "a.py"}}),
    ),
    line("tool.result", tool="call_mcp_tool", ok=True, result="size 12"),  # older: result
    line("node.end", node="agent", duration_s=0.25),
    line("node.start", node="verifier"),
    line(
        "verifier.verdict",
        verdict="NOT_VERIFIED",
        plan_iteration=2,
        reasons=["the cache is never read", "no test covers it"],
    ),
    line("node.end", node="verifier", duration_s=0.1),
    line("node.start", node="replan"),
    line("model.request", profile="p", call=2),
    '{"ts": 1000.0, "run": "' + RUN + '", "event": "model.resp',  # killed mid-write
]


def write_log(path: Path, lines: list[str], end: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + end)
    return path


def test_a_killed_run_with_unknown_events_and_older_fields(tmp_path: Path) -> None:
    log = write_log(tmp_path / "old.log", KILLED)
    done = run_cli(["trace", str(log)], tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.splitlines()[0] == f"run {RUN}  unfinished"
    assert "log: the log's last line is cut (a killed run, or one still writing)" in out
    assert "log: 2 unreadable line(s) of the log skipped" in out
    assert "no run.end in the log" in out
    assert "totals: model calls 2 · tokens 40+2" in out
    planner = out[out.index("── planner") : out.index("── agent")]
    assert "todo 1/3 done" in planner
    assert "[x] profile the loop" in planner and "[>] cache the parse" in planner
    assert "[ ] run the tests" in planner
    assert "frobnicate.happened widget=gear teeth=12" in planner  # shown under its node
    assert "model p #1  40+2 tokens -> ok" in out  # content as a list of text blocks
    assert '[MCP] files/stat {"path": "a.py"}' in out and "-> size 12" in out
    assert "verifier NOT_VERIFIED (plan iteration 2)" in out
    assert "- the cache is never read" in out and "- no test covers it" in out
    replan = out[out.index("── replan") :]
    assert "unfinished" in replan.splitlines()[0] and "model p #2  no reply" in replan


def test_json_and_full_on_a_hand_written_log(tmp_path: Path) -> None:
    log = write_log(tmp_path / "old.log", KILLED)
    tree = json.loads(run_cli(["trace", str(log), "--json"], tmp_path).stdout)
    assert tree["status"] == "unfinished" and tree["task"] == "make it faster"
    verdict = tree["children"][2]["children"][0]
    assert verdict["kind"] == "verifier" and verdict["verdict"] == "NOT_VERIFIED"
    assert verdict["reasons"] == ["the cache is never read", "no test covers it"]
    todo = tree["children"][0]["children"][0]
    assert todo["kind"] == "todo" and todo["items"][1]["status"] == "in_progress"
    unknown = tree["children"][0]["children"][1]
    assert unknown == {
        "kind": "event",
        "name": "frobnicate.happened",
        "widget": "gear",
        "teeth": 12,
        "children": [],
    }
    full = run_cli(["trace", str(log), "--full"], tmp_path).stdout
    assert '"path": "a.py"' in full and "result: size 12" in full


def test_errors_retries_and_a_resumed_run(tmp_path: Path) -> None:
    lines = [
        line("run.start", task="fix it"),
        line("node.start", node="llm_plan", iteration=0),
        line("model.request", profile="p", call=1),
        line("model.retry", profile="p", attempt=1, error="ConnectError: refused", delay_s=1),
        line(
            "model.response",
            profile="p",
            call=1,
            content="{}",
            prompt_tokens=9,
            completion_tokens=1,
            finish_reason="length",
            duration_s=2.5,
        ),
        line("node.end", node="llm_plan", iteration=0, error="ValueError: bad plan"),
        line(
            "node.error",
            node="llm_plan",
            error="ValueError: bad plan",
            count=1,
            decision="retry",
            traceback="Traceback (most recent call last): ...",
        ),
        line("node.start", node="llm_plan", iteration=0),  # killed here
        line("run.start", task="fix it", resumed=True),
        line("node.start", node="llm_plan", iteration=0),
        line("node.end", node="llm_plan", iteration=0, goto="delegate", duration_s=0.1),
        line("tool.call", tool="read_file", origin="builtin", args='{"path": "a.py"}'),
        line("tool.result", tool="read_file", ok=False, output="read_file failed: no a.py"),
        line("run.end", status="error", error="the llm_plan step failed", exit_code=4),
    ]
    out = run_cli(["trace", str(write_log(tmp_path / "r.log", lines, "\n"))], tmp_path).stdout
    assert out.splitlines()[0] == f"run {RUN}  error  exit code 4"
    assert "error: the llm_plan step failed" in out
    assert "llm_plan  0s  error: ValueError: bad plan (retried; error 1 of the run)" in out
    assert "retry 1 after ConnectError: refused" in out
    assert "model p #1  9+1 tokens  2.5s  cut at the token limit" in out
    assert "unfinished" in out and "resumed (a new process went on from here)" in out
    assert "llm_plan  0.1s -> delegate" in out
    assert "[built-in] read_file" in out and "-> error: read_file failed: no a.py" in out
    assert "Traceback" not in out
    assert (
        "traceback: Traceback (most recent call last)"
        in run_cli(["trace", str(tmp_path / "r.log"), "--full"], tmp_path).stdout
    )


def test_control_sequences_in_logged_text_never_reach_the_terminal(tmp_path: Path) -> None:
    """A program's output or a model's reply may hold escape sequences (clear the
    screen, retitle the window); the tree shows their text without them."""
    lines = [
        line("run.start", task="fix"),
        line("tool.call", tool="run_python_file", args="{}"),
        line("tool.result", tool="run_python_file", ok=True, output="\x1b[2J\x1b]0;pwned\x07ok"),
        line("model.response", profile="p", call=1, content="[red]not markup[/red]\x1b[31m"),
    ]
    log = write_log(tmp_path / "c.log", lines)
    for flags in ([], ["--full"]):
        out = run_cli(["trace", str(log), *flags], tmp_path).stdout
        assert "\x1b" not in out and "\x07" not in out
        assert "ok" in out and "[red]not markup[/red]" in out  # shown as text, not styled


def test_json_escapes_control_characters_and_keeps_the_text(tmp_path: Path) -> None:
    """`codur trace --json` piped to a terminal: a model's reply holding an 8-bit CSI
    (0x9b, written raw in the log as Codur writes it) comes out escaped, not raw, and the
    JSON still reads back to the very text."""
    reply = "\x9b31mred\x9b0m \x1b[2J\x7f é"
    record = {"ts": 1000.0, "run": RUN, "event": "model.response", "profile": "p"}
    lines = [
        line("run.start", task="fix"),
        json.dumps({**record, "call": 1, "content": reply}, ensure_ascii=False),
    ]
    log = write_log(tmp_path / "c1.log", lines)
    assert "\x9b" in log.read_text(encoding="utf-8")
    done = run_cli(["trace", str(log), "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert not any("\x7f" <= ch <= "\x9f" or (ch < " " and ch != "\n") for ch in done.stdout)
    assert "\\u009b31mred" in done.stdout and "é" in done.stdout  # escaped; non-ASCII as is

    def strings(value: Any) -> list[str]:
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) else []

    assert reply in strings(json.loads(done.stdout))


@pytest.mark.slow
def test_run_ids_are_found_like_codur_runs_finds_them(tmp_path: Path) -> None:
    ids = ["20260301T101500-aaaaaa", "20260301T101500-bbbbbb", "20260302T090000-aaaabb"]
    lines = [line("run.start", run=i, task=f"task {n}") for n, i in enumerate(ids)]
    write_log(debug_log(tmp_path), lines, "\n")
    shown = {
        ref: run_cli(["trace", ref] if ref else ["trace"], tmp_path)
        for ref in ("", ids[1], "20260302", "bbbbbb", "20260301T", "aaaaaa", "zzz")
    }
    assert shown[""].stdout.startswith(f"run {ids[2]}")  # no argument: the last run
    assert shown[ids[1]].stdout.startswith(f"run {ids[1]}")
    assert shown["20260302"].stdout.startswith(f"run {ids[2]}")  # the start of one id
    assert shown["bbbbbb"].stdout.startswith(f"run {ids[1]}")  # the end of one
    assert shown["aaaaaa"].stdout.startswith(f"run {ids[0]}")
    assert shown["20260301T"].returncode == 2 and shown["20260301T"].stdout == ""
    assert shown["20260301T"].stderr.strip() == (
        f"codur: error: 20260301T: ambiguous, it matches {ids[0]}, {ids[1]}"
    )
    assert shown["zzz"].returncode == 2
    assert shown["zzz"].stderr.strip() == (
        f"codur: error: zzz: no such run in {debug_log(tmp_path)} (see codur runs)"
    )


@pytest.mark.slow
def test_exit_2_without_a_log_or_with_a_wrong_path(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = run_cli(["trace"], empty)
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.strip() == (
        f"codur: error: no debug log at {debug_log(empty)} (see log.path; is log.enabled off?)"
    )
    for args in (["trace", "nowhere/run.log"], ["trace", "gone.jsonl"]):
        done = run_cli(args, empty)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "no such log file" in done.stderr
    blank = write_log(tmp_path / "blank.log", ["", "not json"], "\n")
    done = run_cli(["trace", str(blank)], tmp_path)
    assert done.returncode == 2 and "no run in the debug log" in done.stderr
    folder = run_cli(["trace", str(empty)], tmp_path)
    assert folder.returncode == 2 and "a folder, not a debug log" in folder.stderr


# Records as an older, newer or damaged Codur could write them: known event kinds with
# fields of any type, and kinds no Codur has.
KINDS = [
    "run.start",
    "run.end",
    "ask.start",
    "node.start",
    "node.end",
    "node.error",
    "model.request",
    "model.response",
    "model.retry",
    "tool.call",
    "tool.result",
    "tool.error",
    "verify.run",
    "verify.result",
    "verifier.verdict",
    "todo.updated",
    "warning",
    "index.start",
    "index.end",
    "scope",
    "file.write",
    "x.y",
]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
FIELDS = st.sampled_from(
    [
        "node",
        "profile",
        "call",
        "tool",
        "args",
        "output",
        "ok",
        "items",
        "reasons",
        "verdict",
        "content",
        "tool_calls",
        "messages",
        "command",
        "checks",
        "suggestions",
        "duration_s",
        "goto",
        "run",
        "ts",
        "status",
        "error",
        "decision",
        "count",
        "origin",
        "config",
        "retries",
    ]
)
RECORDS = st.fixed_dictionaries({"event": st.sampled_from(KINDS)}).flatmap(
    lambda base: st.dictionaries(FIELDS, VALUES, max_size=6).map(lambda extra: {**extra, **base})
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(RECORDS, max_size=25), st.booleans())
def test_any_records_make_a_tree(records: list[dict[str, Any]], full: bool) -> None:
    from codur.traces.logfile import RunLog

    tree = build(RunLog("r", records))
    json.dumps(tree.as_json(), default=str)
    outline(tree, full)


def test_reading_tolerates_a_log_without_a_final_newline(tmp_path: Path) -> None:
    log = read_log(write_log(tmp_path / "a.log", [line("run.start"), line("run.end")]))
    assert not log.cut and log.unreadable == 0 and log.last == RUN
