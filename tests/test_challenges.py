"""The challenges in the repo are sound, and the runner judges runs itself (scripted model)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, run_cli, scripted_profile, whole_file

from codur.challenges.judge import check
from codur.challenges.spec import discover


@pytest.mark.slow
@pytest.mark.parametrize("challenge", discover([ROOT / "challenges"]), ids=lambda c: c.name)
def test_repo_challenge_is_sound(challenge) -> None:  # noqa: ANN001 - pytest param
    result = check(challenge)
    assert result.buggy_fails, "the buggy program already gives the expected result"
    assert result.solution_passes, "the reference solution does not give the expected result"
    assert not result.solution_violations, "the reference solution edits a protected file"


def make(
    root: Path,
    name: str,
    files: dict[str, str],
    entry: str = "main.py",
    timeout_s: float = 5,
    prompt: str | None = None,
) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    for path, text in files.items():
        (folder / path).write_text(text)
    (folder / "prompt.txt").write_text((prompt or f"fix @{entry}") + "\n")
    (folder / "challenge.yaml").write_text(
        f"entry: [python, {entry}]\nexpected: expected.txt\ntimeout_s: {timeout_s}\ntags: [test]\n"
    )


@pytest.mark.slow
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
    assert "| a_pass | - | pass | verified |" in (out / "report.md").read_text()
    assert (root / "a_pass" / "main.py").read_text() == "print(9)\n"  # never modified
    assert "passed 1/4" in result.stdout


def test_check_reports_an_unsound_challenge(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    make(root, "no_bug", {"main.py": "print(10)\n", "expected.txt": "10\n"})
    (root / "no_bug" / "solution").mkdir()
    (root / "no_bug" / "solution" / "main.py").write_text("print(10)\n")
    result = run_cli(["challenges", "check", str(root)], cwd=tmp_path)
    assert result.returncode == 1 and "0/1 challenges are sound" in result.stdout


@pytest.mark.slow
def test_check_says_when_the_python_that_would_judge_has_no_pytest(tmp_path: Path) -> None:
    """A challenge checked by pytest, and a python3 on PATH without it: that is said
    (exit 12, how to install it), not reported as an unsound challenge."""
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": ""}
    pytest_challenge = ROOT / "challenges" / "calc_median_pytest"
    result = run_cli(["challenges", "check", str(pytest_challenge)], cwd=tmp_path, env=env)
    assert result.returncode == 12, result.stdout + result.stderr
    said = f"which {venv / 'bin' / 'python3'} (python3 on PATH) does not have: install it"
    assert "calc_median_pytest's check runs pytest, " + said in result.stderr
    assert "challenges are sound" not in result.stdout


def run_challenges(tmp_path: Path, root: Path, flags: list[str], *extra: str):  # noqa: ANN201
    out = tmp_path / "out"
    result = run_cli(
        ["challenges", "run", str(root), *flags, "--max-iterations", "1", "--out", str(out)]
        + list(extra),
        cwd=tmp_path,
        timeout=300,
    )
    report = (
        json.loads((out / "report.json").read_text()) if (out / "report.json").is_file() else {}
    )
    return result, report, out


def test_a_run_that_edits_a_protected_file_fails_though_its_output_matches(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    files = {
        "main.py": "from limits import LIMIT\nprint(LIMIT)\n",
        "limits.py": "LIMIT = 9\n",
        "expected.txt": "10\n",
    }
    make(root, "a_protected", files)  # the prompt names main.py only
    make(root, "b_editable", files, prompt="fix @limits.py")
    # an agent that edits limits.py whatever it is asked (Codur itself refuses to: the
    # judge must not depend on that)
    agent = tmp_path / "agent.py"
    agent.write_text("open('limits.py', 'w').write('LIMIT = 10\\n')\n")
    command = shlex.join([sys.executable, str(agent)])
    result, report, out = run_challenges(
        tmp_path, root, [], "--jobs", "2", "--codur-command", command
    )
    assert result.returncode == 1, result.stdout + result.stderr
    protected, editable = report["challenges"]
    assert protected["output_ok"] and not protected["passed"]
    assert protected["violations"] == ["modified protected file limits.py"]
    assert protected["result"] == "FAIL (protected)"
    assert editable["passed"] and editable["violations"] == []
    assert report["summary"]["protected"] == 1 and report["summary"]["passed"] == 1
    md = (out / "report.md").read_text()
    assert "| a_protected | - | FAIL (protected) |" in md and "| b_editable | - | pass |" in md
    assert "- modified protected file limits.py" in md


def seed_of(log: Path) -> int:
    start = next(json.loads(line) for line in log.read_text().splitlines())
    assert start["event"] == "run.start"
    return start["config"]["llm"]["profiles"]["s"]["seed"]


@pytest.mark.slow
def test_seeds_run_each_challenge_once_per_seed(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    make(root, "b_fail", {"main.py": "print(8)\n", "expected.txt": "11\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    result, report, out = run_challenges(
        tmp_path, root, flags, "--seeds", "2", "--attempts", "2", "--jobs", "2"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    runs = [(c["name"], c["seed"], c["passed"], c["attempts"]) for c in report["challenges"]]
    assert runs == [
        ("a_pass", 1, True, 1),
        ("a_pass", 2, True, 1),
        ("b_fail", 1, False, 2),
        ("b_fail", 2, False, 2),
    ]
    logs = sorted((out / "logs").glob("*.log"))
    assert [log.name for log in logs] == [
        "a_pass.seed1.1.log",
        "a_pass.seed2.1.log",
        "b_fail.seed1.1.log",
        "b_fail.seed1.2.log",
        "b_fail.seed2.1.log",
        "b_fail.seed2.2.log",
    ]
    assert [seed_of(log) for log in logs] == [1, 2, 1, 1, 2, 2]  # the seed reached each run
    summary = report["summary"]
    assert summary["per_seed"] == {"1": 1, "2": 1} and summary["total"] == 4
    assert summary["passed_every_seed"] == 1 and summary["passed_any_seed"] == 1
    md = (out / "report.md").read_text()
    assert "Per seed: seed 1: 1/2, seed 2: 1/2." in md
    assert "Passed with every seed: 1/2; with at least one seed: 1/2." in md
    assert "- a_pass: 1, 2 (2/2)" in md and "- b_fail: none (0/2)" in md
    assert "| a_pass | 2 | pass |" in md


@pytest.mark.slow
def test_codur_command_runs_the_given_build(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    wrapper = tmp_path / "other_build.py"
    wrapper.write_text(
        "import json, os, sys\n"
        "memory = os.environ.get('CODUR_MEMORY__ENABLED')\n"
        f"with open({str(calls)!r}, 'a') as f:\n"
        "    f.write(json.dumps([memory, *sys.argv[1:]]) + '\\n')\n"
        "os.execv(sys.executable, [sys.executable, '-m', 'codur', *sys.argv[1:]])\n"
    )
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    command = shlex.join([sys.executable, str(wrapper)])
    result, report, _ = run_challenges(
        tmp_path, root, flags, "--codur-command", command, "--seed-list", "7"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    ((memory, *argv),) = [json.loads(line) for line in calls.read_text().splitlines()]
    assert memory == "false"  # no user preference or cached answer reaches a benchmark
    assert argv[0] == "fix @main.py" and argv[-2:] == ["-o", "llm.profiles.s.seed=7"]
    assert report["challenges"][0]["passed"] and report["challenges"][0]["seed"] == 7


def test_seeds_and_seed_list_exclude_each_other(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    result, report, _ = run_challenges(tmp_path, root, [], "--seeds", "2", "--seed-list", "3")
    assert result.returncode == 2 and "not both" in result.stderr and report == {}


@pytest.mark.slow
def test_an_interrupted_run_continues_from_its_journal(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    agent = tmp_path / "agent.py"  # an "agent" that fixes main.py and notes each call
    agent.write_text(
        "import json, sys\n"
        f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[-1]) + '\\n')\n"
        "open('main.py', 'w').write('print(10)\\n')\n"
    )
    root = tmp_path / "challenges"
    for name in ("a_one", "b_two"):
        make(root, name, {"main.py": "print(9)\n", "expected.txt": "10\n"})
    command = ["--codur-command", shlex.join([sys.executable, str(agent)])]
    result, _, out = run_challenges(tmp_path, root, [], *command, "--seed-list", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    journal = (out / "runs.jsonl").read_text().splitlines()
    (out / "runs.jsonl").write_text(journal[0] + "\n" + journal[1][:20])  # killed mid-line
    result, report, _ = run_challenges(tmp_path, root, [], *command, "--seed-list", "1,2")
    assert result.returncode == 0, result.stdout + result.stderr
    runs = [(c["name"], c["seed"], c["passed"]) for c in report["challenges"]]
    assert runs == [("a_one", 1, True), ("a_one", 2, True), ("b_two", 1, True), ("b_two", 2, True)]
    made = [json.loads(line) for line in calls.read_text().splitlines()]
    first = [m for m in made if m.endswith(".seed=1")]
    assert len(made) == 2 + 3 and len(first) == 3  # the journalled run was not made again
    other = run_challenges(tmp_path, root, [], *command, "--seed-list", "1", "--timeout", "99")
    assert other[0].returncode == 2 and "other settings" in other[0].stderr


def test_ray_without_the_extra_names_what_to_install(tmp_path: Path) -> None:
    """`import ray` fails (a package of that name that raises, first on the path): --ray
    is one line naming the extra, exit code 7, for the runner and the HumanEval bench."""
    shim = tmp_path / "shim" / "ray"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'ray'\")\n")
    env = {"PYTHONPATH": os.pathsep.join([str(shim.parent), str(ROOT)])}
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    out = tmp_path / "out"
    result = run_cli(["challenges", "run", str(root), "--ray", "--out", str(out)], tmp_path, env)
    assert result.returncode == 7, result.stdout + result.stderr
    assert result.stderr == "codur: error: --ray needs the ray package: pip install 'codur[ray]'\n"
    assert not out.exists()  # nothing ran
    bench = [sys.executable, str(ROOT / "bench" / "humaneval.py"), "--ray", "--limit", "1"]
    done = subprocess.run(bench, cwd=tmp_path, env={**os.environ, **env}, capture_output=True)
    assert done.returncode == 7
    assert done.stderr.decode().strip() == "--ray needs the ray package: pip install 'codur[ray]'"


def test_bare_ray_takes_an_address_only_when_one_follows() -> None:
    from codur.challenges.cli import bare_ray

    assert bare_ray(["run", "--ray", "challenges"]) == ["run", "--ray=local", "challenges"]
    assert bare_ray(["run", "x", "--ray"]) == ["run", "x", "--ray=local"]
    for address in ("10.0.0.5:6379", "auto", "ray://head:10001"):
        assert bare_ray(["run", "--ray", address, "x"]) == ["run", "--ray", address, "x"]
    assert bare_ray(["run", "--ray=auto"]) == ["run", "--ray=auto"]


def test_a_folder_with_no_challenge_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(["challenges", "run", str(tmp_path)], cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert result.stderr.strip() == (
        f"codur: error: {tmp_path}: no challenge folder in it (none has challenge.yaml)"
    )
