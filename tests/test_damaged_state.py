"""Codur's own files as a crash, another tool or a hand edit can leave them: run records
and memory files of the wrong shape, or nested deeper than Python's JSON parser can go.
A command names the damage in one line and goes on (or stops with its documented exit
code); never an internal error. Real `codur` processes, a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, run_cli, scripted_profile, whole_file

from codur.config.trust import store_file
from codur.memory.store import project_file
from codur.undo import state_root
from codur.undo.commands import SHOWN
from codur.undo.records import History

DEEP = "[" * 100_000 + "]" * 100_000
"""Valid JSON that `json.loads` cannot parse: RecursionError, not ValueError."""


def fixed_once(tmp_path: Path) -> tuple[Path, str]:
    """A folder where a scripted run fixed main.py: the folder and the run's id."""
    work = tmp_path / "w"
    work.mkdir()
    (work / "main.py").write_text(BUGGY)
    (work / "expected.txt").write_text("10\n")
    done = run_cli(
        [*scripted_profile(tmp_path, [whole_file("main.py", FIXED)]), "fix @main.py"], work
    )
    assert done.returncode == 0, done.stderr
    (record,) = History(state_root(), work.resolve()).runs()
    return work, record.run_id


@pytest.mark.slow
def test_damaged_run_records_are_named_and_the_good_ones_listed(tmp_path: Path) -> None:
    work, run_id = fixed_once(tmp_path)
    folder = History(state_root(), work.resolve()).folder
    good = json.loads((folder / f"{run_id}.json").read_text())
    damage = {
        "status": {"status": 5},
        "started": {"started": None},
        "when": {"started": "yesterday"},
        "changed": {"changed": "main.py"},
        "elsewhere": {"run_id": "../../elsewhere"},
    }
    for name, fields in damage.items():
        (folder / f"{name}.json").write_text(json.dumps({**good, "run_id": name, **fields}))
    (folder / "deep.json").write_text(DEEP)
    for command in (["runs"], ["undo", "--list"]):
        listed = run_cli(command, work)
        assert listed.returncode == 0, listed.stderr
        assert "internal error" not in listed.stderr
        assert "unreadable run records, ignored: " in listed.stderr
        more = len(damage) + 1 - SHOWN  # every damaged file is counted
        assert listed.stderr.endswith(f".json and {more} more\n")
        assert run_id in listed.stdout


@pytest.mark.slow
def test_memory_nested_too_deep_is_set_aside_and_the_run_goes_on(tmp_path: Path) -> None:
    work = tmp_path / "w"
    project_file(work).parent.mkdir(parents=True)
    project_file(work).write_text(DEEP)
    (work / "main.py").write_text(BUGGY)
    (work / "expected.txt").write_text("10\n")
    done = run_cli(
        [*scripted_profile(tmp_path, [whole_file("main.py", FIXED)]), "fix @main.py"], work
    )
    assert done.returncode == 0, done.stderr
    assert "unreadable memory" in done.stderr and "set aside as memory.json.bad-" in done.stderr
    (aside,) = project_file(work).parent.glob("memory.json.bad-*")
    assert aside.read_text() == DEEP


@pytest.mark.slow
def test_a_trust_store_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    store_file().parent.mkdir(parents=True)
    store_file().write_text(DEEP)
    (tmp_path / "codur.yaml").write_text("runtime:\n  max_iterations: 3\n")
    done = run_cli(["trust"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"codur: error: {store_file()}: cannot read the trusted files (remove it to start over)"
    )


def test_a_memory_file_set_aside_twice_in_one_second_keeps_both_copies(tmp_path: Path) -> None:
    from codur.memory.store import set_aside

    path = tmp_path / "memory.json"
    warned: list[str] = []
    for content in ("first {", "second {", "third {"):
        path.write_text(content)
        assert set_aside(path, "bad JSON", warned.append)
    kept = sorted(p.read_text() for p in tmp_path.glob("memory.json.bad-*"))
    assert kept == ["first {", "second {", "third {"]  # same second or not: none lost
    assert not path.exists() and len(warned) == 3
