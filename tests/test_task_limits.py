"""A task's length is capped (`runtime.max_task_chars`, exit code 2 above it), and every
pass over a task under the cap is linear: adversarial tasks (long runs of path
characters, of dots after an `@`, of words) go through the pre-plan at once. Real `codur`
processes and real folders; a subprocess's timeout guards against a pass that is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import buggy_folder, debug_log, run_cli

from codur.config.schema import RuntimeConfig
from codur.errors import ExitCode

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

CAP = RuntimeConfig().max_task_chars
GUARD_S = 60
"""The test's own bound on the pre-plan of one adversarial task at the cap (it took
minutes of CPU when a pattern backtracked over the whole task at each position)."""

ADVERSARIAL = {
    "letters": "a" * CAP,
    "word runs": "x_" * (CAP // 2),
    "dotted": "a." * (CAP // 2),
    "slashed": "a/" * (CAP // 2),
    "at then dots": "@" + "." * (CAP - 1),
    "refs": " @a" * (CAP // 3),
    "spaces": "fix" + " " * (CAP - 3),
    "backticks": "`a" * (CAP // 2),
    "calls": "print(" * (CAP // 6),
}

PRE_PLAN = """
import sys
from pathlib import Path
from codur.config import load_config
from codur.scope import decide_scope
from codur.task import code_mentions, file_mentions, file_refs, mentioned
from codur.verify.derived_checks import derived_checks
from codur.workspace import Workspace
root, task = Path(sys.argv[1]), sys.stdin.read()
cfg = load_config(root, environ={}, user_file=root / "none").config
refs = file_refs(task)
file_mentions(task)
mentioned(task, ["total", "main"])
code_mentions(task, ["total", "main", "a", "x_x"])
decide_scope(task, root, cfg.verify.expected_file, set(cfg.tools.ignore))
derived_checks(task, Workspace(root), refs, cfg.verify)
print("done")
"""


def test_a_task_over_the_cap_is_refused_before_anything_runs(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "work")
    task = "fix @main.py " + "a" * (120_000 - 13)  # 120 KB: minutes of CPU before
    result = run_cli(["--no-model", task], cwd=work, timeout=GUARD_S)
    assert result.returncode == ExitCode.USAGE
    assert result.stderr.strip().splitlines() == [
        f"codur: error: the task is 120,000 characters, over runtime.max_task_chars "
        f"({CAP:,}): put long text in a file and name it (@file)"
    ]
    assert not debug_log(work).exists()  # nothing ran
    question = run_cli(["ask", "-o", "runtime.max_task_chars=10", "what is main.py?"], work)
    assert question.returncode == ExitCode.USAGE
    assert "the question is 16 characters, over runtime.max_task_chars (10)" in question.stderr


@pytest.mark.parametrize("kind", list(ADVERSARIAL))
def test_an_adversarial_task_at_the_cap_is_read_at_once(tmp_path: Path, kind: str) -> None:
    work = buggy_folder(tmp_path / "work")
    task = ADVERSARIAL[kind]
    assert len(task) <= CAP
    done = subprocess.run(
        [sys.executable, "-c", PRE_PLAN, str(work)],
        input=task,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr[-2000:]


def test_a_word_too_long_for_a_file_name_is_no_file(tmp_path: Path) -> None:
    """A task naming a "file" longer than the system allows is read as words (it was a
    crash, exit 4: File name too long); as an `@` reference it is refused in one line."""
    work = buggy_folder(tmp_path / "work")
    flags = ["--no-model", "-o", "repair.enabled=false"]
    words = run_cli([*flags, "fix " + "a." * 200 + "py"], cwd=work)
    assert words.returncode == ExitCode.NOT_VERIFIED, words.stderr
    ref = run_cli([*flags, "fix @" + "b" * 300], cwd=work)
    assert ref.returncode == ExitCode.USAGE, ref.stderr
    [line] = ref.stderr.strip().splitlines()
    limit = os.pathconf(work, "PC_NAME_MAX")
    assert line.endswith(f"...: a name in it is longer than the system allows ({limit} bytes)")
