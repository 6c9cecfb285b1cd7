"""Before a run: the check Codur would use in the folder as it is now, and whether the
project's Python can run it. A check that needs pytest where the project's Python has
none stops the run before anything runs (exit code 12), instead of an `unverified` at
the end whose reason only the trace shows."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

from codur.config.schema import VerifyConfig
from codur.errors import ConfigError, ProjectEnvError, WorkspaceError
from codur.project.interpreter import Interpreter
from codur.task import file_refs
from codur.tools.context import ToolContext
from codur.verify.agent import choose_checks, verification_context
from codur.verify.derived import DerivedCheck
from codur.verify.plan import Check, TestCheck, VerificationPlan
from codur.verify.result import VerificationResult
from codur.workspace import Workspace


def planned_check(
    ctx: ToolContext,
    cfg: VerifyConfig,
    task: str = "",
    derived: tuple[list[Check], str] | None = None,
) -> VerificationPlan:
    """The checks Codur would run for `task` in the folder as it is now (nothing runs):
    the expected output, the tests, the derived checks or the static ones."""
    return choose_checks(verification_context(ctx, cfg), cfg, file_refs(task), [], task, derived)


def pytest_runs(plan: VerificationPlan) -> list[str]:
    """The plan's checks that run pytest, each as shown to people."""
    shown = []
    for check in plan.checks:
        if isinstance(check, TestCheck) and check.pytest_ids:  # unittest's need no pytest
            shown.append(" ".join(["pytest", *check.paths]))
        elif isinstance(check, DerivedCheck):
            shown.append(f"pytest on a generated test ({check.description})")
    return shown


def require_pytest(plan: VerificationPlan, python: Interpreter) -> None:
    """ProjectEnvError, in one line saying how to fix it, when the plan runs pytest and
    `python` cannot (no pytest, or the interpreter does not run)."""
    runs = pytest_runs(plan)
    if not runs or python.pytest is not None:
        return
    where = f"the project's Python {python.path} ({python.where})"
    if not python.version:
        raise ProjectEnvError(
            f"the check ({runs[0]}) needs pytest, and {where} cannot run: {python.problem}; "
            "set tools.python to a working interpreter"
        )
    raise ProjectEnvError(
        f"the check ({runs[0]}) needs pytest, which {where} does not have: install it with "
        f"`{python.install_pytest}`, or set tools.python to an interpreter that has it"
    )


def require_inside(cfg: VerifyConfig, ws: Workspace) -> None:
    """ConfigError (exit 2, naming the key) when `verify.entry_point` or
    `verify.expected_file` names a path out of the folder: the check would never run that
    program or read that file, and the run would end `unverified` for a reason only the
    trace shows."""
    for key, value in (("entry_point", cfg.entry_point), ("expected_file", cfg.expected_file)):
        if not value or not _leads_out(value):  # a link out is the file's, not the key's
            continue
        try:
            ws.resolve(value)
        except WorkspaceError as exc:
            raise ConfigError(
                f"verify.{key} {value!r} cannot be used: {exc}", key=("verify", key)
            ) from None


def _leads_out(path: str) -> bool:
    """Whether the text of `path` leaves a folder: absolute, or `..` past its start."""
    return os.path.isabs(path) or os.path.normpath(path).split(os.sep)[0] == ".."


def require_program(plan: VerificationPlan, root: Path, path_var: str | None = None) -> None:
    """ConfigError (exit 2, naming the key) when the configured test command's program is
    not there: not on PATH (`path_var`, default $PATH), or no file of the folder for a
    path; `python`, `python3` and `pytest` are the project's Python's."""
    for check in plan.checks:
        if not (isinstance(check, TestCheck) and check.runner == "command" and check.command):
            continue
        head = check.command[0]
        if head in ("python", "python3", "pytest"):
            continue
        if os.sep in head:
            found, where = (root / Path(head).expanduser()).is_file(), f"in {root}"
        else:
            found, where = shutil.which(head, path=path_var) is not None, "on PATH"
        if not found:
            raise ConfigError(
                f"the test command `{shlex.join(check.command)}` cannot run: {head} is not "
                f"found {where}",
                key=("verify", "test_command"),
            )


_REJECTED = re.compile(r"pytest could not run \(exit code 4\): ERROR: usage:")
"""pytest's own usage error (exit code 4 with its usage line: not a conftest's error)."""
_CACHE_OPTIONS = frozenset(
    {"--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw",
     "--stepwise", "--sw-skip", "--stepwise-skip", "--cache-clear", "--cache-show", "--lfnf"}
)  # fmt: skip
"""Options of pytest's cache plugins, which `-p no:cacheprovider` leaves unknown."""


_NO_PLUGIN = re.compile(r"Error importing plugin \"([\w.]+)\": No module named '([\w.]+)'")


def _require_plugins(text: str) -> None:
    """ProjectEnvError when pytest itself does not import (`broken_pytest`), or cannot
    load a plugin its command line names (`-p NAME` in addopts) that is not installed."""
    from codur.tools.python import broken_pytest

    if said := broken_pytest(text):
        raise ProjectEnvError(
            f"the project's pytest does not import ({said}): reinstall it in the project's "
            "Python (python -m pip install --force-reinstall pytest)"
        )
    found = _NO_PLUGIN.search(text)
    plugin, missing = found.groups() if found else ("", "-")
    if plugin == missing or plugin.startswith(missing + "."):  # not a module it imports
        raise ProjectEnvError(
            f"the project's pytest loads the plugin {plugin}, which its Python does "
            "not have: install it there, or take `-p` of it out of addopts"
        )


def require_runnable(verdict: VerificationResult) -> None:
    """ProjectEnvError when pytest rejected its own command line in the check of the
    files as found (an `addopts` option of a plugin the project's Python lacks, such as
    `--cov`): no edit can make that pass, so nothing is searched or asked."""
    for evidence in verdict.evidence:
        if evidence.check != "tests" or evidence.passed:
            continue
        text = evidence.feedback or evidence.summary
        _require_plugins(text)
        said = next((ln for ln in text.splitlines() if "error: unrecognized arguments" in ln), "")
        if not _REJECTED.search(text) or not said:  # an option's bad value: maybe the code's
            continue
        if set(said.split("arguments:", 1)[1].split()) <= _CACHE_OPTIONS:
            raise ProjectEnvError(
                f"the project's pytest options use its cache ({said.strip()}), which Codur "
                "turns off (-p no:cacheprovider) so that checks leave no .pytest_cache and "
                "run every test: take them out of addopts"
            )
        raise ProjectEnvError(
            f"the project's pytest rejects its command line ({said.strip()}): fix its "
            "configuration (addopts) or install the plugin it names in the project's Python"
        )
