"""A check that is a generated pytest file: from the task's statements, the docstrings'
examples, or written by the model from the task. The file's text is the check (plain
data), so it runs the same in the workspace and in the repair search's scratch copies.

The file goes to a temporary folder outside the workspace (nothing of Codur's lands in the
user's folder), next to an empty pytest.ini that pins pytest's root and config there; it
runs from the workspace root with the workspace on the import path, no bytecode written,
under verification's timeout, output cap and memory cap.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from codur.errors import WorkspaceError
from codur.litter import temp_prefix
from codur.process import ProcessResult
from codur.tools.context import ToolContext, ToolError
from codur.tools.python import PYTEST_FLAGS, PytestSummary, summarize_pytest
from codur.verify.evidence import Basis, Evidence, exception_names, locations

BASIS: dict[str, Basis] = {"task": "task_claims", "doctest": "docstrings", "model": "model_test"}
"""What a derived check of each source judged by (codur/verify/strength.py)."""
ORIGIN = {
    "task": "the task statement",
    "doctest": "the docstring examples",
    "model": "tests the model wrote from the task",
}
_ASSERTION = re.compile(r"^E   AssertionError: (.+(?:\nE   .*)*)", re.MULTILINE)
MESSAGE_LINES = 20
"""Lines of one failure message kept in the feedback."""


def _messages(output: str) -> list[str]:
    """The assertion messages of the failing tests (pytest's `E   ` lines), in order."""
    found = []
    for match in _ASSERTION.finditer(output):
        lines = [line.removeprefix("E   ") for line in match[1].split("\n")][:MESSAGE_LINES]
        found.append("\n".join(lines).rstrip())
    return list(dict.fromkeys(found))


class DerivedCheck(BaseModel):
    """Run the generated pytest file `test`; all its tests must pass."""

    __test__ = False  # a check, not a test class for pytest to collect
    kind: Literal["derived"] = "derived"
    source: Literal["task", "doctest", "model"]
    description: str
    """What it checks, in a line (`total(1, 5) should return 15`)."""
    test: str
    """The full text of the pytest file."""
    files: list[str] = Field(default_factory=list)
    """The workspace files whose code it checks (shown to the model with the failure)."""

    @property
    def file_name(self) -> str:
        return f"test_codur_{self.source}.py"

    def write(self, folder: Path) -> Path:
        """The test file and its pytest.ini in `folder`; the test file's path."""
        (folder / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        path = folder / self.file_name
        path.write_text(self.test, encoding="utf-8")
        return path

    def command(self, python: str, test_file: Path) -> list[str]:
        return [python, "-m", "pytest", *PYTEST_FLAGS, "--tb=short", str(test_file)]

    def env(self, root: Path) -> dict[str, str]:
        """The workspace first on the import path; no bytecode in the user's folder. A file
        Codur generated needs pytest alone: installed plugins, which can take seconds to
        load on every run (every repair candidate), are not loaded for it; a model's file
        may use them."""
        path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p)
        env = {"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
        return env if self.source == "model" else {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def run(self, ctx: ToolContext) -> Evidence:
        shown = f"pytest {self.file_name} ({self.description}, from {ORIGIN[self.source]})"
        timeout = ctx.config.pytest_timeout_s
        with tempfile.TemporaryDirectory(prefix=temp_prefix("derived")) as tmp:
            folder = Path(tmp).resolve()
            if ctx.ws.contains(folder):
                raise WorkspaceError(f"the temporary folder {folder} is inside the workspace")
            command = self.command(ctx.python, self.write(folder))
            run = ctx.run(command, timeout, env=self.env(ctx.ws.root))
        try:
            summary = summarize_pytest(ctx, run, timeout)
        except ToolError as exc:
            _emit(ctx, run, passed=False)
            text = str(exc)
            return Evidence(
                check="derived",
                basis=BASIS[self.source],
                passed=False,
                command=shown,
                summary=text[:300],
                feedback=text,
                fingerprint=text[-300:],
            )
        _emit(ctx, run, summary.ok)
        counts = f"{summary.passed} passed, {summary.failed} failed, {summary.errors} errors"
        if summary.ok:
            return Evidence(
                check="derived",
                basis=BASIS[self.source],
                passed=True,
                command=shown,
                summary=f"{shown}: {counts}",
                duration_s=run.duration_s,
                cases=summary.passed,
            )
        return self._failed(ctx, shown, summary, counts, run)

    def _failed(
        self,
        ctx: ToolContext,
        shown: str,
        summary: PytestSummary,
        counts: str,
        run: ProcessResult,
    ) -> Evidence:
        tail = summary.output_tail
        messages = _messages(run.stdout)
        failing = [_test_id(t) for t in summary.failing]
        listed = messages or failing or [summary.stopped or counts]
        # pytest's own report adds tracebacks when something raised or failed unexplained
        raised = any("raised" in m for m in messages) or len(messages) < len(failing)
        output = ctx.prompts.render("verification_derived_output", output=tail.strip()[-3000:])
        return Evidence(
            check="derived",
            basis=BASIS[self.source],
            passed=False,
            command=shown,
            summary=f"{shown}: {summary.stopped or counts}",
            feedback=ctx.prompts.render(
                "verification_derived",
                origin=ORIGIN[self.source],
                counts=summary.stopped or counts,
                failures="\n".join("- " + m.replace("\n", "\n  ") for m in listed),
                output=output if raised or not messages else "",
            ).rstrip(),
            fingerprint="|".join([*sorted(failing), *(m.split("\n")[0] for m in messages)]),
            locations=locations(tail, ctx.ws.root),
            exceptions=exception_names(tail),
            failing_tests=failing,
            duration_s=run.duration_s,
            timed_out=run.timed_out,
            ran=summary.passed + summary.failed > 0 or not summary.errors,
            hint=messages[0].split("\n")[0] if messages else f"failing: {', '.join(failing[:3])}",
        )


def _test_id(printed: str) -> str:
    """`test_codur_task.py::test_total_1` from the id pytest printed relative to the
    workspace (`../../tmp/codur-derived-x/test_codur_task.py::test_total_1`)."""
    file, _, name = printed.partition("::")
    return f"{Path(file).name}::{name}" if name else printed


def _emit(ctx: ToolContext, run: ProcessResult, passed: bool) -> None:
    ctx.bus.emit(
        "verify.run",
        command=run.command,
        exit_code=run.exit_code,
        passed=passed,
        timed_out=run.timed_out,
        truncated=run.truncated,
        stdout=run.stdout,
        stderr=run.stderr,
        duration_s=run.duration_s,
    )
