"""A differential check of a repair against the code it changes: which calls behave
differently, on the tests' own inputs and on inputs near them.

The tests' inputs are the literal arguments of the calls the checks make into the
changed files' top-level functions (recorded by `codur.repair.calls` while the checks run
on the repaired code, where they all pass and so all run). The nearby inputs are their
type-aware mutants (`codur.verify.mutate`: numbers one further, zero, negated; lists
shorter, longer, empty, with another first element; ...). Both versions run every call
in a scratch copy (`codur.verify.probe.behaviour`). A difference on a call the tests make
is what the tests asked for; a difference elsewhere is a change no test pins.
"""

from __future__ import annotations

import ast
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from codur.config.schema import RepairConfig
from codur.litter import temp_prefix
from codur.repair.locate import TRACE_OUTPUT, traced_command
from codur.repair.scratch import Scratch, in_copy
from codur.tools.context import ToolContext
from codur.verify.derived import DerivedCheck
from codur.verify.mutate import argument_mutants
from codur.verify.plan import OutputCheck, TestCheck, VerificationPlan
from codur.verify.probe import Probe, behaviour
from codur.workspace import SKIP_DIRS

CALLS = Path(__file__).with_name("calls.py")
UNKNOWN = ("!crashed", "!load")
"""Results that say nothing of the code's behaviour (the probe program died, or the
module did not load)."""


@dataclass(frozen=True)
class Difference:
    call: str
    """The call, as code: `below_zero([-2])`."""
    before: str
    """What the original code did: `=value` or `!ExceptionName`."""
    after: str
    """What the repaired code does."""

    @property
    def line(self) -> str:
        return f"{self.call}: {_said(self.before)} before the repair, {_said(self.after)} after"


def _said(result: str) -> str:
    return f"returns {result[1:]}" if result.startswith("=") else f"raises {result[1:]}"


@dataclass(frozen=True)
class Differential:
    tests_calls: int = 0
    """Distinct calls the checks made into the changed files (literal arguments)."""
    compared: int = 0
    """Calls run on both versions with a known result on each."""
    nearby_compared: int = 0
    """Of those, the calls the tests do not make (made up near theirs)."""
    pinned_changes: int = 0
    """Of the tests' own calls, those that behave differently (what the tests asked for)."""
    differences: list[Difference] = field(default_factory=list)
    """Nearby calls the tests do not make that behave differently."""
    nearby: bool = True
    """Calls near the tests' were made up and compared (not where programs are not
    confined: no made-up arguments reach the user's code there, docs/safety.md)."""

    @property
    def pins_everything(self) -> bool:
        """Nearby calls were compared and none of them behaves differently: the tests pin
        every change. With no nearby call compared (none made up, or every one crashed),
        nothing says so."""
        return self.nearby and self.nearby_compared > 0 and not self.differences

    @property
    def line(self) -> str:
        return (
            f"{self.compared} calls compared ({self.tests_calls} made by the checks, "
            f"{self.nearby_compared} near them), "
            f"{len(self.differences)} of the others behave differently"
        )


def _traced_calls(plan: VerificationPlan, ctx: ToolContext, files: set[str], timeout: float):
    """(path, function) -> argument tuple literals the plan's programs passed."""
    found: dict[tuple[str, str], list[str]] = {}
    for check in plan.checks:
        if not isinstance(check, OutputCheck | TestCheck | DerivedCheck):
            continue
        with tempfile.TemporaryDirectory(prefix=temp_prefix("calls")) as tmp:
            out = Path(tmp) / "calls.json"
            env = check.env(ctx.ws.root) if isinstance(check, DerivedCheck) else None
            command = traced_command(check, out, ctx.ws.root, ctx.python, CALLS)
            if command is None:  # no Python a tracer can start: no calls to probe with
                continue
            ctx.run(command, timeout, env=env, writable=[Path(tmp)], output_limit=TRACE_OUTPUT)
            if not out.is_file():
                continue
            for path, functions in json.loads(out.read_text(encoding="utf-8")).items():
                if Path(path).as_posix() in files:
                    for function, calls in functions.items():
                        known = found.setdefault((Path(path).as_posix(), function), [])
                        known += [c for c in calls if c not in known]
    return found


def _probes(
    traced: dict[tuple[str, str], list[str]], limit: int, nearby: bool
) -> tuple[list[Probe], int]:
    """The tests' calls, then (with `nearby`) their mutants taken in turn, at most `limit`
    in all."""
    chosen: dict[tuple[str, str, str], Probe] = {}
    for (path, function), calls in traced.items():
        for args in calls:
            chosen.setdefault((path, function, args), Probe(path, function, args, True))
    own = len(chosen)
    pending = (
        [
            (path, function, argument_mutants(ast.literal_eval(args)))
            for (path, function), calls in traced.items()
            for args in calls
        ]
        if nearby
        else []
    )
    while pending and len(chosen) < max(limit, own):
        for entry in list(pending):
            path, function, mutants = entry
            mutant = next(mutants, None)
            if mutant is None:
                pending.remove(entry)
            elif len(chosen) < max(limit, own):
                key = (path, function, repr(mutant))
                chosen.setdefault(key, Probe(path, function, repr(mutant), False))
    return list(chosen.values()), own


def _call_text(probe: Probe) -> str:
    args = ast.literal_eval(probe.args)
    return f"{probe.function}({', '.join(repr(a) for a in args)})"


def differential(
    plan: VerificationPlan,
    ctx: ToolContext,
    originals: dict[str, str],
    sources: dict[str, str],
    cfg: RepairConfig,
    timeout_s: float,
    nearby: bool = True,
) -> Differential:
    """Compare `originals` with their repaired `sources` (path -> text) on the checks'
    calls into those files and (with `nearby`) on calls near them; never touches
    `ctx.ws`."""
    ignore = {*SKIP_DIRS, *ctx.config.ignore}
    with Scratch(ctx.ws.root, 1, ignore) as scratch, scratch.lease() as folder:
        copy = in_copy(ctx, folder)
        for path, text in sources.items():
            copy.ws.write_text(path, text)
        traced = _traced_calls(plan, copy, set(sources), timeout_s)
        found, own = _probes(traced, cfg.review_probes, nearby)
        after = behaviour(copy, found, cfg.review_call_timeout_s)
        for path, text in originals.items():
            copy.ws.write_text(path, text)
        before = behaviour(copy, found, cfg.review_call_timeout_s)
    known = [
        (probe, b, a)
        for probe, b, a in zip(found, before, after, strict=True)
        if not (b.startswith(UNKNOWN) or a.startswith(UNKNOWN))
    ]
    return Differential(
        tests_calls=own,
        compared=len(known),
        nearby_compared=sum(not p.example for p, _, _ in known),
        pinned_changes=sum(b != a for p, b, a in known if p.example),
        differences=[
            Difference(_call_text(p), b, a) for p, b, a in known if not p.example and b != a
        ],
        nearby=nearby,
    )
