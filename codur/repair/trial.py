"""Trying proposed file contents: write them into a scratch copy of the workspace, run
the checks there, put the copy back. The user's files are never touched. Used by the
repair search (mutations) and by sampling (model candidates)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codur.events import EventBus
from codur.repair.scratch import Scratch, in_copy
from codur.tools.context import ToolContext
from codur.verify.agent import run_plan
from codur.verify.plan import VerificationPlan
from codur.verify.result import VerificationResult


@dataclass(frozen=True)
class TrialResult:
    passed: bool
    duration_s: float
    why: str
    """"passed", or the first failing check's summary (or why it could not run)."""
    verdict: VerificationResult | None = None
    """The last plan's verdict (None: the sources did not compile)."""
    observed: Any = None
    """What `observe` returned in the scratch copy after the checks passed."""


@dataclass
class Trial:
    """Checks proposed sources (path -> text) under `plans` (a quick plan, then the full
    one), each trial in a scratch copy leased from `scratch`."""

    ctx: ToolContext
    scratch: Scratch
    plans: list[VerificationPlan]

    def __call__(
        self, sources: dict[str, str], observe: Callable[[ToolContext], Any] | None = None
    ) -> TrialResult:
        """The checks' outcome on `sources`; when they pass, `observe` (if given) runs on
        the same scratch copy and its value is kept (the cross-check's probes)."""
        start = time.perf_counter()
        try:
            for path, text in sources.items():
                if path.endswith(".py"):
                    compile(text, path, "exec")
        except (SyntaxError, ValueError) as exc:
            return TrialResult(False, 0.0, f"does not compile: {exc}")
        with self.scratch.lease() as folder:  # given back as it was made (Scratch)
            ctx = in_copy(self.ctx, folder, bus=EventBus())
            for path, text in sources.items():
                ctx.ws.write_text(path, text)
            verdict = None
            for plan in self.plans:
                verdict = run_plan(plan, ctx)
                if not verdict.passed:
                    why = verdict.failed[0].summary
                    return TrialResult(False, time.perf_counter() - start, why, verdict)
            observed = observe(ctx) if observe is not None else None
            return TrialResult(True, time.perf_counter() - start, "passed", verdict, observed)
