#!/usr/bin/env python3
"""Where Codur's time goes, next to the model's token floor on this machine (issue 41).

    .venv/bin/python bench/latency.py [--sets demo,challenges,humaneval] [--seeds N]
        [--limit N] [--jobs J] [--timeout S] [--profile P] [-o key=value ...]
        [--challenges DIR] [--rates PROMPT,GENERATION] [--out DIR]
    .venv/bin/python bench/latency.py --analyze DIR

First it times the profile's prompt and generation rates here, as `codur doctor` does
(`codur.doctor.measure_speed`, with the same -o overrides the runs get) and prints them;
--rates gives them instead (to compare two runs at the same rates). Then it runs each
set with the existing runners, which keep every run's debug log: `demo` (the README
demo's challenge, .ci/bootstrap.py DEMO) and `challenges` (--challenges, default
challenges/) with `codur challenges run`, `humaneval` (the first --limit problems) with
bench/humaneval.py --modes codur. Each runner's own judge says which runs are solved.

From each debug log (bench/latency_log.py says exactly how): the seconds in each phase,
which add up to the run's wall time as its runner timed it: model load, repair search,
prompt evaluation, generation, the rest of the model calls (model+), checks, Codur's own
overhead; the model calls and the kept ones (whose reply is in the final verified
state); the token floor of all calls and of the kept ones, a call's floor being its
prompt tokens not cached at the prompt rate plus its completion tokens at the generation
rate; wall / floor and wall / useful floor; cached prompt tokens per call; the rates
the calls got by their own timings (to judge the timed rates by); per set, the
completion tokens of all its calls per solved task (what generating less is measured
in) and per call. The median and p90
are over the solved runs that called the model; the runs solved with no model call are
listed apart. A table goes to stdout, everything to DIR/latency.json;
--analyze DIR re-reads a previous DIR and runs nothing.

Exit codes: 0 done; 2 bad arguments or a DIR that holds no output of this script; a
model that cannot load exits with Codur's code for it (README: exit codes).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency_log import Run, analyze  # noqa: E402
from latency_report import summarize, table  # noqa: E402

KEPT_LOG = "codur_debug.log"
"""The name humaneval_codur.py keeps a run's debug log under."""

SETS = ("demo", "challenges", "humaneval")
SETTINGS = "settings.json"
"""What a benchmark ran with and the rates it measured, in --out (read by --analyze)."""


def demo_folder() -> Path:
    """The README demo's challenge, as .ci/bootstrap.py names it."""
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / ".ci" / "bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Path(module.DEMO)


def measure_rates(profile: str | None, overrides: list[str]) -> dict[str, float]:
    """Prompt and generation tokens per second of the profile here (codur doctor's way)."""
    from codur.config import load_config
    from codur.doctor import measure_speed
    from codur.errors import CodurError

    with tempfile.TemporaryDirectory() as empty:  # no project codur.yaml
        config = load_config(Path(empty), None, overrides).config
    name, _ = config.profile(profile)
    try:
        speed = measure_speed(name, config)
    except CodurError as exc:
        print(f"latency: the model cannot be timed: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    return {
        "prompt": speed["prompt_tokens_per_s"],
        "generation": speed["generation_tokens_per_s"],
        "measured": speed,
    }


def runner(name: str, args: argparse.Namespace) -> list[str]:
    """The command that runs set `name` into args.out/name."""
    out = str(args.out / name)
    flags = [f for o in args.set for f in ("-o", o)]
    profile = ["--profile", args.profile] if args.profile else []
    if name == "humaneval":
        seeds = ",".join(str(s) for s in range(1, args.seeds + 1))
        limit = ["--limit", str(args.limit)] if args.limit is not None else []
        return [
            sys.executable, str(ROOT / "bench" / "humaneval.py"), "--modes", "codur",
            *limit, "--seeds", seeds, "--jobs", str(args.jobs), "--timeout",
            str(args.timeout), "--out", out, *profile, *flags,
        ]  # fmt: skip
    folder = demo_folder() if name == "demo" else args.challenges
    return [
        sys.executable, "-m", "codur", "challenges", "run", str(folder), "--seeds",
        str(args.seeds), "--jobs", str(args.jobs), "--timeout", str(args.timeout),
        "--out", out, *profile, *flags,
    ]  # fmt: skip


def this_codur() -> dict[str, str]:
    """The environment for a runner: `python -m codur` imports this checkout's Codur."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def records(folder: Path, name: str) -> list[tuple[str, Path, bool, float | None]]:
    """(run, debug log, solved, wall seconds) of each run the set's runner recorded."""
    journal = folder / "runs.jsonl"
    if not journal.is_file():
        return []
    found = []
    for line in journal.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if name == "humaneval":
            if r.get("mode") != "codur":
                continue
            kept = Path(r["kept"])
            log = _moved(kept / KEPT_LOG, folder / "runs" / kept.name / KEPT_LOG)
            label = r["task_id"]
        else:
            log = _moved(Path(r["log"]), folder / "logs" / Path(r["log"]).name)
            label = r["name"]
        found.append((f"{label} s{r['seed']}", log, bool(r["passed"]), r.get("wall_s")))
    return found


def _moved(recorded: Path, here: Path) -> Path:
    """The log where the runner recorded it, or in the output folder if that moved."""
    return recorded if recorded.is_file() else here


def analyze_all(out: Path, settings: dict[str, Any]) -> dict[str, list[Run]]:
    rates = settings["rates"]
    return {
        name: [
            analyze(label, log, rates, solved, wall)
            for label, log, solved, wall in sorted(records(out / name, name), key=lambda r: r[0])
        ]
        for name in settings["sets"]
    }


def report(out: Path, settings: dict[str, Any]) -> None:
    """Print the table and write out/latency.json (atomically)."""
    sets = analyze_all(out, settings)
    print(table(settings["rates"], sets))
    data = {
        **settings,
        "sets": {
            name: {"summary": summarize(runs), "runs": [r.as_dict() for r in runs]}
            for name, runs in sets.items()
        },
    }
    write_json(out / "latency.json", data)
    print(f"\nwritten: {out / 'latency.json'}")


def write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="demo,challenges,humaneval", help=", ".join(SETS))
    parser.add_argument("--seeds", type=int, default=1, help="runs each task with seeds 1..N")
    parser.add_argument("--limit", type=int, default=20, help="humaneval: the first N problems")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one run may take")
    parser.add_argument("--profile", help="the model profile (default: Codur's default)")
    parser.add_argument("-o", "--set", action="append", default=[], help="config override")
    parser.add_argument("--challenges", type=Path, default=ROOT / "challenges")
    parser.add_argument("--rates", help="PROMPT,GENERATION tokens/s instead of timing them")
    parser.add_argument("--out", type=Path, default=Path("latency-results"))
    parser.add_argument("--analyze", type=Path, metavar="DIR", help="re-read DIR, run nothing")
    args = parser.parse_args(argv)
    args.out, args.challenges = args.out.resolve(), args.challenges.resolve()
    args.sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    if not args.sets or set(args.sets) - set(SETS):
        parser.error(f"--sets takes some of {','.join(SETS)}")
    if args.seeds < 1 or args.jobs < 1:
        parser.error("--seeds and --jobs take a number from 1")
    if args.rates is not None:
        try:
            prompt, generation = (float(x) for x in args.rates.split(","))
        except ValueError:
            parser.error("--rates takes PROMPT,GENERATION, e.g. 36,11.5")
        if prompt <= 0 or generation <= 0:
            parser.error("--rates must be above 0")
        args.rates = {"prompt": prompt, "generation": generation}
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.analyze is not None:
        path = args.analyze / SETTINGS
        if not path.is_file():
            print(f"latency: {args.analyze}: no {SETTINGS}: not an output of this script")
            sys.exit(2)
        report(args.analyze, json.loads(path.read_text(encoding="utf-8")))
        return
    rates = args.rates or measure_rates(args.profile, args.set)
    if rates["prompt"] <= 0 or rates["generation"] <= 0:
        print(f"latency: the measured rates are no use: {rates}", file=sys.stderr)
        sys.exit(2)
    print(f"rates: prompt {rates['prompt']} tokens/s, generation {rates['generation']} tokens/s")
    args.out.mkdir(parents=True, exist_ok=True)
    settings = {
        "rates": rates,
        "sets": args.sets,
        "seeds": args.seeds,
        "limit": args.limit,
        "jobs": args.jobs,
        "timeout_s": args.timeout,
        "profile": args.profile,
        "overrides": args.set,
    }
    write_json(args.out / SETTINGS, settings)
    for name in args.sets:
        command = runner(name, args)
        print(f"running {name}: {' '.join(command)}", flush=True)
        done = subprocess.run(command, stdout=sys.stderr, env=this_codur())  # stdout: the table
        if not (args.out / name / "runs.jsonl").is_file():
            print(f"latency: {name}: the runner recorded no run (exit code {done.returncode})")
            sys.exit(done.returncode or 1)
    report(args.out, settings)


if __name__ == "__main__":
    main()
