"""With no expected output and no tests, the static checks run the scripts the task names:
an uncaught exception fails them (real processes); a script waiting for input, still
running at the limit, or exiting with an error of its own is not judged. A run asked to
fix a crashing script no longer ends `done` (exit 0) when nothing changed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import run_cli, scripted_profile, watched_context

from codur.config.schema import VerifyConfig
from codur.process import run_process
from codur.verify.agent import choose_checks
from codur.verify.crash import uncaught
from codur.verify.plan import StaticCheck

CRASH = 'def price(x):\n    return "$" + x * 1.2\n\n\nprint(price(10))\n'


def _run(tmp_path: Path, code: str, timeout_s: float = 10.0) -> str:
    (tmp_path / "script.py").write_text(code)
    command = [sys.executable, "script.py"]
    return uncaught(run_process(command, tmp_path, timeout_s, 100_000, stdin=""))


def test_an_uncaught_exception_is_reported_with_its_traceback(tmp_path: Path) -> None:
    report = _run(tmp_path, CRASH)
    assert report.startswith("Traceback (most recent call last):")
    assert report.endswith('TypeError: can only concatenate str (not "float") to str')


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("print('fine')\n", "exit code 0"),
        ("name = input('name? ')\nprint(name)\n", "waits for input: EOFError on closed stdin"),
        ("import sys\nprint('usage: script.py FILE', file=sys.stderr)\nsys.exit(2)\n", "own error"),
        ("import time\ntime.sleep(30)\n", "still running at the limit"),
        ("import sys\n\npath = sys.argv[1]\nprint(path)\n", "wants an argument"),
        ("import os\n\nprint(os.environ['API_TOKEN'])\n", "wants an environment variable"),
        ("from .core import add\n\nprint(add(1, 2))\n", "a package's module: ImportError"),
        ("open('/etc/codur-no-such-file').read()\n", "the sandbox or the machine: OSError"),
        ("import socket\n\nsocket.create_connection(('127.0.0.1', 9))\n", "no server there"),
    ],
)
def test_what_is_not_judged(tmp_path: Path, code: str, why: str) -> None:
    assert _run(tmp_path, code, timeout_s=1.0) == "", why


@pytest.mark.slow
def test_fix_a_crashing_script_that_nothing_changed_is_not_done(tmp_path: Path) -> None:
    """`fix @main.py` on a script that crashes, no expected output, no tests: the model's
    reply changes nothing, so the crash is still there and the run says so (exit 1),
    where it ended `done` with exit 0 on syntax and imports alone."""
    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(CRASH)
    replies = ["The @main decorator is not used in main.py, so there is nothing to remove."]
    flags = scripted_profile(tmp_path, replies * 4)
    done = run_cli([*flags, "--max-llm-calls", "2", "fix @main.py"], cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "main.py run without an uncaught exception" in done.stdout
    assert (root / "main.py").read_text() == CRASH
    off = run_cli([*flags, "-o", "verify.script_run_s=0", "--no-model", "fix @main.py"], root)
    assert "run without an uncaught exception" not in off.stdout


def test_only_scripts_the_task_names_are_run(tmp_path: Path) -> None:
    """A script the run wrote or changed (the model's, say) is checked for syntax, never
    started by a check the user did not ask for; one the task names is run."""
    (tmp_path / "main.py").write_text("print('hi')\n")
    (tmp_path / "util.py").write_text("open('PWNED', 'w').write('x')\n")
    ctx, _ = watched_context(tmp_path)
    plan = choose_checks(ctx, VerifyConfig(), ["main.py"], ["util.py"])
    static = next(c for c in plan.checks if isinstance(c, StaticCheck))
    assert static.files == ["util.py", "main.py"] and static.scripts == ["main.py"]
    assert static.run(ctx).passed
    assert not (tmp_path / "PWNED").exists()
