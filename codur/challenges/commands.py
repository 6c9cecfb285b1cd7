"""`codur challenges check` and `codur challenges run` after the command line is parsed:
the run settings from the options, the runs, the result table and the exit code."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from codur.challenges.batch import run_all
from codur.challenges.judge import check
from codur.challenges.on_ray import RayOptions
from codur.challenges.outcome import seed_label
from codur.challenges.runner import DEFAULT_COMMAND, RunSettings
from codur.challenges.spec import Challenge
from codur.cluster.connect import ADDRESS, require_ray
from codur.cluster.placement import placement
from codur.config.schema import CodurConfig, LLMProfile
from codur.errors import ExitCode, UsageError
from codur.ui import IO


def check_all(challenges: list[Challenge]) -> int:
    """Each challenge: the bug shows, its solution/ passes and changes only editable files.
    ProjectEnvError (exit 12) first when one's check runs pytest and the Python that would
    run it has none: that is no unsound challenge."""
    for challenge in challenges:
        if "pytest" in challenge.spec.entry:
            _require_pytest(challenge)
    results = [check(c) for c in challenges]
    rows = [
        [
            r.name,
            "yes" if r.buggy_fails else "NO",
            "yes" if r.solution_passes else "NO",
            "NO: " + "; ".join(r.solution_violations) if r.solution_violations else "yes",
        ]
        for r in results
    ]
    columns = ["name", "bug shows", "solution passes", "solution edits only editable files"]
    IO().table("Challenge check", columns, rows)
    bad = [r.name for r in results if not r.ok]
    IO().info(f"{len(results) - len(bad)}/{len(results)} challenges are sound")
    return ExitCode.NOT_VERIFIED if bad else ExitCode.OK


def seeds_from(count: int | None, listed: str | None) -> tuple[int | None, ...]:
    """`--seeds N` -> 1..N; `--seed-list 3,7,11` -> those; neither -> the profile's own."""
    if count is not None and listed is not None:
        raise UsageError("give --seeds or --seed-list, not both")
    if count is not None:
        if count < 1:
            raise UsageError(f"--seeds {count}: give at least 1")
        return tuple(range(1, count + 1))
    if listed is None:
        return (None,)
    try:
        seeds = tuple(dict.fromkeys(int(part) for part in listed.split(",") if part.strip()))
    except ValueError:
        raise UsageError(f"--seed-list {listed}: expected integers such as 3,7,11") from None
    if not seeds:
        raise UsageError("--seed-list: no seeds given")
    return seeds


@dataclass(frozen=True)
class RunOptions:
    """The options of `codur challenges run`, as given."""

    profile: str | None
    overrides: list[str]
    jobs: int | None
    timeout_s: float
    attempts: int
    seeds: int | None
    seed_list: str | None
    codur_command: str | None
    max_iterations: int | None
    out: Path
    ray: str | None = None
    """`--ray [ADDRESS]`: LOCAL_RAY to start a local instance; None: run here."""
    task_timeout_s: float | None = None


LOCAL_RAY = "local"
"""`--ray` given without an address (Ray's own name for a new local instance)."""


def ray_options(options: RunOptions, name: str, profile: LLMProfile) -> RayOptions:
    """What `--ray` asks for; MissingExtra (exit 7) without the ray package, UsageError
    for what is no Ray address."""
    require_ray()
    address = options.ray or LOCAL_RAY
    if not ADDRESS.match(address):
        raise UsageError(
            f"--ray {address}: not a Ray address (host:port, ray://host:port, auto, local); "
            "challenge folders go before --ray"
        )
    where = None if address == LOCAL_RAY else address
    return RayOptions(where, placement(name, profile), options.task_timeout_s)


def run_challenges(challenges: list[Challenge], cfg: CodurConfig, options: RunOptions) -> int:
    name, prof = cfg.profile(options.profile)
    # --yes: a disposable copy, judged by its own check and the protected files' hashes;
    # nobody is there to approve a program run, which would otherwise end the run (exit 5)
    codur_args = [*(f"-o{o}" for o in options.overrides), "--profile", name, "--yes"]
    if options.max_iterations:
        codur_args += ["--max-iterations", str(options.max_iterations)]
    if options.attempts < 1:
        raise UsageError(f"--attempts {options.attempts}: give at least 1")
    ray = ray_options(options, name, prof) if options.ray is not None else None
    if ray is not None:
        codur_args += [f"-o{o}" for o in ray.placement.overrides]
    elif options.task_timeout_s is not None:
        raise UsageError("--task-timeout applies to --ray runs only (see --timeout)")
    command = shlex.split(options.codur_command) if options.codur_command else DEFAULT_COMMAND
    if not command:
        raise UsageError("--codur-command: empty command")
    settings = RunSettings(
        codur_args=tuple(codur_args),
        profile=name,
        log_path=cfg.log.path,
        timeout_s=options.timeout_s,
        attempts=options.attempts,
        seeds=seeds_from(options.seeds, options.seed_list),
        codur_command=tuple(command),
    )
    jobs = options.jobs or (1 if prof.provider == "local" else os.cpu_count() or 1)
    io = IO()
    with io.progress(len(challenges) * len(settings.seeds), "runs") as advance:
        out = options.out.resolve()
        if ray is None:
            outcomes, tally = run_all(challenges, out, settings, jobs, advance)
        else:
            outcomes, tally = run_all(challenges, out, settings, options.jobs, advance, ray)
    rows = [
        [
            o.name,
            seed_label(o.seed),
            o.result,
            o.status,
            str(o.model_calls),
            f"{o.prompt_tokens}+{o.completion_tokens}",
            str(o.wall_s),
        ]
        for o in outcomes
    ]
    columns = ["challenge", "seed", "result", "status", "calls", "tokens", "wall s"]
    io.table("Results", columns, rows)
    passed = sum(o.passed for o in outcomes)
    if tally is not None:
        io.info(" ".join(line for line in tally.lines() if line))
    io.info(f"passed {passed}/{len(outcomes)}; report: {options.out / 'report.md'}")
    return ExitCode.OK if passed == len(outcomes) else ExitCode.NOT_VERIFIED


def _require_pytest(challenge: Challenge) -> None:
    """The Python the judge would find for a copy of `challenge` (made in a temporary
    folder, as `check` makes it) is asked whether it has pytest."""
    import tempfile

    from codur.errors import ProjectEnvError
    from codur.project.interpreter import locate, probe
    from codur.sandbox import Sandbox

    with tempfile.TemporaryDirectory(prefix="codur-check-") as tmp:
        work = challenge.copy_to(Path(tmp))  # its own .venv too, as the judge finds it
        python = probe(locate(work, None), work, Sandbox(scrub=False), 60)
    if python.pytest is None:
        raise ProjectEnvError(
            f"challenge {challenge.name}'s check runs pytest, which {python.path} "
            f"({python.where}) does not have: install it with `{python.install_pytest}`"
        )
