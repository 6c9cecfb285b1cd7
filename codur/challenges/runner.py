"""Run Codur on challenges, each in its own temporary copy, and judge every result."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from codur.challenges.judge import passes
from codur.challenges.spec import Challenge
from codur.verify.process import run_process

OUTPUT_LIMIT = 5_000_000


@dataclass
class Outcome:
    name: str
    passed: bool
    """Judged by re-running the challenge's entry command, not by Codur's own verdict."""
    status: str
    exit_code: int | None
    attempts: int
    wall_s: float
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    iterations: int = 0
    diff: str = ""
    log: str = ""
    error: str = ""


def _last_run_end(log: Path) -> dict:
    if not log.is_file():
        return {}
    ends = [json.loads(line) for line in log.read_text().splitlines() if '"run.end"' in line]
    return ends[-1] if ends else {}


def attempt(
    challenge: Challenge, codur_args: list[str], timeout_s: float, logs: Path, number: int
) -> Outcome:
    """One isolated run: copy, `codur PROMPT` in a subprocess, judge, keep the log."""
    with tempfile.TemporaryDirectory(prefix="codur-challenge-") as tmp:
        work = challenge.copy_to(Path(tmp))
        command = [sys.executable, "-m", "codur", challenge.prompt, *codur_args]
        start = time.perf_counter()
        result = run_process(command, work, timeout_s, OUTPUT_LIMIT)
        wall = round(time.perf_counter() - start, 2)
        end = _last_run_end(work / "codur_debug.log")
        log = logs / f"{challenge.name}.{number}.log"
        if (work / "codur_debug.log").is_file():
            shutil.copy(work / "codur_debug.log", log)
        error = "timed out" if result.timed_out else ""
        if not end and not error:
            error = (result.stderr.strip().splitlines() or ["no run.end in the debug log"])[-1]
        return Outcome(
            name=challenge.name,
            passed=passes(challenge, work),
            status=end.get("status", "timeout" if result.timed_out else "error"),
            exit_code=result.exit_code,
            attempts=number,
            wall_s=wall,
            model_calls=end.get("model_calls", 0),
            prompt_tokens=end.get("prompt_tokens", 0),
            completion_tokens=end.get("completion_tokens", 0),
            iterations=end.get("iterations", 0),
            diff=end.get("diff", ""),
            log=str(log) if log.exists() else "",
            error=error,
        )


def run_challenge(
    challenge: Challenge, codur_args: list[str], timeout_s: float, logs: Path, attempts: int
) -> Outcome:
    """Up to `attempts` tries; the first pass ends it. Wall time and calls add up."""
    total_wall = total_calls = 0
    for number in range(1, attempts + 1):
        outcome = attempt(challenge, codur_args, timeout_s, logs, number)
        total_wall += outcome.wall_s
        total_calls += outcome.model_calls
        if outcome.passed:
            break
    outcome.wall_s, outcome.model_calls = round(total_wall, 2), total_calls
    return outcome


def run_all(
    challenges: list[Challenge],
    out: Path,
    codur_args: list[str],
    jobs: int,
    timeout_s: float,
    attempts: int,
    on_done: Callable[[Outcome], None] = lambda o: None,
) -> list[Outcome]:
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)

    def one(challenge: Challenge) -> Outcome:
        outcome = run_challenge(challenge, codur_args, timeout_s, logs, attempts)
        on_done(outcome)
        return outcome

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        outcomes = list(pool.map(one, challenges))
    write_reports(outcomes, out)
    return outcomes


def write_reports(outcomes: list[Outcome], out: Path) -> None:
    """report.json (everything) and report.md (a readable table with the diffs)."""
    walls = sorted(o.wall_s for o in outcomes)
    summary = {
        "passed": sum(o.passed for o in outcomes),
        "total": len(outcomes),
        "wall_s_total": round(sum(walls), 2),
        "wall_s_median": walls[len(walls) // 2] if walls else 0,
        "model_calls": sum(o.model_calls for o in outcomes),
    }
    data = {"summary": summary, "challenges": [asdict(o) for o in outcomes]}
    (out / "report.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    lines = [
        f"# Challenge report: {summary['passed']}/{summary['total']} passed",
        "",
        f"Wall time: total {summary['wall_s_total']} s, median {summary['wall_s_median']} s; "
        f"model calls: {summary['model_calls']}.",
        "",
        "| challenge | result | status | attempts | model calls | tokens | iterations | wall s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(
            f"| {o.name} | {'pass' if o.passed else 'FAIL'} | {o.status} | {o.attempts} | "
            f"{o.model_calls} | {o.prompt_tokens}+{o.completion_tokens} | {o.iterations} | "
            f"{o.wall_s} |"
        )
    for o in outcomes:
        if o.diff or o.error:
            lines += [
                "",
                f"## {o.name}",
                "",
                f"log: `{o.log}`" + (f"; error: {o.error}" if o.error else ""),
            ]
            if o.diff:
                lines += ["", "```diff", o.diff.rstrip(), "```"]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
