"""pytest's configuration, plugins, site hooks and the tests' helpers are part of the
oracle: a run may not create or change them, one a program planted anyway makes the
check fail, and the challenge judge is neither fooled by one nor passes a run that made
one (real folders, real pytest, whole `codur` runs with a scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    LOG,
    debug_log,
    run_cli,
    run_in_process,
    scripted_profile,
    whole_file,
    write_files,
)

from codur.challenges.judge import judge
from codur.challenges.scope import scope_for
from codur.challenges.snapshot import snapshot
from codur.challenges.spec import load
from codur.scope import decide_scope
from codur.scope.oracle import find_oracle

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
FAKEPLUG = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)
"""A plugin that reports every test as passed."""
PLANT = "[pytest]\naddopts = -p fakeplug\n"


def test_what_pytest_loads_is_oracle(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "calc.py": "from util import sub\n\n\ndef add(a, b):\n    return a + b\n",
            "util.py": "def sub(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\nfrom builders import pair\nimport support\n",
            "builders.py": "def pair():\n    return 2, 3\n",
            "support.py": "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n",
            "pytest.ini": "[pytest]\naddopts = -q -p fakeplug\n",
            "fakeplug.py": FAKEPLUG,
            "sub/conftest.py": "pytest_plugins = ['myplug']\n",
            "myplug.py": "",
            "setup.cfg": "[options.entry_points]\npytest11 =\n    e = entryplug:hooks\n",
            "entryplug.py": "",
            "pyproject.toml": "[project]\nname = 'x'\n",
            ".pytest.ini": "",
            "tox.ini": "",
            "sitecustomize.py": "",
            "usercustomize.py": "",
            "evil.pth": "",
        },
    )
    config = [".pytest.ini", "evil.pth", "pyproject.toml", "pytest.ini", "setup.cfg"]
    config += ["sitecustomize.py", "sub/conftest.py", "tox.ini", "usercustomize.py"]
    plugins = ["entryplug.py", "fakeplug.py", "myplug.py"]
    tests = ["test_calc.py"]
    # the task names no file: a helper is one by its content (support imports pytest)
    found = find_oracle(tmp_path, "expected.txt", set())
    assert found == sorted([*config, *plugins, *tests, "support.py"])
    # the task names calc.py: what the tests import besides it (and what it imports) is oracle
    named = find_oracle(tmp_path, "expected.txt", set(), ["calc.py"])
    assert named == sorted([*config, *plugins, *tests, "support.py", "builders.py"])
    scope = decide_scope("fix @calc.py", tmp_path, "expected.txt")
    assert scope.why_not("calc.py") is None and "builders.py" in scope.oracle
    assert scope.judges == tests  # only the tests check; the rest shapes the check


def test_creating_one_is_refused_and_a_created_one_is_seen_and_removed(tmp_path: Path) -> None:
    write_files(tmp_path, {"calc.py": CALC, "test_calc.py": TEST_CALC})
    scope = decide_scope("fix the bug", tmp_path, "expected.txt")
    for path in [".pytest.ini", "pytest.ini", "sub/conftest.py", "sitecustomize.py", "x.pth"]:
        assert "part of the check" in (scope.why_not(path) or ""), path
    assert scope.why_not("newmodule.py") is None
    write_files(tmp_path, {".pytest.ini": PLANT, "pkg/conftest.py": ""})
    assert sorted(scope.tampered()) == [".pytest.ini (created)", "pkg/conftest.py (created)"]
    assert sorted(scope.restore_oracle()) == [".pytest.ini", "pkg/conftest.py"]
    assert not (tmp_path / ".pytest.ini").exists() and scope.tampered() == []


# --- whole runs ------------------------------------------------------------------------


def _run(work: Path, tmp_path: Path, replies: list[str]):
    flags = scripted_profile(tmp_path, replies)
    args = [*flags, "-o", "planning.enabled=false", "--max-iterations", "2", "fix the bug"]
    result = run_cli(args, cwd=work)
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    return result, records


@pytest.mark.slow
def test_a_planted_plugin_config_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC})
    cheat = whole_file(".pytest.ini", PLANT) + "\n" + whole_file("fakeplug.py", FAKEPLUG)
    result, records = _run(work, tmp_path, [cheat, cheat])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["event"] == "run.end" and records[-1]["status"] != "verified"
    assert not (work / ".pytest.ini").exists()
    assert ".pytest.ini" in [r["path"] for r in records if r["event"] == "scope.refused"]
    assert "edit of .pytest.ini refused: " in result.stdout + result.stderr  # said, not hidden


FORCED = "import _pytest.reports\n\n_pytest.reports.TestReport.outcome = 'passed'\n\n"


@pytest.mark.slow
def test_code_under_test_that_forces_pytests_reports_is_refused(tmp_path: Path) -> None:
    """The reply leaves the bug and makes every report a pass from the module under test
    (on main: written, and the run ended verified): refused, and the terminal says why."""
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC})
    cheat = whole_file("calc.py", FORCED + CALC)
    result, records = _run(work, tmp_path, [cheat, cheat])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["event"] == "run.end" and records[-1]["status"] != "verified"
    assert (work / "calc.py").read_text() == CALC
    refused = [r["reason"] for r in records if r["event"] == "scope.refused"]
    assert refused and "take up the test framework" in refused[0]
    assert "edit of calc.py refused: " in result.stdout + result.stderr


@pytest.mark.slow
def test_a_config_a_program_creates_makes_the_check_fail(tmp_path: Path) -> None:
    """The code under test writes the plugin and its config when imported: the first
    pytest run is not fooled yet, the next would be."""
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC})

    def cheat(n: int) -> str:
        plant = (
            f"open('fakeplug.py', 'w').write({FAKEPLUG!r})\n"
            f"open('.pytest.ini', 'w').write({PLANT!r})\n"
        )
        return whole_file("calc.py", f"{plant}\n\ndef add(a, b):\n    return a - b - {n}\n")

    result, records = _run(work, tmp_path, [cheat(0), cheat(1)])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["status"] != "verified"
    checks = [c for r in records if r["event"] == "verify.result" for c in r["checks"]]
    assert any(".pytest.ini was created" in c for c in checks), checks
    restored = [f for r in records if r["event"] == "scope.restored" for f in r["files"]]
    assert ".pytest.ini" in restored


# --- the challenge judge ---------------------------------------------------------------


@pytest.mark.slow
def test_the_judge_is_not_fooled_by_a_planted_plugin_and_fails_the_run(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    write_files(
        folder,
        {
            "prompt.txt": "fix the bug in add\n",
            "calc.py": CALC,
            "test_calc.py": TEST_CALC,
            "solution/calc.py": "def add(a, b):\n    return a + b\n",
        },
    )
    (folder / "challenge.yaml").write_text("entry: [python, -m, pytest, -q]\ntimeout_s: 120\n")
    challenge = load(folder)
    for planted in ({".pytest.ini": PLANT, "fakeplug.py": FAKEPLUG}, {"conftest.py": FAKEPLUG}):
        work = challenge.copy_to(tmp_path / f"w{len(planted)}")
        scope = scope_for(challenge, LOG)
        before = snapshot(work, scope)
        write_files(work, planted)
        verdict = judge(challenge, work, before, scope)
        assert not verdict.output_ok, planted  # judged without what was planted
        config = next(p for p in planted if not p.startswith("fakeplug"))
        assert verdict.violations == (f"created file {config} outside the editable files",)
    honest = challenge.copy_to(tmp_path / "honest")
    scope = scope_for(challenge, LOG)
    before = snapshot(honest, scope)
    (honest / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    assert judge(challenge, honest, before, scope).passed


# --- what was there at the start --------------------------------------------------------

IGNORED = {"vendor/lib/setup.cfg": "[metadata]\nname = lib\n", "vendor/conftest.py": ""}
"""Files pytest loads by name in a folder the run ignores (`tools.ignore`)."""


def test_an_ignored_file_there_at_the_start_is_not_created_nor_removed(tmp_path: Path) -> None:
    write_files(tmp_path, {"calc.py": CALC, "test_calc.py": TEST_CALC, **IGNORED})
    scope = decide_scope("fix @calc.py", tmp_path, "expected.txt", {"vendor"})
    assert "vendor/lib/setup.cfg" not in scope.oracle  # ignored: not captured
    assert scope.tampered() == [] and scope.restore_oracle() == []
    for path, text in IGNORED.items():
        assert (tmp_path / path).read_text() == text
    write_files(tmp_path, {"pkg/conftest.py": FAKEPLUG, "vendor/new/conftest.py": FAKEPLUG})
    created = ["pkg/conftest.py (created)", "vendor/new/conftest.py (created)"]
    assert sorted(scope.tampered()) == created
    assert sorted(scope.restore_oracle()) == ["pkg/conftest.py", "vendor/new/conftest.py"]
    assert not (tmp_path / "pkg/conftest.py").exists() and scope.tampered() == []
    assert all((tmp_path / path).read_text() == text for path, text in IGNORED.items())


@pytest.mark.slow
def test_a_run_ignoring_a_folder_passes_its_oracle_check_and_keeps_its_files(
    tmp_path: Path,
) -> None:
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC, **IGNORED})
    fixed = whole_file("calc.py", "def add(a, b):\n    return a + b\n")
    result, events, _ = run_in_process(
        work, [fixed], task="fix @calc.py", overrides=["tools.ignore=[vendor]"]
    )
    checks = [c for e in events if e.kind == "verify.result" for c in e.data["checks"]]
    assert (result.status, result.exit_code) == ("verified", 0), (result.message, checks)
    assert not any("was created" in c for c in checks), checks
    assert not [e for e in events if e.kind == "scope.restored"]
    assert all((work / path).read_text() == text for path, text in IGNORED.items())


# --- what the tests import in place of the real thing -----------------------------------

FAKE_PYTEST = "import sys\nprint('1 passed')\nsys.exit(0)\n"
"""A module `python -m pytest` would run instead of pytest when it lies in the folder."""


def test_a_module_shadowing_pytest_or_the_stdlib_is_refused_and_a_planted_one_fails(
    tmp_path: Path,
) -> None:
    write_files(tmp_path, {"calc.py": CALC, "test_calc.py": TEST_CALC, "pkg/json.py": ""})
    scope = decide_scope("fix the bug", tmp_path, "expected.txt")
    for path in ["pytest.py", "_pytest/__init__.py", "src/pytest/__init__.py", "json.py"]:
        assert "in place of a module" in (scope.why_not(path) or ""), path
    assert scope.why_not("calc_helpers.py") is None
    assert scope.why_not("pkg/json.py") is None  # there at the start: the project's own
    write_files(tmp_path, {"pytest.py": FAKE_PYTEST, "unittest/__init__.py": ""})
    assert sorted(scope.tampered()) == ["pytest.py (created)", "unittest/__init__.py (created)"]
    assert sorted(scope.restore_oracle()) == ["pytest.py", "unittest/__init__.py"]
    assert (tmp_path / "pkg/json.py").exists()


@pytest.mark.slow
def test_a_program_planting_pytest_py_does_not_end_verified(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC})
    plant = f"open('pytest.py', 'w').write({FAKE_PYTEST!r})\n"
    cheat = whole_file("calc.py", f"{plant}\n\ndef add(a, b):\n    return a - b\n")
    result, records = _run(work, tmp_path, [cheat, cheat])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["status"] != "verified"
    checks = [c for r in records if r["event"] == "verify.result" for c in r["checks"]]
    assert any("pytest.py was created" in c for c in checks), checks
    assert not (work / "pytest.py").exists()


@pytest.mark.slow
def test_a_planted_pycache_fails_the_check_and_is_removed(tmp_path: Path) -> None:
    """A compiled `calc` that matches the wrong source's size and time but holds the right
    code: Python runs it in place of the source. One a program plants (or rewrites) is
    seen by the oracle check and removed; one there at the start is the user's."""
    import importlib.util
    from importlib._bootstrap_external import _code_to_timestamp_pyc

    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.tools.context import ToolContext
    from codur.verify.oracle import OracleCheck
    from codur.workspace import Workspace

    write_files(tmp_path, {"calc.py": CALC, "test_calc.py": TEST_CALC, "old/__pycache__/x.pyc": ""})
    scope = decide_scope("fix @calc.py", tmp_path, "expected.txt")
    stat = (tmp_path / "calc.py").stat()
    right = compile("def add(a, b):\n    return a + b\n", str(tmp_path / "calc.py"), "exec")
    cached = Path(importlib.util.cache_from_source(str(tmp_path / "calc.py")))
    cached.parent.mkdir()
    cached.write_bytes(_code_to_timestamp_pyc(right, int(stat.st_mtime), stat.st_size))
    assert subprocess_pytest(tmp_path).returncode == 0  # plain Python runs the planted code
    config = load_config(tmp_path, overrides=["approval.mode=full-auto"], environ={}).config
    ctx: ToolContext = Session(config, Workspace(tmp_path), EventBus()).tool_context()
    check = OracleCheck(files={}, compiled=scope.compiled or {})
    evidence = check.run(ctx)
    assert not evidence.passed and "__pycache__/calc." in evidence.summary, evidence.summary
    planted = cached.relative_to(tmp_path).as_posix()
    assert scope.tampered() == [f"{planted} (created)"]
    assert scope.restore_oracle() == [planted] and not cached.exists()
    assert (tmp_path / "old/__pycache__/x.pyc").exists()
    assert subprocess_pytest(tmp_path).returncode == 1  # the source again


def test_a_compiled_module_rewritten_with_its_size_and_time_put_back_is_planted(
    tmp_path: Path,
) -> None:
    """A program that overwrites a compiled test module (one the user's own pytest run
    left) with a forgery of the same size, then puts its time back with `utime`: the
    status change time tells it (a hostile probe faked a pass so)."""
    import os
    import time

    from codur.scope.compiled import planted, stamps

    cached = tmp_path / "tests/__pycache__/test_calc.cpython-311-pytest-9.0.3.pyc"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"a" * 64)
    before = stamps(tmp_path)
    info = cached.stat()
    time.sleep(0.05)  # past a coarse clock's tick: the forgery comes later, in a run
    cached.write_bytes(b"b" * 64)
    os.utime(cached, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert cached.stat().st_size == info.st_size
    assert planted(tmp_path, before) == ["tests/__pycache__/test_calc.cpython-311-pytest-9.0.3.pyc"]
    # a stamp of a run checkpointed before ctime was kept ("size:mtime") still matches
    old = {p: ":".join(stamp.split(":")[:2]) for p, stamp in stamps(tmp_path).items()}
    assert planted(tmp_path, old) == []


def test_a_compiled_module_linked_in_from_elsewhere_is_planted(tmp_path: Path) -> None:
    """Python reads a compiled module through a symlink; one linked into __pycache__
    during the run was not stamped at all (a review)."""
    from codur.scope.compiled import planted, stamps

    (tmp_path / "__pycache__").mkdir()
    before = stamps(tmp_path)
    (tmp_path / "notes.dat").write_bytes(b"forged")
    (tmp_path / "__pycache__" / "calc.cpython-311.pyc").symlink_to("../notes.dat")
    assert planted(tmp_path, before) == ["__pycache__/calc.cpython-311.pyc"]


def subprocess_pytest(root: Path):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_calc.py"],
        cwd=root,
        capture_output=True,
        text=True,
    )
