"""`codur runs` and its alias `codur undo --list` through the real process: one list (undos
included), `--json`, run ids whole at 80 columns on a terminal, and no LangChain or
LangGraph loaded to list them; `--json` of `codur profiles` and `codur config show`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, ROOT, buggy_folder, run_cli, scripted_profile, whole_file
from terminal import Terminal

HEAVY = ("langchain", "langgraph", "openai", "llama_cpp")
"""Packages listing must not import (they took `codur runs` 2-3 s)."""


def imported(args: list[str], cwd: Path) -> list[str]:
    """The modules `codur ARGS` imported (python -X importtime)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "codur", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    return [line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line]


@pytest.mark.slow
def test_runs_is_one_list_with_undo_list_as_json_and_ids_whole(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    fixed = run_cli([*flags, "--json", "fix @main.py"], work)
    assert fixed.returncode == 0, fixed.stderr
    fix_id = json.loads(fixed.stdout.splitlines()[0])["run_id"]
    assert run_cli(["undo"], work).returncode == 0 and (work / "main.py").read_text() == BUGGY

    listed = run_cli(["runs", "--json"], work)
    assert listed.returncode == 0, listed.stderr
    undo_run, fix_run = json.loads(listed.stdout)  # newest first, the undo included
    assert fix_run["run_id"] == fix_id and fix_run["task"] == "fix @main.py"
    assert fix_run["status"] == "verified" and fix_run["changed"] == ["main.py"]
    assert fix_run["model_calls"] == 1 and fix_run["undone_by"] == undo_run["run_id"]
    assert undo_run["undo_of"] == fix_id and undo_run["resume"] is None
    alias = run_cli(["undo", "--list", "--json"], work)
    assert alias.returncode == 0 and alias.stdout == listed.stdout
    table, alias_table = run_cli(["runs"], work), run_cli(["undo", "--list"], work)
    assert table.stdout == alias_table.stdout and "undone by" in table.stdout

    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "TERM": "xterm"}
    term = Terminal(["runs"], work, env, columns=80)
    term.expect("undone by")
    assert term.close() == 0
    for run_id in (fix_id, undo_run["run_id"]):  # its row, and the other's note
        ends = term.screen.count(run_id[-6:])  # a folded id ends on a line of its own
        assert ends == term.screen.count(run_id) >= 2, term.screen
    alone = run_cli(["undo", "--json"], work)
    assert alone.returncode == 2 and "--json goes with --list" in alone.stderr

    for args in (["runs"], ["runs", "--json"], ["undo", "--list"]):
        heavy = [m for m in imported(args, work) if m.startswith(HEAVY)]
        assert heavy == [], (args, heavy)


def test_an_empty_folder_lists_no_runs_as_json(tmp_path: Path) -> None:
    done = run_cli(["runs", "--json"], tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout) == []


def test_profiles_and_config_show_as_json(tmp_path: Path) -> None:
    env = {"GROQ_API_KEY": "gsk-secret-123456"}
    flags = ["-o", "llm.default_profile=groq"]
    profiles = run_cli([*flags, "profiles", "--json"], tmp_path, env=env)
    assert profiles.returncode == 0, profiles.stderr
    groq = next(p for p in json.loads(profiles.stdout) if p["name"] == "groq")
    assert groq["default"] is True and groq["api_key_env"] == "GROQ_API_KEY"
    assert groq["api_key_set"] is True and "gsk-secret" not in profiles.stdout
    shown = run_cli([*flags, "config", "show", "--json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    config = json.loads(shown.stdout)
    assert config["config"]["llm"]["default_profile"] == "groq"
    assert config["sources"]["llm.default_profile"] == "-o llm.default_profile"
    assert config["project_python"]["path"]


def test_a_run_still_running_is_not_said_to_be_stopped(tmp_path: Path) -> None:
    """A live run has no end snapshot yet: its note was "no end snapshot (Codur was
    stopped)" beside its `running` status (a docs probe); only a killed one says so."""
    from codur.resume.listing import _note, status
    from codur.undo.records import RunRecord

    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "codur"])
    cmdline = Path(f"/proc/{live.pid}/cmdline")
    for _ in range(500):  # until its exec shows (a process starting may still show ours)
        if not cmdline.exists() or b"codur" in cmdline.read_bytes():
            break
        time.sleep(0.01)
    try:
        record = RunRecord("r1", str(tmp_path), "files", "fix it", "2026-11-30", "s0", pid=live.pid)
        assert (status(record), _note(record)) == ("running", "")
    finally:
        live.kill()
        live.wait()
    assert (status(record), _note(record)) == ("killed", "no end snapshot (Codur was stopped)")


def test_a_killed_run_whose_pid_another_codur_took_is_still_killed(tmp_path: Path) -> None:
    """A probe's find: a killed run showed as `running` (and could not be resumed) once
    another Codur process got its pid. A running run holds its folder's run lock, its pid
    written there: a record whose process does not hold it is a killed run."""
    from codur.resume.listing import status
    from codur.undo.records import RunRecord
    from codur.workspace import hold_workspace

    root = tmp_path / "w"
    root.mkdir()
    holds = "import sys, time\nfrom pathlib import Path\nfrom codur.workspace import "
    holds += "hold_workspace\nwith hold_workspace(Path(sys.argv[1]), print):\n"
    holds += "    print('held', flush=True)\n    time.sleep(60)\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", holds, str(root), "codur"]
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "codur"])
    try:
        assert run.stdout is not None and run.stdout.readline() == "held\n"
        for pid, now in ((run.pid, "running"), (other.pid, "killed")):
            record = RunRecord("r1", str(root), "files", "fix", "2026-11-30", "s0", pid=pid)
            assert status(record) == now, pid
        run.kill()
        run.wait()
        with hold_workspace(root, print):  # held by another (`codur resume` reading it)
            assert status(record) == "killed"
    finally:
        for proc in (run, other):
            proc.kill()
            proc.wait()
