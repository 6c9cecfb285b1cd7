#!/usr/bin/env python3
"""Generate the real-repository benchmark's bug list (bench/realrepo/bugs.yaml).

    nice -n 19 .venv/bin/python bench/realrepo/generate.py [--packages a,b] [--per-package 10]
        [--seed 40] [--max-tries 40] [--cache DIR] [--out FILE]

For each package of packages.yaml: download its sdist and build its venv (once, in the
cache), run its suite on the clean sources under coverage, then try the bugs of
history.yaml (real fixes from the package's history, reverted) and synthetic ones
(mutate.py: kinds Codur's repair operators cannot undo, on lines the suite executes,
shuffled with --seed, kinds taken in turn, one bug a function). Each candidate is
validated with the whole suite (validate.py): 1-10 clean-suite tests fail, all the others
pass. Kept bugs alternate between a task naming the failing tests and one describing
only the symptom. Validation results are cached, so a rerun is cheap.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import yaml  # noqa: E402
from journal import in_turn  # noqa: E402
from mutate import Mutation, candidates  # noqa: E402
from packages import PACKAGES_FILE, Package, default_cache, load_packages, prepare  # noqa: E402
from tasks import named_task, patch_of, symptom_task  # noqa: E402
from validate import Workbench  # noqa: E402


def source_files(package: Package, copy: Path) -> list[str]:
    found = []
    for source in package.sources:
        path = copy / source
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for file in files:
            relative = file.relative_to(copy)
            if "tests" not in relative.parts and not file.name.startswith("test_"):
                found.append(relative.as_posix())
    return found


def synthetic(bench: Workbench, rng: random.Random) -> list[tuple[str, Mutation]]:
    found = []
    for rel in source_files(bench.package, bench.copy):
        text = (bench.copy / rel).read_text(encoding="utf-8")
        covered = None if bench.covered is None else bench.covered.get(rel, set())
        for mutation in candidates(text):
            if covered is None or mutation.line in covered:
                found.append((rel, mutation))
    return in_turn(found, lambda item: item[1].kind, rng)


def bug_record(bench: Workbench, patch: str, result: dict, **fields) -> dict:
    return {
        "package": bench.package.name,
        "version": bench.package.version,
        **fields,
        "patch": patch,
        "failing": result["failing"],
        "failure": result["records"][result["failing"][0]],
    }


def history_bugs(bench: Workbench, entries: list[dict]) -> list[dict]:
    """The package's reverted fixes (history.yaml) that validate."""
    kept = []
    for entry in entries:
        rel = entry["file"]
        before = after = (bench.copy / rel).read_text(encoding="utf-8")
        missing = [e for e in entry["edits"] if after.count(e["fixed"]) != 1]
        if missing:
            print(f"  history {entry['ref']}: the fixed code is not in {rel}", flush=True)
            continue
        for edit in entry["edits"]:
            after = after.replace(edit["fixed"], edit["buggy"], 1)
        result = bench.check({rel: after})
        print(f"  history {entry['ref']}: {result['why'] or 'kept'}", flush=True)
        if result["valid"]:
            kept.append(
                bug_record(
                    bench,
                    patch_of(rel, before, after),
                    result,
                    source="history",
                    kind="history",
                    ref=f"{entry['ref']} {entry['subject']}",
                    file=rel,
                    function="",
                )
            )
    return kept


def generate_package(
    bench: Workbench, args: argparse.Namespace, history: list[dict], done: list[dict]
) -> list:
    """The package's bugs; the list so far (`done` and these) is written after each one."""
    kept = history_bugs(bench, history)
    write(args.out, done + kept)
    seen_functions = {(b["file"], b["function"]) for b in kept}
    rng = random.Random(f"{args.seed}:{bench.package.name}")
    tries = 0
    for rel, mutation in synthetic(bench, rng):
        if len(kept) >= args.per_package or tries >= args.max_tries:
            break
        if (rel, mutation.function) in seen_functions:
            continue
        before = (bench.copy / rel).read_text(encoding="utf-8")
        after = mutation.apply(before)
        tries += 1
        result = bench.check({rel: after})
        where = f"{rel}:{mutation.line} {mutation.function} {mutation.kind}"
        print(f"  {where}: {result['why'] or 'kept'}", flush=True)
        if result["valid"]:
            seen_functions.add((rel, mutation.function))
            kept.append(
                bug_record(
                    bench,
                    patch_of(rel, before, after),
                    result,
                    source="synthetic",
                    kind=mutation.kind,
                    file=rel,
                    function=mutation.function,
                    line=mutation.line,
                )
            )
            write(args.out, done + kept)
    return kept


def with_tasks(bugs: list[dict]) -> list[dict]:
    """Ids, and task texts alternating: even positions name the tests, odd the symptom."""
    out = []
    counters: dict[str, int] = defaultdict(int)
    for index, bug in enumerate(bugs):
        counters[bug["package"]] += 1
        failure = bug.pop("failure")
        style = "named" if index % 2 == 0 else "symptom"
        task = (
            named_task(bug["failing"])
            if style == "named"
            else symptom_task(bug["package"], bug["version"], failure)
        )
        out.append(
            {
                "id": f"{bug['package']}-{counters[bug['package']]:02d}",
                **bug,
                "task_style": style,
                "task": task,
            }
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", default="", help="comma-separated names (default all)")
    parser.add_argument("--per-package", type=int, default=10)
    parser.add_argument("--max-tries", type=int, default=40, help="synthetic candidates a package")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=None, help="default " + str(default_cache()))
    parser.add_argument("--history", type=Path, default=HERE / "history.yaml")
    parser.add_argument("--out", type=Path, default=HERE / "bugs.yaml")
    parser.add_argument("--packages-file", type=Path, default=PACKAGES_FILE)
    parser.add_argument("--no-coverage", action="store_true", help="try lines no test runs too")
    args = parser.parse_args(argv)
    cache = args.cache or default_cache()
    packages = load_packages(args.packages_file)
    names = [n.strip() for n in args.packages.split(",") if n.strip()] or list(packages)
    history = yaml.safe_load(args.history.read_text()) if args.history.is_file() else {}
    bugs = []
    for name in names:
        package = packages[name]
        prepare(package, cache)
        bench = Workbench.open(package, cache, measure=not args.no_coverage)
        clean = bench.baseline
        print(
            f"{name}: clean suite {len(clean.passing())} passed, {len(clean.failing())} "
            f"failing, {bench.baseline_s:.0f}s (under coverage)",
            flush=True,
        )
        if clean.failing() or not clean.passing():
            print(f"  skipped: the clean suite must pass ({sorted(clean.failing())[:3]})")
            continue
        bugs.extend(generate_package(bench, args, (history or {}).get(name, []), bugs))
    write(args.out, bugs)
    print(f"{len(bugs)} bugs -> {args.out}")


def _literal(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """Patches as readable `|` blocks (PyYAML falls back to quotes where it must)."""
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


yaml.SafeDumper.add_representer(str, _literal)


def write(out: Path, bugs: list[dict]) -> None:
    header = "# Generated by bench/realrepo/generate.py; regenerate rather than edit.\n"
    body = yaml.safe_dump({"bugs": with_tasks([dict(b) for b in bugs])}, sort_keys=False, width=100)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(header + body, encoding="utf-8")
    partial.replace(out)


if __name__ == "__main__":
    main()
