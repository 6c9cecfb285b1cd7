"""Resumable runs: a real `codur` process is killed (SIGKILL) mid-run, or loses its model,
and `codur resume` takes it to the end an uninterrupted run reaches; `codur runs` lists
the runs. Real processes, real files; the model is the scripted one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers import BUGGY, FIXED, ROOT, WRONG, debug_log, run_cli, scripted_profile, whole_file

from codur.errors import ExitCode
from codur.workspace import hold_workspace

HOLD = (
    "    import os, time\n"
    "    if os.environ.get('HOLD_FOR_CODUR_TEST'):  # held until Codur is gone\n"
    "        parent = os.getppid()\n"
    "        while os.getppid() == parent:\n"
    "            time.sleep(0.05)\n"
)
HELD_WRONG = WRONG.replace("    s = 0\n", HOLD + "    s = 0\n", 1)
"""The model's first (wrong) edit: run with the variable set, it waits for Codur to die."""


def folder(root: Path) -> Path:
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    return root


def records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def keys(recording: Path) -> list[str]:
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    return [line["key"] for line in lines if line["kind"] == "call"]


def wait_for(condition, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def checking_first_edit(work: Path) -> bool:
    """The debug log shows the check of the model's first edit under way."""
    log = debug_log(work)
    if not log.is_file():
        return False
    seen_reply = False
    for line in log.read_text().splitlines():
        if not line.endswith("}"):
            continue  # being written
        event = json.loads(line)
        seen_reply = seen_reply or event["event"] == "model.response"
        if seen_reply and event["event"] == "node.start" and event["node"] == "verify":
            return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_stopped_run_resumes_to_the_end_an_uninterrupted_run_reaches(
    tmp_path: Path, signum: int
) -> None:
    """Killed (SIGKILL: no cleanup, no end record) or stopped (SIGTERM: cleaned up like
    Ctrl-C, status interrupted) while the check of the model's first edit runs."""
    flags = scripted_profile(
        tmp_path, [whole_file("main.py", HELD_WRONG), whole_file("main.py", FIXED)]
    )
    # the reference: the same task, never interrupted (the variable unset: nothing waits)
    ref = folder(tmp_path / "ref")
    done = run_cli([*flags, "--record", str(tmp_path / "ref.jsonl"), "fix @main.py"], cwd=ref)
    assert done.returncode == 0, done.stdout + done.stderr
    # the same run, stopped while the check of the model's first edit runs
    work = folder(tmp_path / "work")
    recording = tmp_path / "work.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOLD_FOR_CODUR_TEST": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "codur", *flags, "--record", str(recording), "fix @main.py"],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: checking_first_edit(work))
    finally:
        proc.send_signal(signum)
        proc.wait(timeout=60)
    run_id = records(work)[0]["run"]
    if signum == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        assert records(work)[-1]["event"] != "run.end"  # no end: it was killed
        stopped = "killed"
    else:
        assert proc.returncode == ExitCode.TERMINATED
        assert records(work)[-1]["event"] == "run.end"
        stopped = records(work)[-1]["status"]
        assert stopped == "interrupted"
    listing = run_cli(["runs"], cwd=work)
    assert listing.returncode == 0
    row = next(line for line in listing.stdout.splitlines() if run_id in line)
    cells = [cell.strip() for cell in row.split("│")]
    assert cells[2] == stopped and cells[3] == "fix @main.py"
    assert cells[6] == f"codur resume {run_id}"
    made = sum(1 for r in records(work) if r["event"] == "model.response")
    assert cells[4] == str(made)  # model calls (a killed run's from its checkpoint)

    resumed = run_cli(["resume"], cwd=work)  # the latest interrupted run of the folder
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming run {run_id} ({stopped})" in resumed.stdout
    assert (work / "main.py").read_text() == (ref / "main.py").read_text() == FIXED
    log = records(work)
    start = next(r for r in log if r["event"] == "run.resume")
    before = [r for r in log[: log.index(start)] if r["event"] == "model.response"]
    assert start["run"] == run_id and start["model_calls"] == len(before)  # none made again
    if signum == signal.SIGKILL:  # held in the check: it goes on with that check
        assert start["next"] == ["verify"] and start["model_calls"] == 1
    ends = [records(ref)[-1], records(work)[-1]]
    assert [e["event"] for e in ends] == ["run.end", "run.end"]
    for field in ("status", "check", "model_calls", "iterations", "files_changed", "diff"):
        assert ends[0][field] == ends[1][field], field
    assert ends[1]["status"] == "verified" and ends[1]["model_calls"] == 2
    # the resumed run asked the model exactly what the uninterrupted run did
    assert keys(recording) == keys(tmp_path / "ref.jsonl") and len(keys(recording)) == 2

    again = run_cli(["resume", run_id], cwd=work)
    assert again.returncode == 0
    assert f"run {run_id} has ended (verified" in again.stdout
    listing = run_cli(["runs"], cwd=work)
    row = next(line for line in listing.stdout.splitlines() if run_id in line)
    assert "verified" in row and stopped not in row and "codur resume" not in row


@pytest.mark.slow
def test_a_run_whose_model_went_away_resumes_once_it_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The model fails (the script runs out: a fatal model error, exit code 3) after the
    first attempt; the checkpoints keep the run, and resume goes on from the failed step."""
    from codur.graph.build import build_graph
    from codur.graph.checkpoint import last_checkpoint, open_saver, serializer, thread
    from codur.graph.outcome import Outcome
    from codur.models.usage import Spent, total
    from codur.scope import EditScope
    from codur.verify.evidence import Evidence
    from codur.verify.result import VerificationResult

    work = folder(tmp_path / "work")
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG)])
    gone = run_cli([*flags, "fix @main.py"], cwd=work)
    assert gone.returncode == ExitCode.MODEL_UNREACHABLE, gone.stdout + gone.stderr
    run_id = records(work)[0]["run"]

    # the checkpoints, read back from the SQLite file: typed values, as they were
    saved = last_checkpoint(work, run_id)
    assert saved is not None and saved.next == ("execute",)  # the second attempt's
    with open_saver(work) as saver:
        history = list(build_graph(saver).get_state_history(thread(run_id)))
    reviewed = next(h.values for h in history if h.next == ("review",))  # after 1st attempt
    assert isinstance(reviewed["outcome"], Outcome) and reviewed["outcome"].kind == "edited"
    assert reviewed["outcome"].files_changed == ("main.py",)
    serde = serializer()  # a value revived and saved again comes back the same
    assert serde.loads_typed(serde.dumps_typed(reviewed)) == reviewed
    values = saved.values
    assert values["attempts"][0]["outcome"] == "failed"
    verdict = values["verification"]
    assert isinstance(verdict, VerificationResult) and not verdict.passed
    assert verdict.strategy == "output" and isinstance(verdict.evidence[0], Evidence)
    assert all(isinstance(spent, Spent) for spent in values["usage"].values())
    assert total(values["usage"]).calls == 1
    scope = values["scope"]  # decided once, at the start: the checkpoint holds it whole
    assert isinstance(scope, EditScope) and "ledger" not in values
    assert values["written"] == {"main.py": True} and scope.targets == ("main.py",)
    assert scope.oracle == {"expected.txt": b"10\n"}
    # every type in the state is known to the serde: nothing was blocked or guessed
    assert not [r for r in caplog.records if r.name.startswith("langgraph")]
    assert "langgraph" not in gone.stderr

    # a run recorded by another Codur version (a setting it knew that this one does not)
    from codur.undo import state_root
    from codur.undo.records import History

    record_file = History(state_root(), work).folder / f"{run_id}.json"
    kept = record_file.read_text()
    data = json.loads(kept)
    data["config"]["llm"]["retired_setting"] = 1
    record_file.write_text(json.dumps(data))
    older = run_cli(["resume", run_id], cwd=work)
    assert older.returncode == ExitCode.USAGE, older.stdout + older.stderr
    assert older.stderr.strip().splitlines() == [
        f"codur: error: run {run_id} was recorded by another Codur version "
        "(llm.retired_setting: Extra inputs are not permitted): start it again"
    ]
    record_file.write_text(kept)

    # another `codur resume` of the run under way (the folder held): one line, exit 9
    with hold_workspace(work, print):
        twice = run_cli(["resume", run_id], cwd=work)
    assert twice.returncode == ExitCode.BUSY, twice.stdout + twice.stderr
    [line] = twice.stderr.strip().splitlines()
    assert line.startswith(f"codur: error: {work} is busy: another Codur run (process ")

    # a file the user wrote after the run stopped: a resume would make it the run's own
    (work / "notes.txt").write_text("my work\n")
    taken = run_cli(["resume", run_id], cwd=work)
    assert taken.returncode == ExitCode.USAGE, taken.stdout + taken.stderr
    assert f"run {run_id}: changed since it stopped: notes.txt;" in taken.stderr
    (work / "notes.txt").unlink()

    script = Path(next(f.split("=", 1)[1] for f in flags if f.startswith("llm.profiles.s.script")))
    script.write_text(yaml.safe_dump([whole_file("main.py", WRONG), whole_file("main.py", FIXED)]))
    resumed = run_cli(["resume", run_id[-6:]], cwd=work)  # the id's end names it too
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert (work / "main.py").read_text() == FIXED
    end = records(work)[-1]
    assert end["status"] == "verified" and end["model_calls"] == 2 and end["iterations"] == 2
    assert last_checkpoint(work, run_id) is None  # it ended: its checkpoints are gone


@pytest.mark.slow
def test_resume_of_an_unknown_run_or_with_nothing_to_resume(tmp_path: Path) -> None:
    unknown = run_cli(["resume", "20200101T000000-abcdef"], cwd=tmp_path)
    assert unknown.returncode == ExitCode.USAGE
    assert unknown.stderr.strip().splitlines() == [
        f"codur: error: 20200101T000000-abcdef: no such run in {tmp_path} (see codur runs)"
    ]
    nothing = run_cli(["resume"], cwd=tmp_path)
    assert nothing.returncode == ExitCode.USAGE
    assert "no interrupted run to resume" in nothing.stderr
    assert run_cli(["runs"], cwd=tmp_path).stdout.startswith("no recorded runs in")


@pytest.mark.slow
def test_a_run_refused_for_bad_input_is_not_resumed_or_undone(tmp_path: Path) -> None:
    """A run that stopped on bad input (exit 2) did nothing and would be refused again:
    it was offered for resume, and resuming it took on a file the user wrote since, which
    `codur undo` then removed."""
    refused = run_cli(["fix @nothere.py", "--no-model"], cwd=tmp_path)
    assert refused.returncode == ExitCode.USAGE, refused.stderr
    (tmp_path / "notes.txt").write_text("my work\n")
    listed = run_cli(["runs"], cwd=tmp_path).stdout
    assert " refused " in listed and "codur resume" not in listed, listed
    assert "no interrupted run to resume" in run_cli(["resume"], cwd=tmp_path).stderr
    assert run_cli(["undo"], cwd=tmp_path).returncode == ExitCode.USAGE
    assert (tmp_path / "notes.txt").read_text() == "my work\n"


def test_every_checkpointed_state_type_exists() -> None:
    """STATE_TYPES names real classes (a renamed one would be silently left unrevived)."""
    import importlib

    from codur.graph.checkpoint import STATE_TYPES

    for module, name in STATE_TYPES:
        assert isinstance(getattr(importlib.import_module(module), name), type), (module, name)


@pytest.mark.slow
def test_a_checkpoint_file_held_by_another_process_stops_the_run_in_one_line(
    tmp_path: Path,
) -> None:
    """Another process holds the checkpoint file (an exclusive SQLite transaction) longer
    than runs.checkpoint_wait_s: one line naming the file and the way out, exit 4, no
    traceback; the file is its owner's only."""
    import sqlite3

    from codur.graph.checkpoint import db_path, open_saver

    work = folder(tmp_path / "work")
    with open_saver(work):
        pass  # the file exists, as after an earlier run
    path = db_path(work)
    assert path.stat().st_mode & 0o777 == 0o600
    holder = sqlite3.connect(str(path))
    holder.execute("BEGIN EXCLUSIVE")
    try:
        flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
        done = run_cli([*flags, "-o", "runs.checkpoint_wait_s=0.2", "fix @main.py"], cwd=work)
    finally:
        holder.rollback()
        holder.close()
    assert done.returncode == ExitCode.ERROR, done.stdout + done.stderr
    assert done.stderr.strip().splitlines() == [
        f"codur: error: checkpoints ({path}): database is locked "
        "(runs.checkpoints=false runs without them)"
    ]


@pytest.mark.slow
def test_a_resumed_run_killed_again_is_not_compared_with_its_first_end(tmp_path: Path) -> None:
    """Resumed, a run has no end until it ends again: killed then, its own edits made
    after the resume were taken for the user's and a second resume was refused."""
    from codur.config import CodurConfig
    from codur.events import EventBus
    from codur.undo import state_root
    from codur.undo.records import History
    from codur.undo.snapshot import reopen
    from codur.workspace import Workspace

    work = folder(tmp_path / "work")
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG)])
    assert run_cli([*flags, "fix @main.py"], cwd=work).returncode == ExitCode.MODEL_UNREACHABLE
    run_id = records(work)[0]["run"]
    history = History(state_root(), work)
    record = history.find(run_id, every=True)
    assert record.end and record.status == "error"
    reopen(Workspace(work), CodurConfig.model_validate(record.config), record, EventBus())
    record = history.find(run_id, every=True)
    assert (record.status, record.end, record.ended) == ("running", "", "")
    (work / "main.py").write_text(BUGGY + "\n")  # the resumed run's own edit; then killed
    record.pid = 2**22 + 1  # past Linux's pid_max: no such process
    history.save(record)
    script = Path(next(f.split("=", 1)[1] for f in flags if f.startswith("llm.profiles.s.script")))
    script.write_text(yaml.safe_dump([whole_file("main.py", WRONG), whole_file("main.py", FIXED)]))
    resumed = run_cli(["resume", run_id], cwd=work)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming run {run_id} (killed)" in resumed.stdout
    assert (work / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_a_run_stopped_after_widening_its_scope_resumes_with_the_widening_and_its_calls(
    tmp_path: Path,
) -> None:
    """The check's traceback ends in a file the task did not name (the scope widens to
    it), then the model goes away; the resumed run may edit that file, and counts the
    calls of both processes."""
    from test_graph import PLAN

    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text("from helper import half\n\nprint(half(10))\n")
    (work / "helper.py").write_text("def half(x):\n    return x / zero\n")
    (work / "expected.txt").write_text("5.0\n")
    flags = scripted_profile(tmp_path, [PLAN])
    gone = run_cli([*flags, "fix @main.py"], cwd=work)
    assert gone.returncode == ExitCode.MODEL_UNREACHABLE, gone.stdout + gone.stderr
    first = records(work)
    assert [r["path"] for r in first if r["event"] == "scope.widen"] == ["helper.py"]
    run_id = first[0]["run"]

    fixed = "def half(x):\n    return x / 2\n"
    script = Path(next(f.split("=", 1)[1] for f in flags if f.startswith("llm.profiles.s.script")))
    script.write_text(yaml.safe_dump([PLAN, whole_file("helper.py", fixed)]))
    resumed = run_cli(["resume", run_id], cwd=work)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert (work / "helper.py").read_text() == fixed
    after = records(work)[len(first) :]
    assert not [r for r in after if r["event"] == "scope.refused"]
    end = after[-1]
    assert end["status"] == "verified" and end["model_calls"] == 2, end


@pytest.mark.slow
def test_a_checkpoint_from_an_older_codur_is_refused_in_one_line(tmp_path: Path) -> None:
    """A run checkpointed by a Codur whose edit scope this one cannot read (it comes back
    as a plain dict) is not resumed half-blind: one line says so and how to start again,
    exit code 2, nothing changed."""
    import sqlite3

    from codur.graph.checkpoint import db_path, serializer

    work = folder(tmp_path / "work")
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG)])
    gone = run_cli([*flags, "fix @main.py"], cwd=work)
    assert gone.returncode == ExitCode.MODEL_UNREACHABLE, gone.stdout + gone.stderr
    run_id = records(work)[0]["run"]
    serde = serializer()
    with sqlite3.connect(db_path(work)) as db:  # the scope as an older Codur wrote it
        rows = db.execute("SELECT rowid, type, value FROM writes WHERE channel = 'scope'")
        for rowid, kind, value in rows.fetchall():
            old = {"targets": ["main.py"], "oracle": {}, "model_test": None}
            kind, value = serde.dumps_typed(old)
            db.execute(
                "UPDATE writes SET type = ?, value = ? WHERE rowid = ?", (kind, value, rowid)
            )
        rows = db.execute("SELECT rowid, type, checkpoint FROM checkpoints").fetchall()
        for rowid, kind, blob in rows:
            checkpoint = serde.loads_typed((kind, blob))
            if "scope" in checkpoint.get("channel_values", {}):
                checkpoint["channel_values"]["scope"] = {"targets": ["main.py"], "oracle": {}}
                kind, blob = serde.dumps_typed(checkpoint)
                db.execute(
                    "UPDATE checkpoints SET type = ?, checkpoint = ? WHERE rowid = ?",
                    (kind, blob, rowid),
                )
    before = (work / "main.py").read_text()

    again = run_cli(["resume", run_id], cwd=work)

    assert again.returncode == ExitCode.USAGE, again.stdout + again.stderr
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and "older Codur" in lines[0] and f"codur undo {run_id}" in lines[0]
    assert "Traceback" not in again.stdout + again.stderr
    assert (work / "main.py").read_text() == before


@pytest.mark.slow
def test_resuming_a_refused_run_exits_with_its_code(tmp_path: Path) -> None:
    """A run refused before anything ran (exit 2): `codur resume ID` says it has ended and
    exits 2 as the run did, not 0 (a docs probe)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(BUGGY)
    refused = run_cli(["--no-model", "fix @nosuch.py"], cwd=work)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    run_id = next(r["run"] for r in records(work) if r["event"] == "run.start")
    again = run_cli(["resume", run_id], cwd=work)
    assert again.returncode == 2, again.stdout + again.stderr
    assert f"run {run_id} has ended (refused" in again.stdout


@pytest.mark.slow
def test_a_run_stopped_for_an_approval_goes_on_with_resume_yes(tmp_path: Path) -> None:
    """No terminal to ask: the run stops (exit 5); `codur resume` alone stops again, and
    `codur resume --yes` (or --approval full-auto) gives the approval and finishes it.
    A bad --approval is a usage error."""
    root = tmp_path / "work"
    root.mkdir()
    (root / "t.py").write_text("print('ran')\n")
    stopped = run_cli(["--no-model", "run `python t.py`"], root)
    assert stopped.returncode == ExitCode.APPROVAL_NEEDED, stopped.stdout + stopped.stderr
    again = run_cli(["resume"], root)
    assert again.returncode == ExitCode.APPROVAL_NEEDED, again.stdout + again.stderr
    bad = run_cli(["resume", "--approval", "bogus"], root)
    assert bad.returncode == ExitCode.USAGE and "--approval bogus" in bad.stderr
    done = run_cli(["resume", "--yes"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ran" in done.stdout and "exited with 0" in done.stdout
