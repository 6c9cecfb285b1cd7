"""The challenges in the repo are sound, and the runner judges runs itself (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import ROOT, run_cli, scripted_profile, whole_file

from codur.challenges.judge import check
from codur.challenges.spec import discover


@pytest.mark.parametrize("challenge", discover([ROOT / "challenges"]), ids=lambda c: c.name)
def test_repo_challenge_is_sound(challenge) -> None:  # noqa: ANN001 - pytest param
    result = check(challenge)
    assert result.buggy_fails, "the buggy program already gives the expected result"
    assert result.solution_passes, "the reference solution does not give the expected result"


def make(
    root: Path, name: str, files: dict[str, str], entry: str = "main.py", timeout_s: float = 5
) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    for path, text in files.items():
        (folder / path).write_text(text)
    (folder / "prompt.txt").write_text(f"fix @{entry}\n")
    (folder / "challenge.yaml").write_text(
        f"entry: [python, {entry}]\nexpected: expected.txt\ntimeout_s: {timeout_s}\ntags: [test]\n"
    )


def test_runner_judges_pass_fail_timeout_and_crash(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    make(root, "b_wrong_fix", {"main.py": "print(8)\n", "expected.txt": "11\n"})
    make(
        root,
        "c_timeout",
        {"loop.py": "while True:\n    pass\n", "expected.txt": "10\n"},
        entry="loop.py",
        timeout_s=1,
    )
    make(
        root,
        "d_crash",
        {"boom.py": "raise SystemExit('boom')\n", "expected.txt": "10\n"},
        entry="boom.py",
    )
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    out = tmp_path / "out"
    result = run_cli(
        [
            "challenges",
            "run",
            str(root),
            *flags,
            "--max-iterations",
            "1",
            "--jobs",
            "2",
            "-o",
            "verify.timeout_s=1",
            "--out",
            str(out),
        ],
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads((out / "report.json").read_text())
    by_name = {c["name"]: c for c in report["challenges"]}
    assert by_name["a_pass"]["passed"] and by_name["a_pass"]["status"] == "verified"
    assert by_name["a_pass"]["model_calls"] == 1 and "+print(10)" in by_name["a_pass"]["diff"]
    assert not by_name["b_wrong_fix"]["passed"]
    assert not by_name["c_timeout"]["passed"] and not by_name["d_crash"]["passed"]
    assert report["summary"]["passed"] == 1 and report["summary"]["total"] == 4
    assert Path(by_name["a_pass"]["log"]).is_file()
    assert "| a_pass | pass | verified |" in (out / "report.md").read_text()
    assert (root / "a_pass" / "main.py").read_text() == "print(9)\n"  # never modified
    assert "passed 1/4" in result.stdout


def test_check_reports_an_unsound_challenge(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    make(root, "no_bug", {"main.py": "print(10)\n", "expected.txt": "10\n"})
    (root / "no_bug" / "solution").mkdir()
    (root / "no_bug" / "solution" / "main.py").write_text("print(10)\n")
    result = run_cli(["challenges", "check", str(root)], cwd=tmp_path)
    assert result.returncode == 1 and "0/1 challenges are sound" in result.stdout
