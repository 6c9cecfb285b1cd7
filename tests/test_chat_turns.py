"""What a `codur chat` session carries between its lines, and what `codur ask` leaves in
the node log: the real CLI with lines piped in, a scripted model, real files. A question
in a chat is answered by the ask graph (the explain route); a follow-up question must
see the earlier turns, and a file a tool read counts as read, as an `@file` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BUGGY, ROOT, buggy_folder, debug_log, run_cli, scripted_profile, tool_calls

from codur.memory.store import project_file

QUESTION = "what does total in main.py return?"
ANSWER = "It returns 6 for [1, 2, 3, 4]: the loop stops one short (`main.py:3`)."
FIRST_TURN = [
    json.dumps(["Read main.py"]),  # the ask planner
    tool_calls(("read_file", {"path": "main.py"})),  # the executor reads the file
    "total skips the last item (main.py:3).",  # the executor's summary
    json.dumps({"decision": "FINISH", "reason": "the loop is found"}),  # refinery
    ANSWER,  # synthesizer
]
"""The replies of a question whose research reads main.py through read_file."""
RESEARCH = ["-o", "ask.direct_answer=false"]
"""The scripts above are of the ask graph's research loop, which a well-covered question
skips (one answer call)."""


def chat(work: Path, tmp_path: Path, script: list, lines: list[str]) -> str:
    """`codur chat` with `lines` piped in (then /exit); its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "codur", "chat", *scripted_profile(tmp_path, script), *RESEARCH],
        input="\n".join([*lines, "/exit"]) + "\n",
        capture_output=True,
        text=True,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def requests(work: Path) -> list[list[dict]]:
    """The messages of every model request in the debug log, in order."""
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    return [r["messages"] for r in records if r["event"] == "model.request"]


@pytest.mark.slow
def test_a_follow_up_question_in_chat_sees_the_earlier_turns(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    second = [
        json.dumps(["Look at the range in main.py"]),
        "range(len(xs) - 1) leaves out the last index.",
        json.dumps({"decision": "FINISH", "reason": "enough"}),
        "Because `range(len(xs) - 1)` stops before the last index (`main.py:3`).",
    ]
    shown = chat(work, tmp_path, FIRST_TURN + second, [QUESTION, "why is that?"])
    assert "It returns 6" in shown and "stops before the last index" in shown
    asked = requests(work)
    assert len(asked) == len(FIRST_TURN) + len(second)
    first_planner, second_planner = asked[0], asked[len(FIRST_TURN)]
    assert "Earlier in this chat session" not in first_planner[-1]["content"]
    said = second_planner[-1]["content"]  # the follow-up's planner is told the first turn
    assert "Earlier in this chat session" in said
    assert f"task: {QUESTION}" in said and "reply: It returns 6 for [1, 2, 3, 4]" in said
    assert said.rstrip().endswith("why is that?")
    synthesizer = asked[-1][-1]["content"]  # the answer is written knowing it too
    assert f"task: {QUESTION}" in synthesizer
    assert (work / "main.py").read_text() == BUGGY


@pytest.mark.slow
def test_a_file_read_through_a_tool_counts_as_read_in_the_session(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    second = [
        json.dumps({"kind": "unclear", "confidence": 0.3}),  # pre-plan
        json.dumps({"action": "preference", "preference": "use pytest style"}),  # plan
    ]
    chat(work, tmp_path, FIRST_TURN + second, [QUESTION, "from now on use pytest style"])
    said = requests(work)[-1][1]["content"]  # the second task's planner
    assert "Files read in this session and unchanged since: main.py" in said
    assert "Changed on disk since they were read (read them again): (none)" in said


@pytest.mark.slow
def test_codur_ask_runs_appear_in_the_node_log(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    flags = scripted_profile(tmp_path, FIRST_TURN) + RESEARCH
    done = run_cli(["ask", *flags, QUESTION], work, timeout=600)
    assert done.returncode == 0, done.stderr
    log = json.loads(project_file(work).read_text())["node_log"]
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    run_id = records[0]["run_id"]
    assert records[0]["event"] == "ask.start"
    assert [r["node"] for r in log] == [
        "retrieve", "planner", "setup_executor", "executor_llm", "tool_node", "executor_llm",
        "aggregate", "refinery", "synthesizer",
    ]  # fmt: skip
    assert {r["run_id"] for r in log} == {run_id}
    shown = run_cli(["memory", "show"], work)
    assert shown.returncode == 0, shown.stderr
    assert "node log (node-log): 9 records" in shown.stdout
    assert f"run {run_id}: synthesizer" in shown.stdout
