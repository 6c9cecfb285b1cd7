"""The project's tests as a check, in stages that fail fast: the tests that failed earlier
in the run (their ids), then the test files that import the changed code, then the whole
suite (pytest, unittest discovery, or the configured test command) within
`verify.suite_budget_s`. The first stage that fails is the verdict; only the whole suite
passing is the project's verdict (`verified`). A whole suite stopped at its budget after
the earlier stages passed is part of the project's tests (`partial_tests`: `checked`);
one that had already shown a failure, or with no earlier stage to go by, fails.
"""

from __future__ import annotations

import dataclasses
import shlex
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from codur.eventlines import STAGES
from codur.tools.context import ToolContext, ToolError
from codur.tools.python import PytestSummary
from codur.tools.registry import invoke
from codur.verify import calls
from codur.verify.evidence import Evidence, exception_names, locations
from codur.verify.stage_run import Ran, emit, not_found, proven
from codur.verify.suite import (
    Runner,
    failures_so_far,
    program_of,
    project_command,
    python_started,
    reports_counts,
    run_tests,
    runs_pytest,
    unittest_args,
    unittest_command,
)

STAGE_NAMES = {k: v for k, v in STAGES.items() if k != "suite"}


class TestCheck(BaseModel):
    """The project's tests, in stages (module docstring); all must pass."""

    __test__ = False  # a check, not a test class for pytest to collect
    kind: Literal["tests"] = "tests"
    paths: list[str] = ["."]
    """pytest: the files and folders of the whole suite; unittest: discovery's start, or
    the test modules to run (`suite.unittest_args`)."""
    keyword: str | None = None
    """Only the whole suite's tests matching this pytest -k expression."""
    unreached: list[str] = []
    """The files the task is about, when no test reaches any of them (verify/reach.py):
    the tests must still pass, but their passing says nothing of the task."""
    uncalled: list[str] = []
    """`path: function` for each function the run changed that no test calls
    (verify/calls.py): the tests must still pass, but their passing says nothing of it."""
    changed: dict[str, list[str]] = {}
    """The functions the run changed, by file (`calls.changed_in`): the whole suite lists
    the tests it passed, and those alone are the tests that call them (a test deselected
    by the project's options, skipped by a hook or never collected calls nothing; one
    the files' reading took as skipped but that ran does call)."""
    runner: Runner = "pytest"
    command: list[str] | None = None
    """The configured test command (runner `command`)."""
    first: list[str] = []
    """Ids of tests that failed earlier in the run: run first, alone."""
    held: list[str] = []
    """Ids of tests that failed earlier whose files are the whole suite: not run apart
    (the suite runs them), but held to passing in it (pytest's list of passes)."""
    related: list[str] = []
    """Test files that import the changed or referenced code: run next."""
    whole: bool = True
    """Run the whole suite last (False: the earlier stages are the check)."""
    budget_s: float | None = None
    """Seconds the whole suite may take (None: the tools' pytest timeout)."""

    @property
    def pytest_ids(self) -> bool:
        """Its tests are pytest's (`file::name` ids): pytest runs a selection of them."""
        if self.runner == "command":
            return runs_pytest(self.command or [])
        return self.runner == "pytest"

    def run(self, ctx: ToolContext) -> Evidence:
        earlier = 0
        last: Ran | None = None
        for stage in self._stages():
            ran = self._stage(ctx, stage)
            emit(ctx, ran)
            last = ran
            if ran.cut and ran.summary is not None and not failures_so_far(ran.summary.output_tail):
                if earlier:
                    return self._partial(ran, earlier)
                return self._failed(ctx, ran, cut_alone=True)
            if ran.error or ran.unproven or ran.summary is None or not ran.summary.ok:
                return self._failed(ctx, ran)
            earlier = max(earlier, ran.summary.passed)  # the stages overlap
        assert last is not None and last.summary is not None
        return self._passed(last, self._uncalled(ctx, last))

    def _uncalled(self, ctx: ToolContext, last: Ran) -> list[str]:
        """The changed functions no test that passed in the whole suite calls (the
        reading of the files before the run, where the suite listed no passes)."""
        summary = last.summary
        passed = summary and (summary.recorded if summary.recorded is not None else None)
        passed = passed or (summary.passing if summary else None)  # the plugin did not load
        if not (self.changed and last.stage == "suite" and passed):
            return self.uncalled
        return calls.uncalled_of(ctx.ws.root, self.changed, self.paths, passed)

    def _stages(self) -> list[str]:
        stages = ["failing"] if self.first and self._selectable(self.first) else []
        # the user's command names its own tests: the related files alone would run
        # without its options (its plugins, its -o settings)
        stages += ["related"] if self.related and self.runner == "pytest" else []
        return [*stages, "suite"] if self.whole or not stages else stages

    def _selectable(self, ids: list[str]) -> bool:
        pytest = all("::" in i for i in ids)
        return pytest if self.pytest_ids else self.runner == "unittest" and not pytest

    def selection(self) -> tuple[list[str], str | None]:
        """Its narrowest stage as pytest's paths and -k expression: the tests that failed,
        the tests of the changed code, or the whole suite (what a trace of it runs)."""
        if self.first and self.pytest_ids and self._selectable(self.first):
            return sorted({i.split("::")[0] for i in self.first}), self._failed_names()
        if self.related and self.pytest_ids:
            return self.related, None
        return self.paths, self.keyword

    def _failed_names(self) -> str:
        """The tests that failed earlier as a -k expression of their names."""
        return " or ".join(sorted({i.split("::")[-1].split("[")[0] for i in self.first}))

    def traced(self, root: Path) -> list[str] | None:
        """Its narrowest stage as a tracer runs it in `root` (`module NAME ARGS...` or
        `path SCRIPT ARGS...`); None when its command starts no Python a tracer can run
        (a shell script, `make test`)."""
        if self.runner == "unittest":
            first = self.first if self.first and self._selectable(self.first) else []
            return ["module", "unittest", *unittest_args(root, self.paths, first)]
        if self.runner == "pytest":
            paths, keyword = self.selection()
            narrow = ["-k", keyword] if keyword else []
            return ["module", "pytest", "--verbosity=-1", "-p", "no:cacheprovider", *paths, *narrow]
        started = python_started(self.command or [])
        if started is None:
            return None
        if started[:2] == ["module", "pytest"] and self.first and self._selectable(self.first):
            return [*started, "-k", self._failed_names()]
        return started

    def _stage(self, ctx: ToolContext, stage: str) -> Ran:
        timeout = ctx.config.pytest_timeout_s
        if stage == "suite" and self.budget_s is not None:
            timeout = self.budget_s
        if stage == "related":
            return self._pytest(ctx, stage, self.related, None, timeout)
        if stage == "failing" and self.runner == "pytest":  # those tests exactly, by id
            return self._by_id(ctx, stage, sorted(set(self.first)), timeout)
        if stage == "failing" and self.runner == "command":  # the user's command, narrowed
            narrowed = [*(self.command or []), "-rfEp", "-k", self._failed_names()]
            command = project_command(ctx, narrowed)
            ran = self._command(ctx, stage, command, shlex.join(narrowed), timeout)
            return proven(ran, self.first, self.runner)
        if stage == "failing":
            command = unittest_command(ctx, self.paths, self.first)
        elif self.runner == "pytest":
            # the suite lists its passes when it holds ids (a few), or records them in
            # a report when they judge what the tests call (thousands: not in its output)
            held = bool(self.held)
            record = bool(self.changed)
            ran = self._pytest(ctx, stage, self.paths, self.keyword, timeout, held, record)
            return proven(ran, self.held, self.runner) if held else ran
        elif self.runner == "unittest":
            command = unittest_command(ctx, self.paths)
        else:  # pytest's counts line whatever the command's own -qq
            quiet = ["--verbosity=-1"] if self.pytest_ids else []
            command = project_command(ctx, [*(self.command or []), *quiet])
        if stage == "suite" and self.runner == "command":
            shown = shlex.join(self.command or [])  # as the user wrote it
        else:
            shown = shlex.join(["python", *command[1:]])
        ran = self._command(ctx, stage, command, shown, timeout)
        return proven(ran, self.first, self.runner) if stage == "failing" else ran

    def _by_id(self, ctx: ToolContext, stage: str, ids: list[str], timeout: float) -> Ran:
        """The tests `ids` alone; those pytest no longer finds (the fix renamed a
        parameter the test takes from the code) are left to the suite."""
        ran = self._pytest(ctx, stage, ids, None, timeout, passes=True)
        gone = not_found(ran.error, ids) if ran.error else []
        if gone and (ids := [i for i in ids if i not in gone]):
            ran = self._pytest(ctx, stage, ids, None, timeout, passes=True)
        elif gone:  # none of them is there any more: the whole suite judges
            shown = "pytest (the tests that failed no longer exist)"
            return Ran(stage, shown, PytestSummary(exit_code=0), 0.0)
        return proven(ran, ids, self.runner)

    def _command(
        self, ctx: ToolContext, stage: str, command: list[str], shown: str, timeout: float
    ) -> Ran:
        start = time.monotonic()
        try:
            summary = run_tests(ctx, command, timeout, shown, program_of(ctx, self.command or []))
        except ToolError as exc:
            return Ran(stage, shown, None, time.monotonic() - start, str(exc))
        cut = stage == "suite" and self.budget_s is not None and summary.timed_out
        return Ran(stage, shown, summary, time.monotonic() - start, cut=cut)

    def _pytest(
        self,
        ctx: ToolContext,
        stage: str,
        paths: list[str],
        keyword: str | None,
        timeout: float,
        passes: bool = False,
        record: bool = False,
    ) -> Ran:
        shown = shlex.join(["pytest", *paths, *(["-k", keyword] if keyword else [])])
        config = ctx.config.model_copy(update={"pytest_timeout_s": timeout})
        args = {"path": paths, **({"keyword": keyword} if keyword else {}), "passes": passes}
        args |= {"record": True} if record else {}
        call = invoke("run_pytest", args, dataclasses.replace(ctx, config=config))
        if not call.ok:
            return Ran(stage, shown, None, call.duration_s, call.output)
        cut = stage == "suite" and self.budget_s is not None and call.value.timed_out
        return Ran(stage, shown, call.value, call.duration_s, cut=cut)

    def _passed(self, ran: Ran, uncalled: list[str]) -> Evidence:
        summary = ran.summary
        assert summary is not None
        counts = f"{summary.passed} passed, {summary.failed} failed, {summary.errors} errors"
        counts += f", {summary.skipped} skipped"
        # the user's command reporting no counts: its exit code is its verdict
        # (pytest and unittest always report them: one that did not was stopped short)
        silent = self.runner == "command" and not reports_counts(self.command or [])
        silent = silent and not (summary.passed or summary.skipped)
        counts = "exit code 0 (no test counts reported)" if silent else counts
        apart = f" (no test reaches {', '.join(self.unreached)})" if self.unreached else ""
        apart += f" (no test calls {', '.join(uncalled)})" if uncalled else ""
        return Evidence(
            check="tests",
            basis="project_tests",
            passed=True,
            command=ran.shown,
            summary=f"{ran.shown}: {counts}{apart}",
            duration_s=ran.duration_s,
            cases=summary.passed,
            # every test skipped or xfailed, or none reaches the task's files: hollow
            ran=(summary.passed > 0 or silent) and not (self.unreached or uncalled),
        )

    def _partial(self, ran: Ran, passed: int) -> Evidence:
        budget = f"{self.budget_s:g} s"
        return Evidence(
            check="tests",
            basis="partial_tests",
            passed=True,
            command=ran.shown,
            summary=(
                f"{ran.shown}: stopped at verify.suite_budget_s ({budget}) with no failure "
                f"shown; the tests before it: {passed} passed"
            ),
            duration_s=ran.duration_s,
            timed_out=True,
            cases=passed,
            ran=not (self.unreached or self.uncalled),
        )

    def _failed(self, ctx: ToolContext, ran: Ran, cut_alone: bool = False) -> Evidence:
        what = f"{ran.shown} ({STAGE_NAMES[ran.stage]})" if ran.stage in STAGE_NAMES else ran.shown
        if ran.summary is None:
            return Evidence(
                check="tests",
                basis="project_tests",
                passed=False,
                command=what,
                summary=ran.error[:300],
                feedback=ran.error,
                fingerprint=ran.error[-300:],
            )
        summary = ran.summary
        counts = f"{summary.passed} passed, {summary.failed} failed, {summary.errors} errors"
        how = ran.unproven or summary.stopped or counts
        if ran.cut:
            how = f"stopped at verify.suite_budget_s ({self.budget_s:g} s)" + (
                " before any test could be judged" if cut_alone else " after a test failed"
            )
        tail = summary.output_tail
        errors = [ln for ln in tail.splitlines() if ln.startswith("E ")]
        return Evidence(
            check="tests",
            basis="project_tests",
            passed=False,
            command=what,
            summary=f"{what}: {how}",
            feedback=ctx.prompts.render(
                "verification_tests",
                command=ran.shown,
                counts=how,
                failing="\n".join(f"- {t}" for t in summary.failing) or "-",
                output=tail.strip()[-3000:],
            ),
            fingerprint="|".join([*sorted(summary.failing), *errors[-1:]]),
            locations=locations(tail, ctx.ws.root),
            exceptions=exception_names(tail),
            failing_tests=summary.failing,
            duration_s=ran.duration_s,
            timed_out=summary.timed_out,
            hint=f"failing: {', '.join(summary.failing[:3])}" if summary.failing else "",
        )

    def narrowed(self, failing_ids: list[str]) -> TestCheck:
        """Only the tests that failed, alone: quicker, for repair candidates."""
        if not failing_ids or not self._selectable(failing_ids):
            return self
        return self.model_copy(update={"first": failing_ids, "related": [], "whole": False})

    def bounded(self, seconds: float) -> TestCheck:
        """The same check with the whole suite given at most `seconds`."""
        budget = seconds if self.budget_s is None else min(self.budget_s, seconds)
        return self.model_copy(update={"budget_s": budget})
