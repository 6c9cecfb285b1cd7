"""plan_verify mode end to end: the real `codur` CLI in a real git repository, with the
scripted model; the todo list shown live, the verdict in the summary and the end record;
its state checkpointed and resumed after the model was lost mid-run."""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import debug_log, run_cli, scripted_profile, tool_calls
from test_plan_verify import DOCUMENTED, NO_TEST, PLAN, STEPS, TASK, UTIL, verdict

from codur.errors import ExitCode

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

TODO = [{"text": step, "status": "done"} for step in STEPS]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def repo(root: Path) -> Path:
    """A git repository holding util.py, committed."""
    root.mkdir()
    (root / "util.py").write_text(UTIL)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Codur Test")
    git(root, "config", "user.email", "codur@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "util.py")
    git(root, "commit", "-q", "-m", "util")
    return root


def records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def edit(content: str) -> dict:
    return tool_calls(("write_file", {"path": "util.py", "content": content}))


def done(result: str) -> dict:
    return tool_calls(("attempt_completion", {"result": result}))


def test_the_cli_runs_the_plan_and_shows_the_todo_list_and_the_verdict(tmp_path: Path) -> None:
    work = repo(tmp_path / "work")
    head = git(work, "rev-parse", "HEAD")
    replies = [
        NO_TEST,
        PLAN,
        tool_calls(("todo_write", {"items": TODO})),
        edit(DOCUMENTED),
        done("Added a docstring to double."),
        verdict("VERIFIED", "double has a docstring"),
    ]
    run = run_cli([*scripted_profile(tmp_path, replies), TASK], cwd=work)
    assert run.returncode == 1, run.stdout + run.stderr  # the model's word only: exit 1
    out = run.stdout
    assert "todo 0/3: [ ] Read util.py | [ ] Add a docstring to double | [ ] Check" in out
    assert "todo 3/3: [x] Read util.py | [x] Add a docstring to double | [x] Check" in out
    assert "verifier (plan 1): VERIFIED - double has a docstring" in out
    assert "model verifier: VERIFIED — double has a docstring; no check ran" in out
    assert "checked by: model verifier: VERIFIED — double has a docstring" in out
    assert (work / "util.py").read_text() == DOCUMENTED
    assert git(work, "rev-parse", "HEAD") == head  # the branch was never moved
    assert git(work, "status", "--porcelain", "util.py").startswith(" M")
    log = records(work)
    end = next(r for r in log if r["event"] == "run.end")
    assert (end["status"], end["exit_code"], end["plan_iteration"]) == ("unverified", 1, 1)
    assert end["verifier_verdict"] == "VERIFIED" and end["todos"] == TODO
    assert end["verifier_reasons"] == ["double has a docstring"] and end["plan"] == STEPS
    kinds = [r["event"] for r in log]
    assert kinds.count("todo.updated") == 2 and kinds.count("verifier.verdict") == 1


def test_the_plan_state_is_checkpointed_and_a_lost_model_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The model is lost after the verifier's NOT_VERIFIED (the script runs out at the
    replan): the checkpoint holds the plan, its iteration, the todo list and the verdict,
    typed; `codur resume` goes on from the replan to the second plan's verdict."""
    from codur.graph.checkpoint import last_checkpoint, serializer
    from codur.planning.verdict import VerifierVerdict
    from codur.tools.todo import TodoItem

    caplog.set_level(logging.WARNING)
    work = repo(tmp_path / "work")
    first = [
        NO_TEST,
        "1. Add a docstring to double",
        tool_calls(("todo_write", {"items": [{"text": "Add a docstring", "status": "done"}]})),
        done("Nothing needed doing."),
        verdict("NOT_VERIFIED", "util.py was not changed"),
    ]
    flags = scripted_profile(tmp_path, first)
    gone = run_cli([*flags, TASK], cwd=work)
    assert gone.returncode == ExitCode.MODEL_UNREACHABLE, gone.stdout + gone.stderr
    run_id = next(r["run_id"] for r in records(work) if r["event"] == "run.start")

    saved = last_checkpoint(work, run_id)
    assert saved is not None and saved.next == ("replan",)
    values = saved.values
    assert values["plan"] == ["Add a docstring to double"] and values["plan_iteration"] == 1
    assert values["todos"] == [TodoItem("Add a docstring", "done")]
    assert values["verifier_verdict"] == VerifierVerdict(
        "NOT_VERIFIED", ("util.py was not changed",), 1
    )
    assert values["replan_reasons"] == ["util.py was not changed"]
    serde = serializer()  # revived and saved again, the same
    assert serde.loads_typed(serde.dumps_typed(values)) == values
    assert not [r for r in caplog.records if r.name.startswith("langgraph")]

    script = Path(next(f.split("=", 1)[1] for f in flags if f.startswith("llm.profiles.s.script")))
    more = ["1. Write util.py with a docstring", edit(DOCUMENTED), done("Added the docstring.")]
    script.write_text(yaml.safe_dump([*first, *more, verdict("VERIFIED", "it has one")]))
    resumed = run_cli(["resume", run_id], cwd=work)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert (work / "util.py").read_text() == DOCUMENTED
    end = [r for r in records(work) if r["event"] == "run.end"][-1]
    assert (end["status"], end["plan_iteration"], end["verifier_verdict"]) == (
        "unverified",
        2,
        "VERIFIED",
    )
    assert end["model_calls"] == 9
