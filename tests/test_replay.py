"""Record and replay: `--record FILE` saves a run's model requests and responses,
`--replay FILE` answers from them with no model; a request the recording does not hold
stops the run (exit code 8). Real `codur` processes and files; recordings of the scripted
model, one committed recording of the embedded model (tests/data), and one made here with
the embedded model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    BUGGY,
    FIXED,
    ROOT,
    WRONG,
    debug_log,
    embedded_model_unavailable,
    run_cli,
    scripted_profile,
    whole_file,
)

from codur.errors import ExitCode

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

SECRET = "sk-live-0123456789abcdef"
DATA = Path(__file__).parent / "data"
NO_REPAIR = ["-o", "repair.enabled=false", "-o", "sampling.candidates=0"]


def folder(root: Path, main: str = BUGGY) -> Path:
    root.mkdir()
    (root / "main.py").write_text(main)
    (root / "expected.txt").write_text("10\n")
    return root


def records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def lines(recording: Path) -> list[dict]:
    return [json.loads(line) for line in recording.read_text().splitlines()]


def replaying(profile: str) -> list[str]:
    """Flags for a replay on `profile`, defined with no script: it never answers."""
    return ["-o", f"llm.profiles.{profile}.provider=scripted", "--profile", profile, *NO_REPAIR]


def function(code: str) -> str:
    """The `total` function alone (a reply that changes it; the rest of main.py stays)."""
    return code.split("\n\nprint")[0] + "\n"


def test_a_recorded_scripted_run_replays_without_its_model(tmp_path: Path) -> None:
    # the key is in the environment and in the file the prompt shows: the requests hold
    # it, the recording never does (the replies change only the function, not the key)
    buggy = f"# deploy key {SECRET}\n{BUGGY}"
    fixed = f"# deploy key {SECRET}\n{FIXED}"
    first = folder(tmp_path / "first", buggy)
    replies = [whole_file("main.py", function(WRONG)), whole_file("main.py", function(FIXED))]
    recording = tmp_path / "run.jsonl"
    env = {"OPENAI_API_KEY": SECRET}
    done = run_cli(
        [*scripted_profile(tmp_path, replies), "--record", str(recording), "fix @main.py"],
        cwd=first,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    held = lines(recording)
    assert held[0] == {"kind": "header", "format": 1}
    calls = [line for line in held if line["kind"] == "call"]
    assert [c["n"] for c in calls] == [1, 2] and all(c["profile"] == "s" for c in calls)
    request = calls[0]["request"]
    assert [m["role"] for m in request["messages"]] == ["system", "human"]
    assert set(request) == {"messages", "tools", "temperature", "seed", "max_tokens"}
    assert calls[1]["response"]["finish_reason"] == "stop"
    assert calls[1]["response"]["usage"]["input_tokens"] > 0
    assert "fix @main.py" in request["messages"][-1]["content"]
    assert SECRET not in recording.read_text() and "***" in recording.read_text()
    assert not list(tmp_path.glob(".run.jsonl.*"))  # written atomically: no temp file left

    again = folder(tmp_path / "again", buggy)
    replayed = run_cli([*replaying("s"), "--replay", str(recording), "fix @main.py"], again, env)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert (again / "main.py").read_text() == (first / "main.py").read_text() == fixed
    ends = records(first)[-1], records(again)[-1]
    for field in ("status", "check", "model_calls", "iterations", "prompt_tokens"):
        assert ends[0][field] == ends[1][field], field
    loads = [r for r in records(again) if r["event"] == "model.load.start"]
    assert [r["endpoint"] for r in loads] == [f"recording {recording}"]
    # no --profile: the profile the recording was made with (docs/sessions.md; a docs
    # probe's replay ran on the default profile and stopped at its first request)
    third = folder(tmp_path / "third", buggy)
    unnamed = [a for a in replaying("s") if a not in ("--profile", "s")]
    bare = run_cli([*unnamed, "--replay", str(recording), "fix @main.py"], third, env)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert (third / "main.py").read_text() == fixed


def test_a_replay_that_asks_something_else_stops_naming_the_request(tmp_path: Path) -> None:
    first = folder(tmp_path / "first")
    recording = tmp_path / "run.jsonl"
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    assert run_cli([*flags, "--record", str(recording), "fix @main.py"], first).returncode == 0

    other = folder(tmp_path / "other")
    task = "fix the bug in @main.py"  # another task: the first request differs
    result = run_cli([*replaying("s"), "--replay", str(recording), task], cwd=other)
    assert result.returncode == ExitCode.REPLAY_MISMATCH
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"codur: error: --replay {recording}: request 1 (profile s, 2 ")
    assert "is not in the recording: message 2 (human) differs at character" in line
    assert "fix the bug in @main.py" in line
    assert (other / "main.py").read_text() == BUGGY
    assert records(other)[-1]["status"] == "error" and records(other)[-1]["exit_code"] == 8

    # the same task, but the recording runs out: the second attempt is past its end
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG)], name="w")
    short = tmp_path / "short.jsonl"
    one = folder(tmp_path / "one")
    cut = run_cli([*flags, "--max-llm-calls", "1", "--record", str(short), "fix @main.py"], one)
    assert cut.returncode == ExitCode.NOT_VERIFIED
    two = folder(tmp_path / "two")
    past = run_cli([*replaying("w"), "--replay", str(short), "fix @main.py"], cwd=two)
    assert past.returncode == ExitCode.REPLAY_MISMATCH
    assert (
        "request 2 (profile w, " in past.stderr
        and "past the recording's end (1 requests)" in past.stderr
    )


def test_a_replay_of_a_file_that_is_no_recording_is_a_usage_error(tmp_path: Path) -> None:
    work = folder(tmp_path / "work")
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text('{"kind": "call"}\n')
    result = run_cli([*replaying("s"), "--replay", str(bogus), "fix @main.py"], cwd=work)
    assert result.returncode == ExitCode.USAGE
    assert f"{bogus}: not a Codur recording" in result.stderr


def copy_challenge(name: str, dest: Path) -> tuple[Path, str]:
    work = dest / name
    shutil.copytree(
        ROOT / "challenges" / name,
        work,
        ignore=shutil.ignore_patterns("solution", "challenge.yaml"),
    )
    return work, (work / "prompt.txt").read_text().strip()


def judged(work: Path) -> bool:
    run = subprocess.run([sys.executable, "main.py"], cwd=work, capture_output=True, text=True)
    return run.stdout == (work / "expected.txt").read_text()


CHALLENGE = "off_by_one_sum"
EMBEDDED_FLAGS = ["--max-iterations", "3", "-o", "repair.enabled=false"]
EMBEDDED_FLAGS += ["-o", "sampling.candidates=0"]
"""How tests/data/off_by_one_sum.jsonl was recorded (with the default profile, local: the
embedded 1.5B model; no repair search, so the model has to fix it) and is replayed."""


def test_the_committed_embedded_model_recording_replays_with_no_model(tmp_path: Path) -> None:
    """Pins the embedded model's behaviour on a challenge in a fast test: the recording
    (made with EMBEDDED_FLAGS) fixes it, and replaying it loads no model (the profile's
    model file does not even exist here)."""
    work, task = copy_challenge(CHALLENGE, tmp_path)
    recording = DATA / f"{CHALLENGE}.jsonl"
    nowhere = f"llm.profiles.local.model_file={tmp_path / 'no-such-model.gguf'}"
    result = run_cli([*EMBEDDED_FLAGS, "-o", nowhere, "--replay", str(recording), task], cwd=work)
    assert result.returncode == 0, result.stdout + result.stderr
    assert judged(work)
    end = records(work)[-1]
    held = [line for line in lines(recording) if line["kind"] == "call"]
    assert end["status"] == "verified" and end["model_calls"] == len(held)
    loads = [r for r in records(work) if r["event"] == "model.load.start"]
    assert [r["endpoint"] for r in loads] == [f"recording {recording}"]


@pytest.mark.embedded
@pytest.mark.skipif(
    embedded_model_unavailable() is not None, reason=str(embedded_model_unavailable())
)
def test_an_embedded_model_run_replays_to_the_same_files_and_verdict(tmp_path: Path) -> None:
    recorded, task = copy_challenge(CHALLENGE, tmp_path / "recorded")
    recording = tmp_path / "run.jsonl"
    done = run_cli([*EMBEDDED_FLAGS, "--record", str(recording), task], cwd=recorded, timeout=1800)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # its verdict, replayed below
    assert [r for r in records(recorded) if r["event"] == "model.load.start"]  # a real model

    replayed, _ = copy_challenge(CHALLENGE, tmp_path / "replayed")
    nowhere = f"llm.profiles.local.model_file={tmp_path / 'no-such-model.gguf'}"
    again = run_cli([*EMBEDDED_FLAGS, "-o", nowhere, "--replay", str(recording), task], replayed)
    assert again.returncode == done.returncode, again.stdout + again.stderr
    assert (replayed / "main.py").read_text() == (recorded / "main.py").read_text()
    ends = records(recorded)[-1], records(replayed)[-1]
    for field in ("status", "check", "model_calls", "iterations", "completion_tokens"):
        assert ends[0][field] == ends[1][field], field
    loads = [r for r in records(replayed) if r["event"] == "model.load.start"]
    assert [r["endpoint"] for r in loads] == [f"recording {recording}"]


def test_a_recording_inside_the_workspace_is_no_change_of_the_run(tmp_path: Path) -> None:
    """`codur --record run.jsonl` in the folder: the recording is Codur's, like its debug
    log: not among the run's changes, and `codur undo` leaves it."""
    work = folder(tmp_path / "work")
    flags = [*scripted_profile(tmp_path, [whole_file("main.py", FIXED)]), *NO_REPAIR]
    done = run_cli([*flags, "--json", "--record", "run.jsonl", "fix @main.py"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    end = records(work)[-1]
    assert end["files_changed"] == ["main.py"] and "run.jsonl" not in end["run_changes"]
    assert run_cli(["undo"], work).returncode == 0
    assert (work / "main.py").read_text() == BUGGY
    assert lines(work / "run.jsonl")  # the recording stays


def test_a_recording_nested_too_deeply_is_a_usage_error_at_once(tmp_path: Path) -> None:
    """A line nested deeper than the JSON reader can follow is no recording: exit 2 with
    the file and line named, at once (it was a bug, exit 4, after four retries)."""
    work = folder(tmp_path / "work")
    deep = tmp_path / "deep.jsonl"
    nested = '{"kind": "call", "request": ' + "[" * 100_000 + "]" * 100_000 + "}"
    deep.write_text(json.dumps({"kind": "header", "format": 1}) + "\n" + nested + "\n")
    result = run_cli([*replaying("s"), "--replay", str(deep), "fix @main.py"], cwd=work)
    assert result.returncode == ExitCode.USAGE, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line == f"codur: error: {deep}:2: not a recording line (nested too deeply)"
    assert not [r for r in records(work) if r["event"] == "model.retry"]
    assert records(work)[-1]["exit_code"] == ExitCode.USAGE


def test_record_refuses_to_overwrite_a_file_that_is_no_recording(tmp_path: Path) -> None:
    """`--record FILE` on a user's file: refused in one line (exit 2) before anything
    runs, the file kept as it was (undo could not bring it back: snapshots leave the
    recording out); an earlier recording is rewritten."""
    work = folder(tmp_path / "work")
    notes = work / "notes.txt"
    notes.write_text("my notes\n")
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    refused = run_cli([*flags, "--record", str(notes), "fix @main.py"], cwd=work)
    assert refused.returncode == ExitCode.USAGE
    assert refused.stderr.strip().splitlines() == [
        f"codur: error: --record {notes}: the file exists and is not a Codur recording; "
        "it is not overwritten (name a new file)"
    ]
    assert notes.read_text() == "my notes\n" and (work / "main.py").read_text() == BUGGY
    assert not debug_log(work).exists()  # nothing ran
    nowhere = tmp_path / "no" / "such" / "run.jsonl"  # folders are not made for it
    missing = run_cli([*flags, "--record", str(nowhere), "fix @main.py"], cwd=work)
    assert missing.returncode == ExitCode.USAGE and not (tmp_path / "no").exists()
    assert missing.stderr.strip().splitlines() == [
        f"codur: error: --record {nowhere}: {nowhere.parent} is not a folder"
    ]

    recording = tmp_path / "run.jsonl"
    for attempt in range(2):  # the second run rewrites the first one's recording
        again = folder(tmp_path / f"again{attempt}")
        done = run_cli([*flags, "--record", str(recording), "fix @main.py"], cwd=again)
        assert done.returncode == 0, done.stderr
        assert [line["n"] for line in lines(recording) if line["kind"] == "call"] == [1]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"kind": "call", "n": 1}, "a call line without `key`, `request`, `response`"),
        (
            {"kind": "call", "key": "k", "request": {}, "response": {"tool_calls": [{}]}},
            "a call line whose tool calls lack a `name` or `args`",
        ),
        ({"kind": "tokens", "key": "k", "tokens": "many"}, "a tokens line without `tokens`"),
    ],
)
def test_a_recording_line_missing_what_a_replay_reads_is_a_usage_error(
    tmp_path: Path, line: dict, said: str
) -> None:
    """A call line without its key or response failed as a Codur bug (exit 4, KeyError,
    after four retries) rather than as a file that is no recording."""
    work = folder(tmp_path / "work")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"kind": "header", "format": 1}) + "\n" + json.dumps(line) + "\n")
    result = run_cli([*replaying("s"), "--replay", str(bad), "fix @main.py"], cwd=work)
    assert result.returncode == ExitCode.USAGE, result.stderr
    [shown] = result.stderr.strip().splitlines()
    assert shown == f"codur: error: {bad}:2: not a recording line ({said})"
