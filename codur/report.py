"""The final summary of a run on the terminal: the answer, the diff, the verdict and how
strong its evidence is, what was checked, the counts, and how to undo it; for `codur
ask`, the answer."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from codur.config.sections import DisplayConfig
from codur.result import RunResult
from codur.terminal_text import cut_lines
from codur.ui import IO

if TYPE_CHECKING:
    from codur.ask.run import AskResult


NOT_OWNED = "no expected output or test of the project checked this change; add one to verify it"
"""Said under a `checked` result: what would make it `verified`."""
CUT_SHORT = (
    "the whole test suite did not finish within verify.suite_budget_s; raise it (or set "
    "a quicker verify.test_command) to verify this change"
)
"""Said under a `checked` result that ran part of the project's tests."""


def report(
    io: IO,
    result: RunResult,
    log_file: Path | None,
    display: DisplayConfig,
    workdir: Path,
) -> None:
    """The final summary: status, diff, files, counts, time, and how to undo the run."""
    if result.final_response:
        key = "display.max_reply_lines"
        io.raw(cut_lines(result.final_response, display.max_reply_lines, "reply", key))
    io.diff(result.diff, display.max_diff_lines)
    if result.diff and io.redact.text(result.diff) != result.diff:  # a .env's value, say
        io.caution(
            "*** in the diff stands for a value kept secret (the environment's, a .env "
            "file's): `codur diff` shows the change as it is"
        )
    said = result.evidence.description if result.evidence is not None else result.status
    line = f"{said}: {result.message}"
    if result.status in ("verified", "done"):
        io.success(line)
    elif result.status == "checked":
        io.caution(line)
        partial = result.evidence is not None and result.evidence.level == "partial"
        why = CUT_SHORT if partial else NOT_OWNED
        io.info(f"not verified: {why} (exit code {int(result.exit_code)})")
    else:
        io.info(line)
    if result.model_test:
        io.info("checked with this test the model wrote from the task (kept outside the folder):")
        io.raw(result.model_test)
    if result.check:
        outside = ", ".join(result.outside_changes) or "none"
        io.info(f"checked by: {result.check} | changed outside the code under test: {outside}")
    io.info(
        f"files changed: {', '.join(result.files_changed) or 'none'} | iterations: "
        f"{result.iterations} | model calls: {result.model_calls} | tokens: "
        f"{result.prompt_tokens}+{result.completion_tokens} ({result.cached_prompt_tokens} "
        f"prompt tokens cached) | wall time: {result.wall_s}s"
    )
    if result.run_changes:
        here = workdir == Path.cwd().resolve()
        undo = "codur undo" + ("" if here else f" -C {shlex.quote(str(workdir))}")
        others = [p for p in result.run_changes if p not in result.files_changed]
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        made = f" ({shown}: not by an edit)" if others else ""
        count = len(result.run_changes)
        kept = "" if result.status in PASSED else ", kept (not verified)"
        look = "" if not kept else f" | see: {undo.replace('undo', 'diff', 1)}"
        io.info(f"run {result.run_id}: {count} file(s) changed{made}{kept}{look} | undo: {undo}")
    if log_file is not None:
        io.info(f"debug log: {log_file}")


PASSED = frozenset({"verified", "done", "checked"})
"""Statuses whose check passed (fully or in part): the changes are what the run is for."""


def report_answer(io: IO, result: AskResult) -> None:
    """`codur ask`'s answer (with --json it is in the `ask.end` event instead)."""
    if io.json_mode:
        return
    io.raw(result.answer or "(no answer)")
    if result.status != "done":
        io.warn(result.message)
    elif result.cached:
        io.info(result.message)


def left_changed(run_id: str, touched: list[str]) -> str:
    """What a run stopped by an error or a signal had already changed (no summary says
    it then), and the way back."""
    more = " ..." if len(touched) > 5 else ""
    return (
        f"the run changed {len(touched)} file(s) before it stopped, not verified: "
        f"{', '.join(touched[:5])}{more} (codur diff shows them; codur undo --run {run_id} "
        "puts them back)"
    )
