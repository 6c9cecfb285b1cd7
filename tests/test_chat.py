"""`codur chat` as a user sees it: the real process on a pseudo-terminal (prompt_toolkit
draws the prompt), a scripted model, real files and a real undo. Lines are typed, the
screen is read, and the files and the debug log are checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, ROOT, buggy_folder, debug_log, scripted_profile, whole_file
from terminal import WAIT_S, Terminal

from codur.memory.store import project_file, user_file

PROMPT = "codur>"
"""The prompt as the screen shows it (prompt_toolkit moves the cursor past its space)."""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return buggy_folder(tmp_path / "w")


def requests(work: Path) -> list[list[dict]]:
    """The messages of every model request in the debug log, in order."""
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    return [r["messages"] for r in records if r["event"] == "model.request"]


@pytest.mark.slow
def test_chat_session_on_a_terminal(work: Path, tmp_path: Path) -> None:
    script = [
        whole_file("main.py", FIXED),  # the first task's coder
        json.dumps({"kind": "unclear", "confidence": 0.3}),  # the second task: pre-plan
        json.dumps({"action": "preference", "preference": "use pytest style"}),  # plan
    ]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # no cursor position query to answer
    }
    term = Terminal(scripted_profile(tmp_path, script), work, env)  # `codur` alone: a chat

    def step(line: str, last: str) -> str:
        """Type `line` at the prompt; the screen up to `last` (its output's last words)."""
        term.expect(PROMPT)
        term.type(line)
        return term.expect(last)

    term.expect("a task a line")
    step("/profile always add type hints", "kept as a project preference")

    shown = step("fix @main.py", "debug log:")
    assert "-    for i in range(len(xs) - 1):" in shown and "verified" in shown
    assert (work / "main.py").read_text() == FIXED

    shown = step("from now on use pytest style", "debug log:")
    assert "kept as a project preference: use pytest style" in shown
    assert "model calls: 2" in shown  # the script went on: the model loaded once

    shown = step("/memory", "node log (node-log)")
    assert "always add type hints" in shown and "use pytest style" in shown

    shown = step("/diff", "+    for i in range(len(xs)):")
    assert "(fix @main.py): 1 file(s) changed" in shown

    step("/bogus", "unknown command /bogus")
    step("/undo", "undid run")
    assert (work / "main.py").read_text() == BUGGY

    term.expect(PROMPT)
    term.type("/exit")
    assert term.close() == 0

    coder, pre_plan, planner = requests(work)
    assert "- always add type hints" in coder[0]["content"]  # /profile reached the coder
    assert "Earlier in this chat session" not in coder[0]["content"]  # the first task
    said = planner[1]["content"]  # the second task's planner is told about the first
    assert "Earlier in this chat session" in said and "task: fix @main.py" in said
    assert "ended: verified" in said and "changed: main.py" in said
    assert "Files read in this session and unchanged since: main.py" in said  # as fixed
    assert "Changed on disk since they were read (read them again): (none)" in said
    assert pre_plan[-1]["content"] == "from now on use pytest style"
    kept = json.loads(project_file(work).read_text())["preferences"]
    assert [p["text"] for p in kept] == ["always add type hints", "use pytest style"]


@pytest.mark.slow
def test_chat_reads_piped_lines_and_a_failing_line_does_not_end_it(
    work: Path, tmp_path: Path
) -> None:
    flags = scripted_profile(tmp_path, [])
    done = subprocess.run(
        [sys.executable, "-m", "codur", "chat", *flags],
        input="fix @missing.py\n/profile\n/profile --user\n/profile --user answer tersely\n"
        "/help\n/exit\n",
        capture_output=True,
        text=True,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    assert "@missing.py: no such file" in done.stderr
    assert done.stderr.count("/profile needs the preference") == 2  # --user alone too
    memory = project_file(work)
    kept = json.loads(memory.read_text())["preferences"] if memory.exists() else []
    assert kept == []  # "--user" was not kept as a project preference
    assert "/undo" in done.stdout and "/memory" in done.stdout  # the help
    assert "kept as a user preference" in done.stdout
    assert json.loads(user_file().read_text())["preferences"][0]["text"] == "answer tersely"
    assert (work / "main.py").read_text() == BUGGY
    # the session's exit code is its last line's: a script piping tasks can tell (a probe's
    # report: a refused last task exited 0)
    refused = subprocess.run(
        [sys.executable, "-m", "codur", "chat", *flags],
        input="/help\nfix @missing.py\n/diff\n/profile\n",  # a refused command counts too
        capture_output=True,
        text=True,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT_S,
    )
    assert refused.returncode == 2, refused.stderr


def test_codur_alone_without_a_terminal_prints_help(work: Path) -> None:
    done = subprocess.run(  # stdin is no terminal: no prompt waits for a line
        [sys.executable, "-m", "codur"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT_S,
    )
    shown = done.stdout + done.stderr
    assert "Usage:" in shown and "chat " in shown and "codur> " not in shown


@pytest.mark.slow
def test_chat_at_its_prompt_ends_on_sigterm_and_goes_on_after_ctrl_c(work: Path) -> None:
    """A probe's find: at the prompt, SIGTERM and SIGHUP were taken for a Ctrl-C (which
    clears the line), so `kill` and `timeout` could not stop an idle session. Now they
    end it (143, 129); Ctrl-C still clears the line, and the next one does too."""
    import signal
    import time

    def chat() -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "codur", "chat"], cwd=work, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert proc.stdout is not None and "codur chat in" in proc.stdout.readline()
        time.sleep(0.5)  # at the prompt, reading
        return proc

    for signum in (signal.SIGTERM, signal.SIGHUP):
        proc = chat()
        proc.send_signal(signum)
        assert proc.wait(timeout=WAIT_S) == 128 + signum
        proc.stdin.close()  # type: ignore[union-attr]
    proc = chat()
    for _ in range(2):
        proc.send_signal(signal.SIGINT)
        time.sleep(0.3)
    out, _ = proc.communicate("/help\n/exit\n", timeout=WAIT_S)
    assert proc.returncode == 0 and "/undo" in out, out
