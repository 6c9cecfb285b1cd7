"""`codur challenges list / check / run`: the command-line side (the work is in
commands.py). Light: imported when `codur --help` runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from codur.cli_options import Overrides, Profile
from codur.cli_options import load as _load
from codur.cluster.connect import ADDRESS
from codur.errors import ExitCode


def bare_ray(args: list[str]) -> list[str]:
    """`--ray [ADDRESS]`: a `--ray` not followed by an address (ADDRESS: anything else,
    such as a challenge folder, is not its value) means `--ray=local` (typer has no
    options with an optional value)."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == "--":
            break
        following = out[i + 1] if i + 1 < len(out) else ""
        if arg == "--ray" and not ADDRESS.match(following):
            out[i] = "--ray=local"
    return out


class ChallengesGroup(TyperGroup):
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, bare_ray(args))


challenges_app = typer.Typer(
    cls=ChallengesGroup,
    help="Score Codur on sample repos (challenges/).",
    no_args_is_help=True,
)
Paths = Annotated[
    list[Path] | None, typer.Argument(help="Challenge folders (default: ./challenges).")
]


def _challenges(paths: list[Path] | None):
    from codur.challenges.spec import discover

    return discover(paths or [Path("challenges")])


@challenges_app.command("list")
def challenges_list(paths: Paths = None) -> int:
    """List the challenges with their tags."""
    from codur.ui import IO

    rows = [[c.name, " ".join(c.spec.tags), c.prompt] for c in _challenges(paths)]
    IO().table("Challenges", ["name", "tags", "prompt"], rows)
    return ExitCode.OK


@challenges_app.command("check")
def challenges_check(paths: Paths = None) -> int:
    """Check each challenge: the buggy program fails, its solution/ passes and changes only
    editable files."""
    from codur.challenges.commands import check_all

    return check_all(_challenges(paths))


@challenges_app.command("run")
def challenges_run(
    paths: Paths = None,
    profile: Profile = None,
    overrides: Overrides = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            min=1, help="Parallel runs (default: 1 for the embedded model, else the cores)."
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds one Codur run may take.")
    ] = 900.0,
    attempts: Annotated[
        int, typer.Option(min=1, help="Tries per challenge and seed; the first pass counts.")
    ] = 1,
    seeds: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Run each challenge with seeds 1..N (the profile's `seed`); the report "
            "counts passes per seed, with every seed and with at least one."
        ),
    ] = None,
    seed_list: Annotated[
        str | None, typer.Option(help="Seeds to run with instead of 1..N, e.g. 3,7,11.")
    ] = None,
    codur_command: Annotated[
        str | None,
        typer.Option(
            help="Command that runs Codur in each working copy, split as a shell would "
            "(default: this Python with -m codur); to score another checkout: "
            "'env PYTHONPATH=/tmp/before python -m codur'."
        ),
    ] = None,
    max_iterations: Annotated[int | None, typer.Option(help="Passed on to each run.")] = None,
    out: Annotated[
        Path, typer.Option(help="Folder for report.json, report.md and the logs.")
    ] = Path("challenge-results"),
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="[ADDRESS]",
            help="Run each challenge and seed as a Ray task: alone, on a local Ray instance; "
            "with an address (host:port, ray://host:port, auto), on that cluster. "
            "--jobs then caps the runs at a time (default: as many as the CPUs hold). "
            "Needs pip install 'codur[ray]'; see docs/scaling.md.",
        ),
    ] = None,
    task_timeout: Annotated[
        float | None,
        typer.Option(
            help="With --ray: seconds one task (a challenge and seed, all attempts, judged) "
            "may run before it is cancelled (default: attempts x (--timeout + the "
            "challenge's timeout_s) + 60)."
        ),
    ] = None,
) -> int:
    """Run Codur on each challenge in a temporary copy and report what passed: the
    challenge's own check, with no change to a file outside its `editable` ones."""
    from codur.challenges.commands import RunOptions, run_challenges

    options = RunOptions(
        profile=profile,
        overrides=overrides or [],
        jobs=jobs,
        timeout_s=timeout,
        attempts=attempts,
        seeds=seeds,
        seed_list=seed_list,
        codur_command=codur_command,
        max_iterations=max_iterations,
        out=out,
        ray=ray,
        task_timeout_s=task_timeout,
    )
    cfg = _load(Path("."), None, overrides).config
    return run_challenges(_challenges(paths), cfg, options)
