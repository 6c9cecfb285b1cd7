"""The project's Python (codur/project): which interpreter is found, in order; a real
venv holding the project's dependency runs the tests; an interpreter without pytest
stops the run before anything runs; a site hook planted in the venv fails the check.
Everything through the real CLI, with real venvs (`python -m venv`) and a scripted model."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import debug_log, run_cli, scripted_profile, whole_file, write_files

from codur.errors import ConfigError

PROJECT_ENV = 12
"""The exit code of a run whose check the project's Python cannot run (ExitCode.PROJECT_ENV)."""

BUGGY = "from tinydep import scale\n\n\ndef total(xs):\n    return scale(sum(xs[:-1]))\n"
FIXED = BUGGY.replace("xs[:-1]", "xs")
TEST = (
    "import tinydep\nfrom calc import total\n\n\n"
    "def test_total():\n    assert total([1, 2, 3]) == tinydep.scale(6)\n"
)


SLOW = 600
"""Seconds a run may take: each starts real interpreters (a shared machine can be slow)."""
PATIENT = ["-o", "tools.run_timeout_s=300", "-o", "verify.timeout_s=300"]
"""Timeouts of the probe and the checks for a machine that is busy with other work."""


@pytest.fixture(autouse=True)
def _no_activated_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests choose the project's Python themselves (conftest pins Codur's)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("UV_PROJECT_ENVIRONMENT", raising=False)
    monkeypatch.delenv("HATCH_ENV_TYPE_VIRTUAL_PATH", raising=False)


def make_venv(where: Path, with_pytest: bool) -> Path:
    """A real venv at `where` (no pip); its site-packages. `with_pytest`: pytest (the
    tests' own installation) reachable there through a .pth file."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python3*/site-packages"))
    if with_pytest:
        (site / "tests_pytest.pth").write_text(str(Path(pytest.__file__).parent.parent) + "\n")
    return site


def project(root: Path, with_pytest: bool = True) -> Path:
    """A project whose code and tests import `tinydep`, which only its .venv holds."""
    root.mkdir()
    site = make_venv(root / ".venv", with_pytest)
    (site / "tinydep.py").write_text("def scale(x):\n    return 10 * x\n")
    write_files(root, {"calc.py": BUGGY, "tests/test_calc.py": TEST})
    return site


def events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_a_project_venv_holding_the_tests_dependency_runs_them_and_the_fix_is_verified(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    project(root)
    flags = scripted_profile(tmp_path, [whole_file("calc.py", FIXED)])
    done = run_cli([*flags, *PATIENT, "--json", "fix the total in @calc.py"], root, timeout=SLOW)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    seen = events(done.stdout)
    python = next(e for e in seen if e["event"] == "interpreter")
    assert python["path"] == str(root / ".venv" / "bin" / "python")
    assert (python["source"], python["where"]) == ("venv", f".venv in {root}")
    assert python["pytest"] and python["version"]
    assert seen[-1]["status"] == "verified"
    assert (root / "calc.py").read_text() == FIXED
    assert "python: " + str(root / ".venv/bin/python") in done.stderr  # the run's first line


@pytest.mark.slow
def test_an_interpreter_without_pytest_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    project(root, with_pytest=False)
    flags = scripted_profile(tmp_path, [])  # a model call would fail: the script is empty
    done = run_cli([*flags, *PATIENT, "fix the total in @calc.py"], cwd=root, timeout=SLOW)
    python = root / ".venv" / "bin" / "python"
    assert done.returncode == PROJECT_ENV, done.stdout + done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("codur: error:")]
    assert error == [
        "codur: error: the check (pytest tests) needs pytest, which the project's "
        f"Python {python} (.venv in {root}) does not have: install it with `{python} -m "
        f"ensurepip && {python} -m pip install pytest`, or set tools.python to an interpreter "
        "that has it"  # its venv was made --without-pip: pip comes first
    ]
    log = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    kinds = [r["event"] for r in log]
    assert "model.request" not in kinds and "verify.run" not in kinds  # nothing ran
    assert (root / "calc.py").read_text() == BUGGY
    runs = run_cli(["runs", "--json"], cwd=root)  # listed for what stopped it, not bad input
    assert [r["status"] for r in json.loads(runs.stdout)] == ["unrunnable"]


@pytest.mark.slow
def test_a_site_hook_a_test_plants_in_the_venv_fails_the_check_and_is_removed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    site = project(root)
    planted = site / "zz_planted.pth"
    plant = f"\n\ndef test_plants():\n    open({str(planted)!r}, 'w').write('import os\\n')\n"
    (root / "tests" / "test_calc.py").write_text(TEST + plant)
    flags = scripted_profile(tmp_path, [whole_file("calc.py", FIXED)])
    # the venv writable, as where no sandbox can keep it read-only (test_sandbox_env.py)
    writable = ["-o", "sandbox.protect_env=false"]
    args = [*flags, *PATIENT, *writable, "-o", "runtime.max_iterations=1", "--json", "fix @calc.py"]
    done = run_cli(args, cwd=root, timeout=SLOW)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr
    seen = events(done.stdout)
    results = [e for e in seen if e["event"] == "verify.result"]
    assert any(f"{planted} was created" in check for check in results[-1]["checks"])
    assert not planted.exists()  # removed: the venv as the run found it
    restored = [e for e in seen if e["event"] == "scope.restored"]
    assert restored and planted.relative_to(root).as_posix() in restored[0]["files"]


# --- the order in which the interpreter is found (files on disk; nothing runs) ---------


def test_exit_code_12_is_the_project_s_python() -> None:
    from codur.errors import ExitCode

    assert ExitCode.PROJECT_ENV == PROJECT_ENV


def fake_python(env: Path) -> Path:
    """An executable named like a venv's interpreter (locate only looks)."""
    path = env / "bin" / "python"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_interpreter_is_found_in_order(tmp_path: Path) -> None:
    from codur.project.interpreter import OWN, locate

    repo = tmp_path / "repo"
    folder = repo / "pkg" / "sub"
    folder.mkdir(parents=True)
    (repo / ".git").mkdir()
    bare = {"PATH": str(tmp_path / "nothing")}
    assert locate(folder, None, bare).source == OWN  # nothing at all: Codur's own
    python3 = tmp_path / "bin" / "python3"
    python3.parent.mkdir()
    python3.write_text("#!/bin/sh\n")
    python3.chmod(0o755)
    path_env = {"PATH": str(python3.parent)}
    assert (locate(folder, None, path_env).path, locate(folder, None, path_env).source) == (
        str(python3),
        "path",
    )
    outside = fake_python(tmp_path / ".venv")  # above the repository: not the project's
    assert locate(folder, None, path_env).path == str(python3) != str(outside)
    top = fake_python(repo / ".venv")
    assert (locate(folder, None, path_env).path, locate(folder, None, path_env).source) == (
        str(top),
        "venv",
    )
    near = fake_python(repo / "pkg" / "venv")
    assert locate(folder, None, path_env).path == str(near)  # the nearest first
    active = fake_python(tmp_path / "active")
    with_venv = {**path_env, "VIRTUAL_ENV": str(tmp_path / "active")}
    chosen = locate(folder, None, with_venv)  # the activated one, saying what it outranks
    assert chosen.path == str(active) and chosen.passed_over.startswith(f"venv in {repo / 'pkg'}")
    mine = locate(folder, None, {**path_env, "VIRTUAL_ENV": str(repo / "pkg" / "venv")})
    assert mine.path == str(near) and mine.passed_over == ""  # it is the folder's own
    assert locate(folder, str(python3), with_venv).source == "tools.python"
    gone = {**path_env, "VIRTUAL_ENV": str(tmp_path / "gone")}
    passed = locate(folder, None, gone)  # said, not silently skipped
    assert passed.path == str(near) and passed.passed_over.startswith(f"$VIRTUAL_ENV={tmp_path}")
    with pytest.raises(ConfigError, match="key 'tools.python': ./nope is no interpreter here"):
        locate(folder, "./nope", with_venv)


def test_a_project_manager_environment_is_found_on_disk(tmp_path: Path) -> None:
    from codur.project.envs import _poetry_env_name
    from codur.project.interpreter import locate

    root = tmp_path / "proj"
    root.mkdir()
    none = {"PATH": str(tmp_path / "nothing")}
    (root / "pyproject.toml").write_text('[tool.poetry]\nname = "My App"\n')
    store = tmp_path / "poetry-envs"
    poetry = fake_python(store / f"{_poetry_env_name('My App', root)}-py3.12")
    found = locate(root, None, {**none, "POETRY_VIRTUALENVS_PATH": str(store)})
    assert (found.path, found.source) == (str(poetry), "poetry")
    (root / "pyproject.toml").write_text('[tool.hatch.envs.default]\npath = "envs/dev"\n')
    hatch = fake_python(root / "envs" / "dev")
    assert (locate(root, None, none).path, locate(root, None, none).source) == (str(hatch), "hatch")
    uv = fake_python(root / "uvenv")
    found = locate(root, None, {**none, "UV_PROJECT_ENVIRONMENT": "uvenv"})
    assert (found.path, found.source) == (str(uv), "uv")


@pytest.mark.slow
def test_codur_s_own_interpreter_comes_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "main.py").write_text("print(1)\n")
    (folder / "expected.txt").write_text("1\n")
    no_python3 = tmp_path / "bin"
    no_python3.mkdir()
    for tool in ("git", "bwrap"):  # what a run may look for on PATH, but no python3
        if (found := shutil.which(tool)) is not None:
            (no_python3 / tool).symlink_to(found)
    env = {"PATH": str(no_python3)}
    done = run_cli(["--no-model", *PATIENT, "--json", "fix @main.py"], folder, env, timeout=SLOW)
    python = next(e for e in events(done.stdout) if e["event"] == "interpreter")
    assert (python["source"], python["path"]) == ("codur", sys.executable)
    assert "no project Python found" in done.stderr and sys.executable in done.stderr


@pytest.mark.slow
def test_a_tools_python_that_is_none_names_where_it_was_set(tmp_path: Path) -> None:
    """`tools.python` in the folder's trusted codur.yaml names no interpreter: the run
    stops with one line naming the file and line, exit 2, before anything runs; doctor
    says so and reports the rest (on main: no file named, and doctor stopped there)."""
    root = tmp_path / "proj"
    write_files(root, {"main.py": "print(1)\n", "expected.txt": "1\n"})
    config = "runtime:\n  max_iterations: 3\ntools:\n  python: /no/such/python\n"
    (root / "codur.yaml").write_text(config)
    assert run_cli(["trust"], root).returncode == 0
    done = run_cli(["--no-model", *PATIENT, "fix @main.py"], root, timeout=SLOW)
    assert done.returncode == 2, done.stdout + done.stderr
    where = f"{root / 'codur.yaml'}:4"
    assert f"codur: error: {where}: key 'tools.python': /no/such/python is no interpreter" in (
        done.stderr
    )
    doctor = run_cli(["doctor", "--no-model", *PATIENT], root, timeout=SLOW)
    lines = doctor.stdout.splitlines()
    assert lines[0].startswith("problem: key 'tools.python': /no/such/python"), doctor.stdout
    assert "check: not known: no project Python to run it" in lines
    assert any(line.startswith("sandbox: ") for line in lines)


@pytest.mark.slow
def test_pytest_rejecting_its_own_command_line_stops_the_run(tmp_path: Path) -> None:
    """An addopts option no installed plugin knows (`--cov` without pytest-cov): no edit can
    make that pass; before, the repair search ran for its whole budget and the run said it
    found no fix."""
    (tmp_path / "stats.py").write_text("def total(xs):\n    return sum(xs[:-1])\n")
    test = "from stats import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
    (tmp_path / "test_stats.py").write_text(test)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--no-such-option"\n'
    )
    done = run_cli(["--no-model", "test_stats.py::test_total fails, fix it"], cwd=tmp_path)
    assert done.returncode == PROJECT_ENV, done.stdout + done.stderr
    assert "unrecognized arguments: --no-such-option" in done.stderr
    log = [json.loads(line) for line in debug_log(tmp_path).read_text().splitlines()]
    assert "repair.start" not in [r["event"] for r in log]


OLD_PYTHONS = {v: Path(f"/root/.pyenv/versions/{v}/bin/python") for v in ("2.7.18", "3.7.16")}


@pytest.mark.parametrize("version", sorted(OLD_PYTHONS))
def test_an_old_python_is_probed_and_python_2_is_named(tmp_path: Path, version: str) -> None:
    """Python 3.7 has no importlib.metadata: the probe took it for one that does not run;
    Python 2 is named as such, not as a failing program."""
    from codur.project.interpreter import Located, probe
    from codur.sandbox import Sandbox

    python = OLD_PYTHONS[version]
    if not python.is_file():
        pytest.skip(f"no Python {version} on this machine")
    found = probe(Located(str(python), "tools.python", "tools.python"), tmp_path, Sandbox(), 30)
    if version.startswith("2."):
        assert (
            not found.version and found.problem == f"it is Python {version}; Codur needs Python 3"
        )
    else:
        assert (found.version, found.problem) == (version, ""), found


def test_a_broken_venv_is_named_when_passed_over(tmp_path: Path) -> None:
    """A `.venv` whose python links to a Python since removed was passed over in silence,
    and the run went on with another interpreter."""
    from codur.project.interpreter import locate

    folder = tmp_path / "proj"
    make_venv(folder / ".venv", with_pytest=False)
    (folder / ".venv" / "bin" / "python").unlink()
    (folder / ".venv" / "bin" / "python3").unlink()
    (folder / ".venv" / "bin" / "python").symlink_to(tmp_path / "removed" / "python3")
    found = locate(folder, None, {"PATH": os.defpath})
    assert found.path != str(folder / ".venv" / "bin" / "python")
    assert found.passed_over.startswith(f".venv in {folder} holds no Python that runs")


def test_a_wrapper_named_as_tools_python_is_kept(tmp_path: Path) -> None:
    """A wrapper script that sets the environment and execs a Python is run as given, not
    replaced by the interpreter it starts (its PYTHONPATH was lost)."""
    from codur.project.interpreter import Located, probe
    from codur.sandbox import Sandbox

    wrapper = tmp_path / "pywrap.sh"
    wrapper.write_text(f'#!/bin/sh\nexport PYTHONPATH=/deps\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    found = probe(Located(str(wrapper), "tools.python", "tools.python"), tmp_path, Sandbox(), 30)
    assert found.path == str(wrapper) and found.version, found


@pytest.mark.slow
@pytest.mark.parametrize("broken", ["plugin", "pytest"])
def test_a_pytest_that_cannot_start_stops_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    """A plugin `-p` names that is not installed, or a pytest missing a dependency of its
    own (pluggy): a probe's runs searched for a fix against a pytest that never started,
    then said the search found none (exit 1)."""
    root = tmp_path / "proj"
    site = project(root)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    if broken == "plugin":
        (root / "pytest.ini").write_text("[pytest]\naddopts = -p pytest_no_such_plugin\n")
    else:  # pytest reachable, pluggy hidden behind a module that fails as a missing one
        (site / "pluggy.py").write_text("raise ModuleNotFoundError(\"No module named 'pluggy'\")\n")
    done = run_cli(["--no-model", "tests/test_calc.py::test_add fails, fix it"], cwd=root)
    assert done.returncode == PROJECT_ENV, done.stdout + done.stderr
    said = "pytest_no_such_plugin, which its Python" if broken == "plugin" else "does not import"
    assert said in done.stderr, done.stderr
