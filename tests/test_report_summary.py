"""The run's summary: what the undo line counts beyond the edits is named, so it does not
read as a contradiction of `files changed:` (a docs probe saw `files changed: none` then
`1 file(s) changed`: an empty `.benchmarks` folder a pytest plugin made)."""

from __future__ import annotations

from pathlib import Path

from codur.config.sections import DisplayConfig
from codur.report import report
from codur.result import RunResult
from codur.ui import IO


def summary(capsys, result: RunResult, tmp_path: Path) -> list[str]:
    report(IO(), result, None, DisplayConfig(), tmp_path)
    return capsys.readouterr().out.splitlines()


def test_files_changed_besides_the_edits_are_named(capsys, tmp_path: Path) -> None:
    result = RunResult(
        "verified", "ok", files_changed=["calc.py"], run_id="r1",
        run_changes=[".benchmarks", "calc.py", "out/a.txt", "out/b.txt", "out/c.txt"],
    )  # fmt: skip
    (line,) = [s for s in summary(capsys, result, tmp_path) if s.startswith("run r1:")]
    assert line.startswith(
        "run r1: 5 file(s) changed (.benchmarks, out/a.txt, out/b.txt and 1 more: not by an "
        "edit) | undo: codur undo"
    )


def test_only_the_edits_changed_says_so_plainly(capsys, tmp_path: Path) -> None:
    result = RunResult(
        "verified", "ok", files_changed=["calc.py"], run_id="r1", run_changes=["calc.py"]
    )
    (line,) = [s for s in summary(capsys, result, tmp_path) if s.startswith("run r1:")]
    assert line.startswith("run r1: 1 file(s) changed | undo: codur undo")


def test_changes_left_by_a_run_that_did_not_pass_are_said_to_be_kept(
    capsys, tmp_path: Path, monkeypatch
) -> None:
    """A run stopped at its limit left a failing edit in calc.py; the summary offered undo
    without saying the change stays though it fails (a probe's report)."""
    monkeypatch.chdir(tmp_path)  # the run's folder: no -C
    result = RunResult(
        "limit", "max iterations", files_changed=["calc.py"], run_id="r1", run_changes=["calc.py"]
    )
    (line,) = [s for s in summary(capsys, result, tmp_path) if s.startswith("run r1:")]
    assert line.startswith(
        "run r1: 1 file(s) changed, kept (not verified) | see: codur diff | undo: codur undo"
    )
