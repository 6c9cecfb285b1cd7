"""Your own edits made while a run goes on are yours: `codur undo` names them and keeps
them (exit code 6) unless --force, while the run's own changes (Codur's edits, what its
programs wrote) are undone as before. A real `codur` process, a real model server on
127.0.0.1 that holds its answer while the test edits the folder (the run is then
waiting on the model, as it mostly is), real files and programs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fake_servers import Hold, Reply
from faults import openai_profile
from helpers import BUGGY, WRONG, run_cli, whole_file

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

ATTEMPT = WRONG.replace(
    "    s = 0\n", "    open('out.txt', 'w').write('written by the check\\n')\n    s = 0\n"
)
"""The run's edit of main.py: still wrong (the model is asked again), and the check's
program now writes out.txt (a change of the run's, made by a program it ran)."""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.mark.parametrize("store", ["files", "git"])
def test_undo_keeps_what_you_changed_while_the_run_went_on(
    tmp_path: Path, openai_server, store: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    start = {"main.py": BUGGY, "expected.txt": "10\n", "notes.txt": "my notes\n"}
    for name, text in start.items():
        (work / name).write_text(text)
    if store == "git":
        git(work, "init", "-q")
    waiting = Hold(Reply("I cannot see what is wrong."))
    openai_server.script(Reply(whole_file("main.py", ATTEMPT)), waiting)
    flags = [*openai_profile(openai_server.base_url, timeout_s=600), "--max-llm-calls", "2"]
    run = subprocess.Popen(
        [sys.executable, "-m", "codur", *flags, "fix @main.py"],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert waiting.arrived.wait(300), "the run never asked the model again"
        # the run has written main.py and run the check; it waits on the model now
        assert (work / "main.py").read_text() == ATTEMPT
        assert (work / "out.txt").exists()
        with (work / "main.py").open("a") as fh:
            fh.write("# my own line\n")
        (work / "notes.txt").write_text("my notes, edited while the run went on\n")
        (work / "mine.txt").write_text("a file of mine, made while the run went on\n")
    finally:
        waiting.release.set()
        out, err = run.communicate(timeout=300)
    assert run.returncode not in (0, 4), out + err  # not verified, no crash
    warned = (
        "changed during the run by someone other than it (not Codur's edits nor the "
        "programs it ran): main.py, mine.txt, notes.txt; codur undo keeps them unless --force"
    )
    assert warned in err, err
    ended = {p: (work / p).read_text() for p in ("main.py", "notes.txt", "mine.txt", "out.txt")}

    listed = run_cli(["undo", "--list"], cwd=work, env={"COLUMNS": "250"})
    assert "yours too: main.py, mine.txt, notes.txt" in listed.stdout, listed.stdout
    kept = run_cli(["undo"], cwd=work)
    assert kept.returncode == 6, kept.stdout + kept.stderr
    assert kept.stderr.strip().endswith(
        "changed during it by someone other than the run (not Codur's edits nor the "
        "programs it ran): main.py, mine.txt, notes.txt (codur undo --force overwrites them)"
    ), kept.stderr
    assert "out.txt" not in kept.stderr  # the check's program wrote it: the run's
    assert {p: (work / p).read_text() for p in ended} == ended  # nothing was touched

    forced = run_cli(["undo", "--force"], cwd=work)
    assert forced.returncode == 0, forced.stdout + forced.stderr
    assert {p: (work / p).read_text() for p in start} == start
    assert not (work / "out.txt").exists() and not (work / "mine.txt").exists()
