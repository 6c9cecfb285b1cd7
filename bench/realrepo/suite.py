"""Running a package's own test suite on a working copy, and the judge.

The suite runs with the copy's layered venv (packages.layered_env), `python -m pytest`
from the copy's root, and the benchmark's plugin (plugin/realrepo_outcomes.py) records
every test's outcome by node id. The judge: the full suite passes and no test file
changed; Codur's verdict plays no part in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from packages import NICE, Package

PLUGIN_DIR = Path(__file__).resolve().parent / "plugin"
FAILED = ("failed", "error")


@dataclass
class SuiteRun:
    outcomes: dict[str, dict] = field(default_factory=dict)
    """node id -> {"outcome": passed|failed|error|skipped, "statement", "error"}."""
    timed_out: bool = False
    exit_code: int | None = None
    output: str = ""
    """pytest's own output (the tail)."""

    def failing(self) -> set[str]:
        return {k for k, v in self.outcomes.items() if v.get("outcome") in FAILED}

    def passing(self) -> set[str]:
        return {k for k, v in self.outcomes.items() if v.get("outcome") == "passed"}


def run_suite(
    python: Path,
    package: Package,
    copy: Path,
    timeout_s: float,
    selection: list[str] | None = None,
    extra: tuple[str, ...] = (),
    prefix: tuple[str, ...] = (),
) -> SuiteRun:
    """The suite (or the node ids in `selection`) on `copy`; never writes into the copy
    (no bytecode, no cache folder). `prefix`: e.g. ("-m", "coverage", "run", ...)."""
    with tempfile.TemporaryDirectory(prefix="realrepo-suite-") as tmp:
        out = Path(tmp) / "outcomes.json"
        env = {
            **os.environ,
            "REALREPO_OUTCOMES": str(out),
            "PYTHONPATH": str(PLUGIN_DIR),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        env.pop("VIRTUAL_ENV", None)
        command = [
            *NICE,
            str(python),
            *(prefix or ("-m",)),
            "pytest",
            "-p",
            "realrepo_outcomes",
            "-p",
            "no:cacheprovider",
            "-q",
            "-rN",
            *extra,
            *(selection or package.tests),
        ]
        proc = subprocess.Popen(
            command,
            cwd=copy,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = proc.communicate(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
            timed_out = True
        outcomes = json.loads(out.read_text()) if out.is_file() else {}
        return SuiteRun(outcomes, timed_out, proc.returncode, output[-20_000:])


def is_test_file(relative: Path, package: Package) -> bool:
    """A file the judge protects: anything under a test folder, any test_*.py, *_test.py
    or conftest.py, and pytest's config files."""
    parts = relative.parts
    name = relative.name
    in_tests = any(
        relative.as_posix().startswith(t.rstrip("/") + "/") or relative.as_posix() == t
        for t in package.tests
    )
    return (
        in_tests
        or name.startswith("test_")
        and name.endswith(".py")
        or name.endswith("_test.py")
        or name in {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"}
        or "tests" in parts[:-1]
    )


def hash_tests(copy: Path, package: Package) -> dict[str, str]:
    hashes = {}
    for path in sorted(copy.rglob("*")):
        relative = path.relative_to(copy)
        if ".git" in relative.parts or "__pycache__" in relative.parts or not path.is_file():
            continue
        if is_test_file(relative, package):
            hashes[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    failing: tuple[str, ...] = ()
    changed_tests: tuple[str, ...] = ()
    excused: tuple[str, ...] = ()
    """Failing tests that fail on the clean sources at the same path too (not counted)."""
    ran: bool = False
    """The suite ran to its end, some test passed and no other condition failed it."""

    def excusing(self, clean_failing: set[str], never: tuple[str, ...] = ()) -> Verdict:
        """This verdict with the tests that fail on the clean sources too not counted,
        except those of `never` (the bug's own failing tests)."""
        excused = tuple(t for t in self.failing if t in clean_failing and t not in never)
        if not excused or not self.ran:
            return self
        left = tuple(t for t in self.failing if t not in clean_failing)
        note = f"; {len(excused)} failing on the clean sources here too, not counted"
        if left:
            return Verdict(False, f"{len(left)} failing{note}", left, excused=excused)
        return Verdict(True, f"the rest passed{note}", excused=excused)


def judge(
    python: Path, package: Package, copy: Path, before: dict[str, str], timeout_s: float
) -> Verdict:
    """The full suite passes and every test file is as it was (none added or removed)."""
    after = hash_tests(copy, package)
    changed = tuple(
        sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    )
    if changed:
        return Verdict(False, f"test files changed: {', '.join(changed[:5])}", (), changed)
    run = run_suite(python, package, copy, timeout_s)
    if run.timed_out:
        return Verdict(False, f"suite timed out after {timeout_s:.0f}s")
    failing = tuple(sorted(run.failing()))
    if failing or run.exit_code != 0 or not run.passing():
        reason = f"{len(failing)} failing" if failing else f"pytest exit {run.exit_code}"
        return Verdict(False, reason, failing, ran=bool(failing and run.passing()))
    return Verdict(True, f"{len(run.passing())} passed")


def clean_failing(
    python: Path,
    package: Package,
    copy: Path,
    commit: str,
    patch: str,
    tests: tuple[str, ...],
    timeout_s: float,
) -> set[str]:
    """Which of `tests` fail on the package's clean sources in the same place. Some tests
    depend on the folder the copy lies in (boltons' test_iter_find_files strips the path
    with `str.lstrip`, which reads it as a set of characters: it fails in about one random
    temporary folder in five); a run is not blamed for them. The copy goes back to
    `commit` (the bug's, as the run began: the run may have committed) and the bug's
    patch is reversed in place: call this last. The tests run by themselves (one that
    fails only after others would pass here)."""

    def git(*args: str, stdin: str | None = None) -> None:
        subprocess.run(["git", *args], cwd=copy, input=stdin, text=True, check=True,
                       capture_output=True)  # fmt: skip

    git("reset", "--hard", "-q", commit)
    git("clean", "-fdq")
    git("apply", "-R", "-", stdin=patch)
    return run_suite(python, package, copy, timeout_s, list(tests)).failing() & set(tests)
