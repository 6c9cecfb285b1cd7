"""`codur undo`, `codur undo --list / --run / --force` and `codur diff` outside git: the
real CLI on real folders, the content-addressed copy in the (test's) user state folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    BUGGY,
    CLEANUP,
    FIXED,
    debug_log,
    run_cli,
    scripted_profile,
    tool_calls,
    whole_file,
)

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


def fix(work: Path, tmp_path: Path, replies: list, *extra: str) -> str:
    """Run `fix @main.py` with scripted replies; the run id from the summary."""
    run = run_cli([*scripted_profile(tmp_path, replies), *extra, "fix @main.py"], cwd=work)
    assert run.returncode == 0, run.stdout + run.stderr
    line = r"^run (\S+): \d+ file\(s\) changed( \([^)]*: not by an edit\))? \| undo: codur undo$"
    found = re.search(line, run.stdout, re.M)
    assert found, run.stdout
    return found.group(1)


def test_undo_puts_back_what_a_program_deleted_and_refuses_to_clobber(
    work: Path, tmp_path: Path
) -> None:
    write_and_run = tool_calls(
        ("write_file", {"path": "cleanup.py", "content": CLEANUP}),
        ("run_python_file", {"path": "cleanup.py"}),
    )
    run_id = fix(work, tmp_path, [write_and_run, whole_file("main.py", FIXED)], "--yes")
    assert not (work / "data.csv").exists() and (work / "main.py").read_text() == FIXED
    (work / "main.py").write_text(FIXED + "# the user's own line\n")

    refused = run_cli(["undo"], cwd=work)
    assert refused.returncode == 6
    assert refused.stderr.strip() == (
        f"codur: error: not undoing run {run_id}: changed since it ended: main.py "
        "(codur undo --force overwrites them)"
    )
    assert not (work / "data.csv").exists()  # nothing was touched
    named = run_cli(["undo", "--run", run_id], cwd=work)  # the way past it names the run
    assert named.returncode == 6 and named.stderr.strip().endswith(
        f"(codur undo --run {run_id} --force overwrites them)"
    ), named.stderr

    forced = run_cli(["undo", "--force"], cwd=work)
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert (work / "main.py").read_text() == BUGGY
    assert (work / "data.csv").read_text() == "a,b\n1,2\n"
    assert not (work / "cleanup.py").exists() and not (work / "out.txt").exists()
    undo_id = re.search(r"codur undo --run (\S+) redoes it", forced.stdout).group(1)

    again = run_cli(["undo"], cwd=work)
    assert again.returncode == 2 and "nothing to undo" in again.stderr
    twice = run_cli(["undo", "--run", run_id], cwd=work)
    assert twice.returncode == 2 and f"undone already (by {undo_id}" in twice.stderr

    redo = run_cli(["undo", "--run", undo_id], cwd=work)  # --force's victim comes back
    assert redo.returncode == 0, redo.stdout + redo.stderr
    assert (work / "main.py").read_text() == FIXED + "# the user's own line\n"
    assert not (work / "data.csv").exists()


def test_list_run_and_diff(work: Path, tmp_path: Path) -> None:
    first = fix(work, tmp_path, [whole_file("main.py", FIXED)])
    (work / "main.py").write_text(BUGGY)  # the user starts over by hand
    second = fix(work, tmp_path / "x", [whole_file("main.py", FIXED + "# second\n")])

    listed = run_cli(["undo", "--list"], cwd=work)
    assert listed.returncode == 0
    rows = [ln for ln in listed.stdout.splitlines() if ln.split()[:1] in ([first], [second])]
    assert [r.split()[0] for r in rows] == [second, first]  # newest first
    assert all("verified" in r and "fix @main.py" in r and "1: main.py" in r for r in rows)
    assert listed.stdout.index(second) < listed.stdout.index(first)

    diff = run_cli(["diff"], cwd=work)
    assert diff.returncode == 0 and f"run {second} (fix @main.py): 1 file(s)" in diff.stdout
    assert "-    for i in range(len(xs) - 1):\n+    for i in range(len(xs)):" in diff.stdout
    assert run_cli(["diff", first[-6:]], cwd=work).stdout.startswith(f"run {first}")

    older = run_cli(["undo", "--run", first], cwd=work)  # the second run changed it since
    assert older.returncode == 6 and "main.py" in older.stderr
    unknown = run_cli(["undo", "--run", "nope"], cwd=work)
    assert unknown.returncode == 2 and "--run nope: no such run" in unknown.stderr
    no_diff = run_cli(["diff", "nope"], cwd=work)  # named as given: no --run
    assert no_diff.stderr.startswith("codur: error: nope: no such run"), no_diff.stderr
    assert run_cli(["undo", "--run", second], cwd=work).returncode == 0
    assert (work / "main.py").read_text() == BUGGY


def test_codur_output_redirected_into_the_folder_is_no_change_of_the_run(
    work: Path, tmp_path: Path
) -> None:
    """`codur --json "fix @main.py" > events.jsonl` (the README's example) in the project:
    the file Codur itself writes was reported as changed by someone else, and `codur undo`
    refused ("changed since it ended: events.jsonl"); `--force` cut it to 2 lines."""
    args = [*scripted_profile(tmp_path, [whole_file("main.py", FIXED)]), "--json", "fix @main.py"]
    with (work / "events.jsonl").open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "codur", *args], cwd=work, stdout=out, stderr=subprocess.PIPE
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in (work / "events.jsonl").read_text().splitlines()]
    assert not [e for e in events if "events.jsonl" in json.dumps(e)], "reported as a change"
    lines = len(events)
    undo = run_cli(["undo"], cwd=work)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert (work / "main.py").read_text() == BUGGY
    assert len((work / "events.jsonl").read_text().splitlines()) == lines


def test_undo_is_a_command_not_a_task(work: Path) -> None:
    result = run_cli(["undo"], cwd=work)
    assert result.returncode == 2 and "nothing to undo" in result.stderr
    assert not debug_log(work).exists()  # no run started, no model asked
    elsewhere = run_cli(["-C", str(work), "undo", "--list"], cwd=work.parent)
    assert elsewhere.returncode == 0 and "no recorded runs" in elsewhere.stdout


def test_a_run_that_changes_nothing_shows_no_undo_and_keeps_no_snapshots(work: Path) -> None:
    result = run_cli(["read main.py"], cwd=work)
    assert result.returncode == 0 and "undo:" not in result.stdout
    (listed,) = json.loads(run_cli(["undo", "--list", "--json"], cwd=work).stdout)
    assert listed["task"] == "read main.py" and listed["snapshots"] is False
    assert "nothing to undo" in run_cli(["undo"], cwd=work).stderr


def test_files_over_the_size_cap_are_named_and_not_changed(work: Path) -> None:
    """A file over undo.max_snapshot_mb has no copy in the snapshot, so Codur does not
    delete it (undo could not bring it back); the warning names it."""
    (work / "big.bin").write_bytes(b"\1" * 300_000)
    time.sleep(2.1)  # older than the run by more than file times' 2 s: there before it
    cap = ["-o", "undo.max_snapshot_mb=0.1", "--yes"]
    result = run_cli([*cap, "delete big.bin"], cwd=work)
    assert result.returncode == 1 and (work / "big.bin").exists()
    warning = [ln for ln in result.stderr.splitlines() if "snapshot:" in ln]
    assert warning == [
        "codur: warning: snapshot: 1 file(s) over the 0.1 MiB cap (undo.max_snapshot_mb) "
        "not saved; undo cannot restore them: big.bin (293 KiB)"
    ]
    assert "big.bin is not in this run's snapshot" in result.stdout
    (work / "main.py").write_text("changed by the user before another run\n")
    run_cli([*cap, "delete data.csv"], cwd=work)
    undo = run_cli(["undo"], cwd=work)
    assert undo.returncode == 0 and (work / "data.csv").exists()
    first = run_cli(["undo"], cwd=work)  # the run that was refused big.bin changed nothing
    assert first.returncode == 2 and "nothing to undo" in first.stderr
    assert (work / "big.bin").read_bytes() == b"\1" * 300_000


def test_a_file_name_that_is_no_utf8_is_logged_recorded_and_undone(tmp_path: Path) -> None:
    """A program making a file whose name is no UTF-8 (a surrogate escape in Python):
    the run ends and logs (it died with exit 4 writing the debug log), its record stays
    readable (pydantic's JSON parser refused `\\udcff`), and undo removes the file."""
    work = tmp_path / "work"
    work.mkdir()
    maker = "import os\nopen(os.fsdecode(b'out\\xff.txt'), 'w').write('x')\n"
    (work / "main.py").write_text(maker + BUGGY)
    (work / "expected.txt").write_text("10\n")
    reply = whole_file("main.py", maker + FIXED)
    odd_output = {"errors": "surrogateescape"}  # the name is printed as its bytes
    run = run_cli([*scripted_profile(tmp_path, [reply]), "fix @main.py"], cwd=work, **odd_output)
    assert run.returncode == 0 and "verified" in run.stdout, run.stdout + run.stderr
    odd = work / os.fsdecode(b"out\xff.txt")
    assert odd.exists() and '"event": "run.end"' in debug_log(work).read_text()
    listed = run_cli(["undo", "--list"], cwd=work, **odd_output)
    assert "unreadable" not in listed.stderr and "fix @main.py" in listed.stdout, listed.stderr
    undo = run_cli(["undo"], cwd=work, **odd_output)
    assert undo.returncode == 0 and not odd.exists(), undo.stdout + undo.stderr
    assert (work / "main.py").read_text() == maker + BUGGY


@pytest.mark.parametrize("store", ["files", "git"])
def test_undo_makes_again_an_empty_folder_a_program_deleted(
    work: Path, tmp_path: Path, store: str
) -> None:
    if store == "git":
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "logs/old").mkdir(parents=True)
    (work / "data").mkdir()
    (work / "data/keep.txt").write_text("kept\n")
    program = "import os\nos.rmdir('logs/old')\nos.rmdir('logs')\nos.remove('data/keep.txt')\n"
    write_and_run = tool_calls(
        ("write_file", {"path": "tidy.py", "content": program}),
        ("run_python_file", {"path": "tidy.py"}),
    )
    fix(work, tmp_path, [write_and_run, whole_file("main.py", FIXED)], "--yes")
    assert not (work / "logs").exists() and not (work / "data/keep.txt").exists()
    undo = run_cli(["undo"], cwd=work)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert (work / "logs/old").is_dir() and not any((work / "logs/old").iterdir())
    assert (work / "data/keep.txt").read_text() == "kept\n"
    assert not (work / "tidy.py").exists() and (work / "main.py").read_text() == BUGGY


def test_diff_passes_over_a_run_killed_before_it_changed_anything(work: Path) -> None:
    """`codur diff` showed such a run as "0 file(s) changed", where undo passes it over."""
    done = run_cli(["--yes", "--no-model", "fix @main.py"], cwd=work)  # the run to show
    assert done.returncode == 0, done.stdout + done.stderr
    (work / "main.py").write_text("import time\ntime.sleep(60)\n")  # the next run hangs
    started = debug_log(work).read_text().count('"program.start"')
    argv = [sys.executable, "-m", "codur", "--yes", "--no-model", "fix @main.py"]
    hung = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while debug_log(work).read_text().count('"program.start"') == started:
            assert time.monotonic() < deadline, "the run's check never started"
            time.sleep(0.2)  # killed once its check runs: its record made, nothing changed
    finally:
        hung.kill()
        hung.wait()
    shown = run_cli(["diff"], cwd=work)
    assert shown.returncode == 0, shown.stderr
    assert "1 file(s) changed" in shown.stdout and "--- a/main.py" in shown.stdout, shown.stdout
