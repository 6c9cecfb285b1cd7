"""The checks a verification plan is made of, each run through the registry's tools.

A plan is plain data (which entry point, which tests, which files), so the repair search
can run the very same checks in a scratch copy: `plan.run(ctx)` with a context whose
workspace is the copy.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from codur import source_encoding
from codur.process import ProcessResult
from codur.tools.context import ToolContext
from codur.tools.registry import invoke
from codur.verify.check import Match, emit_run, failure_message, judge, shown_expected
from codur.verify.crash import uncaught
from codur.verify.derived import DerivedCheck
from codur.verify.evidence import Basis, Evidence, exception_names, locations
from codur.verify.oracle import OracleCheck
from codur.verify.stream import mismatch
from codur.verify.target import Target, runs_something
from codur.verify.tests_check import TestCheck


class OutputCheck(BaseModel):
    """Run the entry point; its stdout must equal the expected output: the text captured
    from `expected_file` when the run started (so a program or an edit that rewrites the
    file changes nothing), the file as it is now when nothing was captured, or text
    stated in the task (`expected_text` alone)."""

    kind: Literal["output"] = "output"
    entry: str
    expected_file: str | None = None
    expected_text: str | None = None
    """The expected output: captured from `expected_file` at the start of the run, or
    stated in the task."""
    expected_origin: str = "the output stated in the task"
    """What `expected_text` is when there is no file, for messages."""
    match: Match = "exact"
    """`exact`: the same text; `values`: the values of a stated output in prose, in their
    order, any layout (`codur.verify.values`)."""

    @model_validator(mode="after")
    def _an_expectation(self) -> OutputCheck:
        if self.expected_file is None and self.expected_text is None:
            raise ValueError("an output check needs expected_file or expected_text")
        return self

    @property
    def against(self) -> str:
        if self.expected_file is None:
            return self.expected_origin
        captured = " (as captured at the start)" if self.expected_text is not None else ""
        return self.expected_file + captured

    @property
    def basis(self) -> Basis:
        """The project's expected-output file, or an output the task states."""
        if self.expected_file is not None:
            return "expected_output"
        return "task_values" if self.match == "values" else "task_output"

    def _expected(self, ctx: ToolContext) -> str:
        if self.expected_text is not None:
            return self.expected_text
        return ctx.ws.read_text(self.expected_file or "")

    def run(self, ctx: ToolContext) -> Evidence:
        """Run the program, stopped at the first stdout line that cannot match (streaming
        verification: `codur.verify.stream`), and judge its output."""
        shown = f"python {self.entry}, compared with {self.against}"
        expected = self._expected(ctx)
        stop = mismatch(expected) if self.match == "exact" else None
        watched = dataclasses.replace(ctx, stop_output=stop)
        call = invoke("run_python_file", {"path": self.entry}, watched)
        if not call.ok:
            return Evidence(
                check="output",
                basis=self.basis,
                passed=False,
                command=shown,
                summary=call.output,
                feedback=call.output,
                fingerprint=call.output,
            )
        report = call.value
        result = ProcessResult(
            command=[ctx.python, self.entry],
            exit_code=report.exit_code,
            stdout=report.stdout,
            stderr=report.stderr,
            raw_stdout=report.raw_stdout,
            raw_stderr=report.raw_stderr,
            duration_s=report.duration_s,
            timed_out=report.timed_out,
            truncated=report.truncated,
            stopped_at_line=report.stopped_at_line,
        )
        target = Target(result.command, self.entry, self.against)
        verdict = judge(target, result, expected, self.match)
        emit_run(ctx.bus, verdict)
        if verdict.passed:
            summary = f"{shown}: {'holds them' if self.match == 'values' else 'same output'}"
            return Evidence(
                check="output",
                basis=self.basis,
                passed=True,
                command=shown,
                summary=summary,
                duration_s=result.duration_s,
                cases=1,
            )
        if self.match == "values":  # no line is wrong in a layout-free comparison
            first_wrong, hint = None, verdict.shortfall
        else:
            first_wrong, hint = _first_difference(shown_expected(verdict), result.stdout)
        return Evidence(
            check="output",
            basis=self.basis,
            passed=False,
            command=shown,
            summary=f"{shown}: {_how(result)}",
            feedback=failure_message(ctx.prompts, verdict),
            fingerprint=verdict.fingerprint,
            duration_s=result.duration_s,
            timed_out=result.timed_out,
            locations=locations(result.stderr, ctx.ws.root),
            exceptions=exception_names(result.stderr),
            first_wrong_line=first_wrong,
            hint=hint,
        )


def _how(result: ProcessResult) -> str:
    if result.timed_out:
        return "stopped (timeout)"
    if result.stopped_at_line is not None:
        return f"stopped at output line {result.stopped_at_line} (it cannot match)"
    if result.exit_code not in (0, None):
        return f"exit code {result.exit_code}"
    return "output differs"


def _first_difference(expected: str, actual: str) -> tuple[int | None, str]:
    """Index of the first differing output line, and a hint saying how it differs."""
    want, got = expected.rstrip("\n").splitlines(), actual.rstrip("\n").splitlines()
    for number, (a, b) in enumerate(zip(want, got, strict=False)):
        if a.rstrip() != b.rstrip():
            return number, f"output line {number + 1} is {b!r}, expected {a!r}"
    if len(want) != len(got):
        return min(
            len(want), len(got)
        ), f"the program printed {len(got)} lines, expected {len(want)}"
    return None, ""


class StaticCheck(BaseModel):
    """Every file parses, library modules import, lint; and each of `scripts` (scripts
    the task names) runs for up to `script_run_s` without an uncaught exception
    (`codur.verify.crash`)."""

    kind: Literal["static"] = "static"
    files: list[str]
    lint_command: list[str] | None = None
    scripts: list[str] = []
    script_run_s: float = 0.0

    def run(self, ctx: ToolContext) -> Evidence:
        problems: list[str] = []
        for path in self.files:
            call = invoke("validate_python_syntax", {"path": path}, ctx)
            if not call.ok or not call.value.valid:
                problems.append(f"{path}: {call.output}")
        modules = [p for p in self.files if not problems and _importable(ctx.ws.root / p)]
        for path in modules:
            module = Path(path).with_suffix("").as_posix().replace("/", ".")
            code = f"import sys; sys.path.insert(0, '.'); import {module}"
            result = self._run(ctx, [ctx.python, "-c", code])
            if not result.ok:
                problems.append(f"import {module} failed:\n{result.stderr.strip()[-1500:]}")
        if self.lint_command and not problems:
            result = self._run(ctx, [*self.lint_command, *self.files])
            if not result.ok:
                problems.append(f"{' '.join(self.lint_command)}:\n{result.stdout[-2000:]}")
        scripts = self.scripts if self.script_run_s else []
        for path in scripts if not problems else []:
            crashed = uncaught(ctx.run([ctx.python, path], self.script_run_s, stdin=""))
            if crashed:
                problems.append(f"python {path} raised an uncaught exception:\n{crashed}")
        what = f"syntax and imports of {', '.join(self.files)}"
        what += f", {' '.join(self.lint_command)}" if self.lint_command else ""
        what += f"; {', '.join(scripts)} run without an uncaught exception" if scripts else ""
        if not problems:
            return Evidence(check="syntax", passed=True, command=what, summary=f"{what}: fine")
        text = "\n".join(problems)
        return Evidence(
            check="syntax",
            passed=False,
            command=what,
            summary=problems[0][:200],
            feedback=f"Static checks failed:\n{text}",
            fingerprint=text,
            locations=locations(text, ctx.ws.root),
            exceptions=exception_names(text),
        )

    def _run(self, ctx: ToolContext, command: list[str]) -> ProcessResult:
        return ctx.run(command, ctx.config.run_timeout_s)


def _importable(path: Path) -> bool:
    """A library module (only definitions): importing it runs nothing of the program's."""
    try:
        ast.parse(source_encoding.read(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return False
    return path.suffix == ".py" and path.stem.isidentifier() and not runs_something(path)


Check = Annotated[
    OutputCheck | TestCheck | StaticCheck | DerivedCheck | OracleCheck,
    Field(discriminator="kind"),
]


def strategy_of(kinds: Iterable[str]) -> str:
    """The strategy of checks of these kinds (`Strategy` in codur/verify/result.py)."""
    kinds = {"tests" if kind == "derived" else kind for kind in kinds} - {"oracle"}
    kinds = {kind if kind in ("output", "tests") else "static" for kind in kinds}
    dynamic = kinds & {"output", "tests"}
    if len(dynamic) > 1:
        return "hybrid"
    return next(iter(dynamic or kinds), "none")


class VerificationPlan(BaseModel):
    """What the verification agent decided to check, and why."""

    checks: list[Check] = Field(default_factory=list)
    reasoning: str = ""
    fallback: list[Check] = Field(default_factory=list)
    """Checks that run only when those above checked nothing (a suite whose every test was
    skipped): the task's derived checks, which the tests stood in for."""

    @property
    def strategy(self) -> str:
        """A derived check is a (generated) pytest run: its strategy is tests."""
        return strategy_of(c.kind for c in self.checks)

    @property
    def derived_files(self) -> list[str]:
        """The files whose docstring examples the derived checks run, in order, once."""
        files = [f for c in self.checks if isinstance(c, DerivedCheck) for f in c.files]
        return list(dict.fromkeys(files))

    def run(self, ctx: ToolContext) -> list[Evidence]:
        evidence = [check.run(ctx) for check in self.checks]
        behaviour = [e for c, e in zip(self.checks, evidence, strict=True) if c.kind != "oracle"]
        if self.fallback and all(e.passed and not e.ran for e in behaviour):
            evidence += [check.run(ctx) for check in self.fallback]
        return evidence

    def narrowed(self, evidence: list[Evidence]) -> VerificationPlan:
        """The same checks, tests cut down to the ones that failed (quicker to repeat):
        each check to its own evidence's failing tests (a fallback's generated test file
        is no test of the suite)."""
        own = [e.failing_tests for e in evidence[: len(self.checks)]]
        own += [[]] * (len(self.checks) - len(own))
        checks = [
            c.narrowed(failing) if isinstance(c, TestCheck) else c
            for c, failing in zip(self.checks, own, strict=True)
        ]
        return self.model_copy(update={"checks": checks})

    def bounded(self, seconds: float) -> VerificationPlan:
        """The same checks, a whole test suite given at most `seconds` (a scratch trial's
        timeout; the check of the real files runs the suite within its own budget)."""
        checks = [c.bounded(seconds) if isinstance(c, TestCheck) else c for c in self.checks]
        return self.model_copy(update={"checks": checks})
