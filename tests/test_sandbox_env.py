"""The project's virtualenv in the workspace is read-only for the programs Codur runs
(sandbox.protect_env): code under test that rewrote pytest or a dependency there could
pass every test, and no undo puts a virtualenv back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli, scripted_profile

from codur.project.interpreter import environment_inside
from codur.sandbox import readonly
from codur.sandbox.confine import landlock_unavailable

NO_READ_ONLY = landlock_unavailable() or readonly.unavailable()

PLANT = (
    "try:\n"
    "    open('.venv/pyvenv.cfg', 'a').write('planted = 1\\n')\n"
    "except OSError as exc:\n"
    "    print(type(exc).__name__)\n"
    "print(10)\n"
)


def project(root: Path) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    return root


@pytest.mark.slow
@pytest.mark.skipif(NO_READ_ONLY is not None, reason=f"read-only: {NO_READ_ONLY}")
@pytest.mark.parametrize("protect", [True, False])
def test_a_checked_program_cannot_write_the_projects_virtualenv(
    tmp_path: Path, protect: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV")  # the folder's own .venv is the project's Python
    work = project(tmp_path / "work")
    (work / "main.py").write_text(PLANT)
    (work / "expected.txt").write_text("10\n")
    flags = [*scripted_profile(tmp_path, []), "-o", f"sandbox.protect_env={str(protect).lower()}"]
    result = run_cli([*flags, "--no-model", "fix @main.py", "-v"], cwd=work)
    planted = "planted" in (work / ".venv" / "pyvenv.cfg").read_text()
    assert planted is not protect, result.stdout + result.stderr
    assert ("not .git or .venv)" in result.stdout) is protect, result.stdout
    assert "python: " + str(work / ".venv" / "bin") in result.stdout, result.stdout


def test_only_a_virtualenv_inside_the_workspace_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV")
    work = project(tmp_path / "work")
    assert environment_inside(work, None) == (work / ".venv").resolve()
    assert environment_inside(work, "no-such-python-here") is None  # reported elsewhere
    outside = tmp_path / "outside"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(outside)], check=True)
    assert environment_inside(work, str(outside / "bin" / "python")) is None
    (work / ".venv").rename(work / "env")
    (work / ".venv").symlink_to(outside)  # writes through it land outside: confined anyway
    assert environment_inside(work, None) is None


def test_the_runs_programs_start_the_projects_python_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test command that is no `python ...` (`make test`, `sh -c "pytest"`) gets the
    project's virtualenv as if activated, as the run header says it runs."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.tools.registry import invoke
    from codur.workspace import Workspace

    monkeypatch.delenv("VIRTUAL_ENV")
    work = project(tmp_path / "work")
    config = load_config(work, overrides=["approval.mode=full-auto"], environ={}).config
    ctx = Session(config, Workspace(work), EventBus()).tool_context()
    shown = invoke(
        "run_command", {"command": "sh -c 'python -c \"import sys; print(sys.prefix)\"'"}, ctx
    )
    assert shown.ok and str(work / ".venv") in shown.output, shown.output
    assert ctx.activation()["VIRTUAL_ENV"] == str(work / ".venv")


@pytest.mark.skipif(NO_READ_ONLY is not None, reason=f"read-only: {NO_READ_ONLY}")
def test_git_runs_without_the_virtualenv_and_it_stays_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git, run with its folder writable to record, finds filter drivers and helpers on
    PATH: a helper planted in .venv/bin would have run there with .git writable."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    monkeypatch.delenv("VIRTUAL_ENV")
    work = project(tmp_path / "work")
    config = load_config(work, overrides=["approval.mode=full-auto"], environ={}).config
    ctx = Session(config, Workspace(work), EventBus()).tool_context()
    probe = ["sh", "-c", "echo v=$VIRTUAL_ENV; true > .venv/planted || echo refused"]
    run = ctx.run(probe, 30, git_writable=True)
    assert run.stdout.splitlines() == ["v=", "refused"], run.stdout + run.stderr
    assert not (work / ".venv" / "planted").exists()


def test_a_test_command_in_the_virtualenv_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check of the test command looked it up on Codur's PATH, while the run starts it
    with the virtualenv's bin first (tox, nox or a script installed there)."""
    monkeypatch.delenv("VIRTUAL_ENV")
    work = project(tmp_path / "work")
    runner = work / ".venv" / "bin" / "runtests"
    runner.write_text("#!/bin/sh\necho '1 passed in 0.01s'\n")
    runner.chmod(0o755)
    (work / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    args = ["--no-model", "-o", "verify.test_command=runtests", "check @calc.py"]
    done = run_cli(args, cwd=work)
    assert "not found on PATH" not in done.stderr and done.returncode != 2, done.stderr


def test_a_tools_python_that_names_none_does_not_stop_programs_that_need_none(
    tmp_path: Path,
) -> None:
    """git_status, rg and the like run without the project's Python: a wrong tools.python
    is said where an interpreter is needed, not by every program."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    work = project(tmp_path / "work")
    overrides = ["approval.mode=full-auto", "tools.python=no-such-python-here"]
    config = load_config(work, overrides=overrides, environ={}).config
    ctx = Session(config, Workspace(work), EventBus()).tool_context()
    assert ctx.activation() == {}
    assert ctx.run(["sh", "-c", "echo ran"], 30).stdout == "ran\n"
