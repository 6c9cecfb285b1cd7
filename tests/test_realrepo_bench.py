"""The real-repository benchmark's generator and judge (bench/realrepo) on a tiny package
made here: no network, no pip. The package's "venv" is a venv without pip that sees this
interpreter's site-packages (pytest), as the cached package venvs see their own."""

from __future__ import annotations

import ast
import difflib
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

REALREPO = Path(__file__).resolve().parent.parent / "bench" / "realrepo"
sys.path[:0] = [str(REALREPO), str(REALREPO.parent)]

from mutate import candidates  # noqa: E402
from packages import Package, copy_sources, layered_env, site_packages  # noqa: E402
from suite import clean_failing, hash_tests, judge  # noqa: E402
from validate import Workbench  # noqa: E402

CORE = """\
def grade(score, passing=50):
    if score < 0 or score > 100:
        raise ValueError("score out of range")
    if score >= passing:
        label = "pass"
    elif score >= passing - 10:
        label = "close"
    else:
        label = "fail"
    return label


def first_word(text, sep=" "):
    if text and not text.isspace():
        return text.strip().split(sep)[0]
    return ""


def total(items, start=0):
    result = start
    for item in items:
        result += item
    return result
"""
TESTS = """\
import pytest
from tiny.core import first_word, grade, total


def test_pass():
    assert grade(70) == "pass"


def test_close():
    assert grade(45) == "close"


def test_fail():
    assert grade(10) == "fail"


def test_out_of_range():
    with pytest.raises(ValueError):
        grade(101)


def test_first_word():
    assert first_word("  hello world") == "hello"


def test_blank():
    assert first_word("   ") == ""


def test_total():
    assert total([1, 2], start=3) == 6
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Package, Path]:
    cache = tmp_path_factory.mktemp("cache")
    package = Package("tiny", "0.1", ".", ("tiny",), ("tests",), ())
    src = package.src(cache)
    (src / "tiny").mkdir(parents=True)
    (src / "tests").mkdir()
    (src / "tiny" / "__init__.py").write_text("")
    (src / "tiny" / "core.py").write_text(CORE)
    (src / "tests" / "test_core.py").write_text(TESTS)
    venv = package.venv(cache)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    here = Path(pytest.__file__).resolve().parent.parent
    (site_packages(venv) / "host.pth").write_text(f"import site; site.addsitedir({str(here)!r})\n")
    (venv / "ready").write_text("")
    return package, cache


def test_every_kind_is_made_and_compiles() -> None:
    found = list(candidates(CORE))
    kinds = {m.kind for m in found}
    assert {
        "removed_condition",
        "dropped_not",
        "swapped_elif_bodies",
        "wrong_default",
        "dropped_statement",
    } <= kinds
    for mutation in found:
        mutated = mutation.apply(CORE)
        assert mutated != CORE
        ast.parse(mutated)
    swapped = next(m for m in found if m.kind == "swapped_elif_bodies").apply(CORE)
    assert 'if score >= passing:\n        label = "close"' in swapped
    dropped = next(m for m in found if m.kind == "dropped_not").apply(CORE)
    assert "if text and text.isspace():" in dropped


@pytest.mark.slow
def test_validation_keeps_a_bug_failing_few_tests_and_rejects_the_rest(tiny) -> None:
    package, cache = tiny
    bench = Workbench.open(package, cache, measure=False)
    assert bench.baseline.passing() and not bench.baseline.failing()
    by_kind = {m.kind: m for m in candidates(CORE)}
    swapped = bench.check({"tiny/core.py": by_kind["swapped_elif_bodies"].apply(CORE)})
    assert swapped["valid"], swapped["why"]
    assert swapped["failing"] == ["tests/test_core.py::test_close", "tests/test_core.py::test_pass"]
    assert swapped["records"]["tests/test_core.py::test_pass"]["statement"] == (
        'assert grade(70) == "pass"'
    )
    harmless = CORE.replace('raise ValueError("score out of range")', "raise ValueError()")
    assert bench.check({"tiny/core.py": harmless})["why"] == "no test fails"
    broken = CORE.replace(
        "def grade(score, passing=50):", "1 / 0\n\n\ndef grade(score, passing=50):"
    )
    assert bench.check({"tiny/core.py": broken})["valid"] is False  # no module: every test
    # the cache answers a repeated candidate without running the suite again
    cached = bench.check({"tiny/core.py": by_kind["swapped_elif_bodies"].apply(CORE)})
    assert cached == swapped
    assert (bench.copy / "tiny" / "core.py").read_text() == CORE


@pytest.mark.slow
def test_generate_writes_validated_bugs_with_both_task_styles(tiny, tmp_path: Path) -> None:
    package, cache = tiny
    spec = {"packages": [{**package.__dict__, "sources": ["tiny"], "tests": ["tests"]}]}
    spec["packages"][0]["deps"] = []
    (tmp_path / "packages.yaml").write_text(yaml.safe_dump(spec))
    out = tmp_path / "bugs.yaml"
    done = subprocess.run(
        [sys.executable, str(REALREPO / "generate.py"), "--cache", str(cache), "--no-coverage"]
        + ["--packages-file", str(tmp_path / "packages.yaml"), "--out", str(out)]
        + ["--per-package", "2", "--history", str(tmp_path / "none.yaml")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    bugs = yaml.safe_load(out.read_text())["bugs"]
    assert [b["task_style"] for b in bugs] == ["named", "symptom"]
    assert all(1 <= len(b["failing"]) <= 10 for b in bugs)
    assert bugs[0]["failing"][0] in bugs[0]["task"]
    assert "tests/" not in bugs[1]["task"] and "In tiny 0.1" in bugs[1]["task"]


@pytest.mark.slow
def test_the_judge_passes_the_clean_copy_and_fails_a_bug_or_a_changed_test(
    tiny, tmp_path: Path
) -> None:
    package, cache = tiny
    copy = copy_sources(package, cache, tmp_path / "repo")
    python = layered_env(package, cache, copy, tmp_path / "env")
    before = hash_tests(copy, package)
    assert list(before) == ["tests/test_core.py"]
    assert judge(python, package, copy, before, 300).passed
    core = copy / "tiny" / "core.py"
    core.write_text(CORE.replace('label = "close"', 'label = "near"'))
    failed = judge(python, package, copy, before, 300)
    assert not failed.passed and failed.failing == ("tests/test_core.py::test_close",)
    core.write_text(CORE)
    test_file = copy / "tests" / "test_core.py"
    test_file.write_text(TESTS.replace('== "close"', '== "near"'))
    changed = judge(python, package, copy, before, 300)
    assert not changed.passed and changed.changed_tests == ("tests/test_core.py",)


@pytest.mark.slow
def test_a_test_failing_on_the_clean_sources_in_the_same_folder_is_not_counted(
    tiny, tmp_path: Path
) -> None:
    """A test that depends on the folder (it fails wherever the copy lies here) fails with
    or without the bug: the judge does not blame the run for it, and still counts the
    bug's own failing test."""
    package, cache = tiny
    buggy_core = CORE.replace('label = "close"', 'label = "near"')
    bug = "".join(
        difflib.unified_diff(
            CORE.splitlines(True), buggy_core.splitlines(True), "a/tiny/core.py", "b/tiny/core.py"
        )
    )
    where = "import os\n\n\ndef test_where():\n    assert 'repo' not in os.getcwd()\n"

    def buggy(name: str) -> tuple[Path, Path]:
        copy = copy_sources(package, cache, tmp_path / name / "repo")
        (copy / "tests" / "test_where.py").write_text(where)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
        subprocess.run([*git, "init", "-q"], cwd=copy, check=True)
        subprocess.run([*git, "apply", "-"], cwd=copy, input=bug, text=True, check=True)
        subprocess.run([*git, "add", "-A"], cwd=copy, check=True)
        subprocess.run([*git, "commit", "-qm", "bug"], cwd=copy, check=True)
        return copy, layered_env(package, cache, copy, tmp_path / name / "env")

    copy, python = buggy("a")
    before = hash_tests(copy, package)
    unfixed = judge(python, package, copy, before, 300)
    assert set(unfixed.failing) == {
        "tests/test_core.py::test_close",
        "tests/test_where.py::test_where",
    }
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=copy, capture_output=True, text=True)
    clean = clean_failing(python, package, copy, head.stdout.strip(), bug, unfixed.failing, 300)
    assert clean == {"tests/test_where.py::test_where"}
    counted = unfixed.excusing(clean)
    assert not counted.passed and counted.failing == ("tests/test_core.py::test_close",)
    assert counted.excused == ("tests/test_where.py::test_where",)

    copy, python = buggy("b")
    before = hash_tests(copy, package)
    (copy / "tiny" / "core.py").write_text(CORE)  # the fix
    fixed = judge(python, package, copy, before, 300)
    assert not fixed.passed and fixed.failing == ("tests/test_where.py::test_where",)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=copy, capture_output=True, text=True)
    clean = clean_failing(python, package, copy, head.stdout.strip(), bug, fixed.failing, 300)
    assert fixed.excusing(clean).passed
    # the bug's own failing tests are never excused; nor is a suite that ran nothing
    assert not fixed.excusing(clean, never=fixed.failing).passed
    assert not replace(fixed, ran=False).excusing(clean).passed
