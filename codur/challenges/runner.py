"""Run Codur on challenges, each run in its own temporary copy, and judge every result: the
challenge's own check, and no change to a file outside the editable ones."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from codur.challenges.judge import judge
from codur.challenges.outcome import JudgedRun
from codur.challenges.scope import scope_for
from codur.challenges.snapshot import snapshot
from codur.challenges.spec import Challenge
from codur.litter import temp_prefix
from codur.process import run_process
from codur.sandbox import Sandbox

OUTPUT_LIMIT = 5_000_000
DEFAULT_COMMAND = (sys.executable, "-m", "codur")
"""The Codur run in each working copy unless `--codur-command` names another build."""
NO_MEMORY = {"CODUR_MEMORY__ENABLED": "false"}
"""Challenge runs neither read nor write persistent memory: a user's preferences or a
cached answer would make the figures depend on who ran them and what ran before."""


@dataclass(frozen=True)
class RunSettings:
    codur_args: tuple[str, ...]
    """Arguments after the prompt (`-o` overrides, `--profile`, ...), for every run."""
    profile: str
    """The profile the runs use; `seeds` go to its `seed`."""
    log_path: str
    """Codur's debug log (`log.path`), read for the run's figures and kept; an artefact."""
    timeout_s: float
    """Seconds one Codur run may take."""
    attempts: int = 1
    """Tries per challenge and seed; the first pass counts."""
    seeds: tuple[int | None, ...] = (None,)
    """Each challenge runs once per seed; None: the profile's own seed."""
    codur_command: tuple[str, ...] = DEFAULT_COMMAND
    """The command that runs Codur (the prompt and `codur_args` follow)."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables set for each Codur run besides its process's own environment: the
    runner's CODUR_* variables, carried to Ray workers, whose environment is the node's."""

    def recorded(self) -> dict:
        """What a journal records of these settings (seeds excepted: adding seeds to an
        earlier run is fine)."""
        return {
            "codur_command": list(self.codur_command),
            "codur_args": list(self.codur_args),
            "profile": self.profile,
            "timeout_s": self.timeout_s,
            "attempts": self.attempts,
        }

    def command(self, prompt: str, seed: int | None) -> list[str]:
        seeded = [] if seed is None else ["-o", f"llm.profiles.{self.profile}.seed={seed}"]
        return [*self.codur_command, prompt, *self.codur_args, *seeded]


def _last_run_end(log: Path) -> dict:
    if not log.is_file():
        return {}
    ends = [json.loads(line) for line in log.read_text().splitlines() if '"run.end"' in line]
    return ends[-1] if ends else {}


def attempt(
    challenge: Challenge, settings: RunSettings, seed: int | None, logs: Path, number: int
) -> JudgedRun:
    """One isolated run: copy, hash every file, Codur in a subprocess, compare the hashes
    under the edit scope, judge the output, keep the log."""
    scope = scope_for(challenge, settings.log_path)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("challenge")) as tmp:
        work = challenge.copy_to(Path(tmp))
        before = snapshot(work, scope)
        start = time.perf_counter()
        result = run_process(  # Codur itself: it needs the model's key, it confines its own
            settings.command(challenge.prompt, seed),
            work,
            settings.timeout_s,
            OUTPUT_LIMIT,
            env={**dict(settings.env), **NO_MEMORY},
            sandbox=Sandbox(scrub=False),
        )
        wall = round(time.perf_counter() - start, 2)
        judgement = judge(challenge, work, before, scope)
        debug_log = work / Path(settings.log_path).expanduser()
        end = _last_run_end(debug_log)
        seed_part = "" if seed is None else f".seed{seed}"
        log = logs / f"{challenge.name}{seed_part}.{number}.log"
        if debug_log.is_file():
            shutil.copy(debug_log, log)
        error = "timed out" if result.timed_out else ""
        if not end and not error:
            error = (result.stderr.strip().splitlines() or ["no run.end in the debug log"])[-1]
        return JudgedRun(
            name=challenge.name,
            passed=judgement.passed,
            status=end.get("status", "timeout" if result.timed_out else "error"),
            exit_code=result.exit_code,
            attempts=number,
            wall_s=wall,
            seed=seed,
            output_ok=judgement.output_ok,
            violations=list(judgement.violations),
            model_calls=end.get("model_calls", 0),
            prompt_tokens=end.get("prompt_tokens", 0),
            completion_tokens=end.get("completion_tokens", 0),
            iterations=end.get("iterations", 0),
            diff=end.get("diff", ""),
            log=str(log) if log.exists() else "",
            error=error,
            evidence=_level(end),
        )


def _level(end: dict) -> str:
    """The evidence level run.end gives a passing run ("" : none, or an older Codur)."""
    evidence = end.get("evidence")
    return str(evidence.get("level", "")) if isinstance(evidence, dict) else ""


def run_challenge(
    challenge: Challenge, settings: RunSettings, seed: int | None, logs: Path
) -> JudgedRun:
    """Up to `settings.attempts` tries; the first pass ends it. Wall time and calls add up."""
    total_wall = total_calls = 0
    for number in range(1, settings.attempts + 1):
        outcome = attempt(challenge, settings, seed, logs, number)
        total_wall += outcome.wall_s
        total_calls += outcome.model_calls
        if outcome.passed:
            break
    outcome.wall_s, outcome.model_calls = round(total_wall, 2), total_calls
    return outcome
