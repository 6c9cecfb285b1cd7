"""Validating a candidate bug: apply it to a working copy of the package, run the whole
suite, keep it only when 1-10 tests that pass on the clean sources now fail and every
other test still passes. Results are cached by the edit's content."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from packages import Package, copy_sources, layered_env
from suite import FAILED, SuiteRun, run_suite

MAX_FAILING = 10


@dataclass
class Workbench:
    """One package's working copy and layered venv, its clean-suite baseline, and the
    validation cache (cache/validations/<name>.jsonl)."""

    package: Package
    cache: Path
    copy: Path
    python: Path
    baseline: SuiteRun
    baseline_s: float
    covered: dict[str, set[int]] | None
    """Source file (relative) -> lines the clean suite executed; None: not measured."""

    @classmethod
    def open(cls, package: Package, cache: Path, measure: bool = True) -> Workbench:
        """A fresh working copy and its clean-suite run; `measure`: under coverage (the
        venv has it), so candidates on lines no test runs are never tried."""
        work = cache / "work" / package.name
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        copy = copy_sources(package, cache, work / "src")
        python = layered_env(package, cache, copy, work / "env")
        saved = cache / "baselines" / f"{package.name}-{package.version}-{measure}.json"
        if saved.is_file():  # the clean suite of the same sources: run once
            data = json.loads(saved.read_text())
            covered = data["covered"] and {k: set(v) for k, v in data["covered"].items()}
            baseline = SuiteRun(data["outcomes"], False, 0, "")
            return cls(package, cache, copy, python, baseline, data["seconds"], covered)
        data = work / "coverage.data"
        include = ",".join(
            str(copy / s) if (copy / s).is_file() else f"{copy / s}/*" for s in package.sources
        )
        prefix = ("-m", "coverage", "run", f"--data-file={data}", f"--include={include}", "-m")
        start = time.perf_counter()
        baseline = run_suite(python, package, copy, 1800, prefix=prefix if measure else ())
        baseline_s = time.perf_counter() - start
        covered = _covered(copy, python, data)
        if not baseline.timed_out:
            saved.parent.mkdir(parents=True, exist_ok=True)
            lines = {k: sorted(v) for k, v in covered.items()} if covered is not None else None
            record = {"outcomes": baseline.outcomes, "seconds": baseline_s, "covered": lines}
            saved.write_text(json.dumps(record), encoding="utf-8")
        return cls(package, cache, copy, python, baseline, baseline_s, covered)

    def timeout(self) -> float:
        return max(60.0, 4 * self.baseline_s)

    def _cache_file(self) -> Path:
        return self.cache / "validations" / f"{self.package.name}.jsonl"

    def _cached(self) -> dict[str, dict]:
        path = self._cache_file()
        lines = path.read_text().splitlines() if path.is_file() else []
        return {r["key"]: r for r in map(json.loads, lines)}

    def check(self, files: dict[str, str]) -> dict:
        """Run the suite with `files` (relative path -> new text) in place of the clean
        ones; returns {"valid", "failing", "why", "records"} (cached)."""
        key = hashlib.sha256(
            json.dumps([self.package.version, sorted(files.items())]).encode()
        ).hexdigest()
        cached = self._cached().get(key)
        if cached is not None:
            return cached
        originals = {rel: (self.copy / rel).read_text(encoding="utf-8") for rel in files}
        try:
            for rel, text in files.items():
                (self.copy / rel).write_text(text, encoding="utf-8")
            extra = (f"--maxfail={MAX_FAILING + 1}",)  # more than that: rejected, no need to finish
            run = run_suite(self.python, self.package, self.copy, self.timeout(), extra=extra)
        finally:
            for rel, text in originals.items():
                (self.copy / rel).write_text(text, encoding="utf-8")
        result = {"key": key, **self.judge_candidate(run)}
        self._cache_file().parent.mkdir(parents=True, exist_ok=True)
        with self._cache_file().open("a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")
        return result

    def judge_candidate(self, run: SuiteRun) -> dict:
        failing = sorted(run.failing())
        records = {k: run.outcomes[k] for k in failing[:MAX_FAILING]}
        clean_passing = self.baseline.passing()
        why = ""
        if run.timed_out:
            why = "timed out"
        elif not failing:
            why = "no test fails"
        elif len(failing) > MAX_FAILING:
            why = f"more than {MAX_FAILING} tests fail"
        elif not set(failing) <= clean_passing:
            why = "a failure is not a clean-suite test (collection error?)"
        elif not clean_passing - set(failing) <= run.passing():
            why = "another test stopped passing (skipped or gone)"
        elif any(run.outcomes[k].get("outcome") not in FAILED for k in failing):
            why = "unexpected outcome"
        return {"valid": not why, "why": why, "failing": failing, "records": records}


def _covered(copy: Path, python: Path, data: Path) -> dict[str, set[int]] | None:
    if not data.is_file():
        return None
    report = data.with_suffix(".json")
    subprocess.run(
        [str(python), "-m", "coverage", "json", f"--data-file={data}", "-o", str(report)],
        cwd=copy,
        check=True,
        capture_output=True,
    )
    return {
        (copy / name).resolve().relative_to(copy.resolve()).as_posix(): set(info["executed_lines"])
        for name, info in json.loads(report.read_text())["files"].items()
    }
