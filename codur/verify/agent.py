"""The verification agent: decides how to verify from what is in the folder, runs the
checks through the registry's tools, and returns a typed verdict.

- an entry point with a known expected output -> run it and compare (output)
- tests present (or a test command configured) -> the project's test suite as detected
  (verify/detect.py), in stages: the tests that failed earlier, those that import the
  changed code, the whole suite (verify/tests_check.py)
- both -> hybrid (both must pass)
- neither -> checks derived from the task (a stated output, claims about calls) and from
  docstring examples (derived_checks.py); none of those either -> static: syntax, imports of
  library modules, the configured linter
Nothing is assumed: the entry point comes from config, the task's references, the
folder's conventional or only script, or `discover_entry_points`.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from codur.config.schema import VerifyConfig
from codur.errors import WorkspaceError
from codur.scope.test_modules import runs_doctests
from codur.tools.context import ToolContext
from codur.tools.registry import invoke
from codur.verify.derived import DerivedCheck
from codur.verify.derived_checks import derived_checks
from codur.verify.evidence import Evidence
from codur.verify.oracle import OracleCheck
from codur.verify.plan import (
    Check,
    OutputCheck,
    StaticCheck,
    TestCheck,
    VerificationPlan,
    strategy_of,
)
from codur.verify.project_tests import staged_tests, suite_of
from codur.verify.result import VerificationResult
from codur.verify.target import entry_point, is_test, runs_something

if TYPE_CHECKING:
    from codur.scope import EditScope


def verification_context(
    ctx: ToolContext, cfg: VerifyConfig, timeout_s: float | None = None
) -> ToolContext:
    """The tool context checks run in: verification's timeout and output cap; its tool
    events are tagged by=verify; its programs are the check itself (no approval asked,
    unless one was created in this run: see ToolContext.approve_run)."""
    timeout = timeout_s or cfg.timeout_s
    config = ctx.config.model_copy(
        update={
            "run_timeout_s": timeout,
            "pytest_timeout_s": timeout,
            "output_limit_bytes": cfg.output_limit_bytes,
        }
    )
    return dataclasses.replace(ctx, config=config, bus=ctx.bus.tagged(by="verify"), checking=True)


def choose_checks(
    ctx: ToolContext,
    cfg: VerifyConfig,
    refs: list[str],
    changed: list[str],
    task: str = "",
    derived: tuple[list[Check], str] | None = None,
    failing: Collection[str] = (),
    scope: EditScope | None = None,
    before: Mapping[str, str | None] | None = None,
) -> VerificationPlan:
    """Choose the checks for this folder and say why. `derived`: the checks derived from
    the task and the docstrings at the start of the run (so an edit that drops a
    docstring's examples does not drop its check); `failing`: ids of the tests that
    failed earlier in the run (run first); `scope`: the run's edit scope (None: not in a
    run, no oracle check), with what it captured at the start: the files checks judge
    by (compared with them, and kept unchanged), those the run may change, the files
    pytest loads by name then (none of them is created), the `__pycache__` modules
    then, and the site hooks of the project's Python (`OracleCheck`); `before`: the
    changed files' text before the run (None: not known), whose changed functions the
    tests must call for their passing to be about the task (verify/calls.py)."""
    ws = ctx.ws
    oracle = scope.oracle if scope is not None else {}
    checks: list[Check] = []
    reasons: list[str] = []
    entry, why = _entry(ctx, cfg, refs)
    expected = _expected_for(ctx, cfg, entry, oracle) if entry else None
    if entry and expected:
        captured = oracle.get(expected)
        text = captured.decode("utf-8", errors="replace") if captured is not None else None
        checks.append(OutputCheck(entry=entry, expected_file=expected, expected_text=text))
        reasons.append(f"{entry} ({why}) has a known expected output in {expected}")
    found, modules = suite_of(ws.root)
    if modules or cfg.test_command or runs_doctests(ws.root):
        files = (found, modules)
        check, why = staged_tests(ws.root, cfg, files, [*refs, *changed], failing, before)
        checks.append(check)
        reasons += why
    fallback: list[Check] = []
    if not any(_about_task(c) for c in checks) and (task or derived):
        found, why = derived if derived is not None else derived_checks(task, ws, refs, cfg)
        checks = [*checks, *found]
        reasons += [why] if found else []
    elif derived is not None and derived[0] and any(isinstance(c, TestCheck) for c in checks):
        stated = [c for c in derived[0] if stated_check(c)]  # must hold whatever the tests say
        checks += stated
        if stated:
            said = [c.description if isinstance(c, DerivedCheck) else "its output" for c in stated]
            reasons.append(f"and what the task states must hold: {'; '.join(said)}")
        fallback = [c for c in derived[0] if not stated_check(c)]  # should every test be skipped
        reasons += [f"if the tests check nothing: {derived[1]}"] * bool(fallback)
    if not any(_about_task(c) for c in checks):
        files = [
            f
            for f in dict.fromkeys([*changed, *refs])
            if f.endswith(".py") and ws.resolve(f).is_file()
        ]
        if files:
            scripts = [f for f in files if f in refs and runs_something(ws.resolve(f))]
            static = StaticCheck(
                files=files,
                lint_command=cfg.lint_command,
                scripts=scripts,
                script_run_s=cfg.script_run_s,
            )
            checks.append(static)
            reasons.append("no expected output and no tests: static checks of the changed code")
        else:
            reasons.append("no expected output, no tests and no changed Python files")
    if scope is not None and checks:  # also with nothing captured: a conftest.py may come
        digests = {
            p: hashlib.sha256(d).hexdigest() if d is not None else None for p, d in oracle.items()
        }
        checks.append(
            OracleCheck(
                files=digests,
                allowed=list(scope.oracle_editable),
                present=list(scope.present or ()),
                compiled=dict(scope.compiled or {}),
                site_dirs=list(scope.site_dirs),
                site_hooks=dict(scope.site_digests),
            )
        )
    return VerificationPlan(checks=checks, reasoning="; ".join(reasons), fallback=fallback)


def _entry(ctx: ToolContext, cfg: VerifyConfig, refs: list[str]) -> tuple[str | None, str]:
    entry = entry_point(ctx.ws, refs, cfg)
    if entry is not None:
        why = (
            "configured"
            if cfg.entry_point
            else "named in the task"
            if entry in refs
            else "the folder's entry point"
        )
        return entry, why
    found = invoke("discover_entry_points", {}, ctx)
    runnable = [point.path for point in found.value.files] if found.ok else []
    with_output = [e for e in runnable if e.endswith(".py") and _expected_for(ctx, cfg, e, {})]
    if len(with_output) == 1:
        return with_output[0], "found by discover_entry_points"
    return None, ""


def _expected_for(
    ctx: ToolContext, cfg: VerifyConfig, entry: str, oracle: Mapping[str, bytes | None]
) -> str | None:
    """The expected-output file beside the entry point, or at the root (one captured at
    the start counts even if the file has since been deleted)."""
    for folder in (Path(entry).parent, Path(".")):
        expected = (folder / cfg.expected_file).as_posix()
        if expected in oracle:
            return expected
        try:
            if ctx.ws.resolve(expected).is_file():
                return expected
        except WorkspaceError:  # a symlink out of the folder, or a loop: not its file
            continue
    return None


def stated_check(check: Check) -> bool:
    """A check of what the task itself states (the calls, the output), not of docstrings:
    beside the project's tests it must hold too."""
    return isinstance(check, OutputCheck) or (
        isinstance(check, DerivedCheck) and check.source == "task"
    )


def _about_task(check: Check) -> bool:
    return not (isinstance(check, TestCheck) and (check.unreached or check.uncalled))


def _suggestions(evidence: list[Evidence]) -> list[str]:
    found: list[str] = []
    for item in (e for e in evidence if not e.passed):
        if item.hint:
            found.append(item.hint)
        code = [loc for loc in item.locations if not is_test(loc.path)]
        if code:
            loc = code[-1]
            where = f" in {loc.function}" if loc.function and loc.function != "<module>" else ""
            raised = f" ({item.exceptions[-1]})" if item.exceptions else ""
            found.append(f"it fails at {loc.path} line {loc.line}{where}{raised}")
    return list(dict.fromkeys(found))


def run_plan(plan: VerificationPlan, ctx: ToolContext) -> VerificationResult:
    evidence = plan.run(ctx)
    held = [e.check for e in evidence if e.ran or not e.passed]  # not: every test skipped
    strategy = strategy_of(held) if len(held) < len(evidence) else None
    return VerificationResult(
        passed=all(e.passed for e in evidence),
        strategy=strategy or plan.strategy,  # type: ignore[arg-type]
        evidence=evidence,
        reasoning=plan.reasoning,
        suggestions=_suggestions(evidence),
        plan=plan,
    )


def verify_task(
    ctx: ToolContext,
    cfg: VerifyConfig,
    refs: list[str],
    changed: list[str],
    task: str = "",
    derived: tuple[list[Check], str] | None = None,
    failing: Collection[str] = (),
    scope: EditScope | None = None,
    before: Mapping[str, str | None] | None = None,
) -> VerificationResult:
    """Decide, run, judge (`choose_checks`); the verdict also goes out as a `verify.result`
    event."""
    vctx = verification_context(ctx, cfg)
    plan = choose_checks(vctx, cfg, refs, changed, task, derived, failing, scope, before)
    result = run_plan(plan, vctx)
    ctx.bus.emit(
        "verify.result",
        passed=result.passed,
        strategy=result.strategy,
        reasoning=result.reasoning,
        checks=[e.summary for e in result.evidence],
        suggestions=result.suggestions,
    )
    return result
