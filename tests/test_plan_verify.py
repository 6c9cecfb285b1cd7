"""plan_verify mode: planner -> agent <-> tools -> verifier -> END | replan.
Whole-graph runs with a scripted model, real files, real tools and real checks; the
verdicts stay honest: a model's VERIFIED alone is `done`, never `verified`, and a check
that fails outranks it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import BUGGY, FIXED, WRONG, buggy_folder, run_in_process, tool_calls, whole_file

UTIL = "def double(x):\n    return x + x\n"
DOCUMENTED = 'def double(x):\n    """Twice x."""\n    return x + x\n'
TASK = "add a docstring to @util.py"
NO_TEST = "No test needed."  # the model gives no test: nothing checks behaviour
STEPS = ["Read util.py", "Add a docstring to double", "Check that util.py still parses"]
PLAN = "\n".join(f"{n}. {step}" for n, step in enumerate(STEPS, 1))


def verdict(word: str, *reasons: str) -> str:
    return json.dumps({"verdict": word, "reasons": list(reasons)})


def util_folder(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "util.py").write_text(UTIL)
    return root


def kinds(events: list[Any], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in events if e.kind == kind and e.data.get("by") != "verify"]


def requests(events: list[Any]) -> list[list[dict[str, Any]]]:
    return [e.data["messages"] for e in events if e.kind == "model.request"]


def said(messages: list[dict[str, Any]]) -> str:
    """The text of a model request's messages."""
    return "\n".join(str(m["content"]) for m in messages)


def nodes(events: list[Any]) -> list[str]:
    return [d["node"] for d in kinds(events, "node.start")]


ADD_DOCSTRING = tool_calls(("replace_in_file", {"path": "util.py", "old": UTIL, "new": DOCUMENTED}))


def test_no_check_todo_tool_completion_verified_is_done(tmp_path: Path) -> None:
    root = util_folder(tmp_path)
    todo = [
        {"text": "Read util.py", "status": "done"},
        {"text": "Add a docstring to double", "status": "in_progress"},
    ]
    replies = [
        NO_TEST,
        PLAN,
        tool_calls(("todo_write", {"items": todo})),
        ADD_DOCSTRING,
        tool_calls(("attempt_completion", {"result": "Added a docstring to double."})),
        verdict("VERIFIED", "double has a docstring"),
    ]
    result, events, _ = run_in_process(root, replies, task=TASK)
    assert (root / "util.py").read_text() == DOCUMENTED
    # only the model judged changed code: unverified, exit 1, and the check says so
    assert (result.status, result.exit_code) == ("unverified", 1), result.message
    assert result.message == (
        "model verifier: VERIFIED — double has a docstring; "
        "no check ran on the changed code (util.py)"
    )
    assert result.check.startswith("model verifier: VERIFIED — double has a docstring")
    assert result.final_response == "Added a docstring to double."
    assert (result.plan_iteration, result.verifier_verdict) == (1, "VERIFIED")
    assert result.verifier_reasons == ["double has a docstring"]
    assert result.plan == STEPS
    assert result.todos == todo
    assert nodes(events)[5:] == [
        "review",
        "planner",
        "prepare",
        "agent",
        "tools",
        "agent",
        "tools",
        "agent",
        "tools",
        "finish",
        "verify",
        "review",
        "verifier",
        "review",
    ]
    # the planner seeded the todo list; todo_write changed it; both were announced
    updates = [[i["status"] for i in d["items"]] for d in kinds(events, "todo.updated")]
    assert updates == [["pending"] * 3, ["done", "in_progress"]]
    assert kinds(events, "verifier.verdict") == [
        {"verdict": "VERIFIED", "reasons": ["double has a docstring"], "plan_iteration": 1}
    ]
    # the agent was offered the todo tools and attempt_completion, with the plan
    agent = [e.data for e in events if e.kind == "model.request"][2]
    assert {"todo_write", "todo_read", "attempt_completion"} <= set(agent["tools"])
    assert "Plan 1, to work through step by step:\n1. Read util.py" in said(agent["messages"])
    # the verifier read the trace: the calls, the todo list and the diff
    judged = requests(events)[-1][0]["content"]
    assert "call replace_in_file(" in judged and "[~] Add a docstring to double" in judged
    assert '+    """Twice x."""' in judged and "Added a docstring to double." in judged
    end = result.end_record()
    assert end["plan_iteration"] == 1 and end["verifier_verdict"] == "VERIFIED"


def test_not_verified_replans_and_the_second_plan_is_verified(tmp_path: Path) -> None:
    root = util_folder(tmp_path)
    replies = [
        NO_TEST,
        "1. Add a docstring to double",
        tool_calls(("attempt_completion", {"result": "Nothing needed doing."})),
        verdict("NOT_VERIFIED", "util.py was not changed", "double has no docstring"),
        "1. Add a one-line docstring to double with replace_in_file",
        ADD_DOCSTRING,
        tool_calls(("attempt_completion", {"result": "Added the docstring."})),
        verdict("VERIFIED", "double has a docstring now"),
    ]
    result, events, _ = run_in_process(root, replies, task=TASK)
    assert (result.status, result.exit_code, result.plan_iteration) == ("unverified", 1, 2)
    assert result.plan == ["Add a one-line docstring to double with replace_in_file"]
    assert [(d["verdict"], d["plan_iteration"]) for d in kinds(events, "verifier.verdict")] == [
        ("NOT_VERIFIED", 1),
        ("VERIFIED", 2),
    ]
    replan = requests(events)[4][0]["content"]  # the replan prompt carried the reasons
    assert "- util.py was not changed\n- double has no docstring" in replan
    assert "Plan 1 (not accepted):\n1. Add a docstring to double" in replan
    assert "call attempt_completion(" in replan  # and the trace of what was done
    second = said(requests(events)[5])
    assert "Plan 2, to work through step by step" in second
    assert "not accepted: util.py was not changed; double has no docstring" in second
    assert [d["plan_iteration"] for d in kinds(events, "plan.steps")] == [1, 2]
    assert nodes(events).count("replan") == 1 and nodes(events).count("planner") == 1


def test_the_plan_cap_ends_unverified_with_the_verifiers_reasons(tmp_path: Path) -> None:
    root = util_folder(tmp_path)
    done = tool_calls(("attempt_completion", {"result": "Done."}))
    replies = [
        NO_TEST,
        "1. Add a docstring",
        done,
        verdict("NOT_VERIFIED", "no docstring was added"),
        "1. Add a docstring, really",
        done,
        verdict("NOT_VERIFIED", "still no docstring"),
    ]
    flags = ["planning.max_plan_iterations=2"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    assert (result.status, result.exit_code) == ("unverified", 1)
    assert result.message == "model verifier: NOT_VERIFIED — still no docstring"
    assert result.plan_iteration == 2 and result.verifier_verdict == "NOT_VERIFIED"
    assert nodes(events).count("replan") == 1 and result.model_calls == len(replies)


def test_a_reply_without_tool_calls_gets_a_reminder_and_the_loop_cap_is_a_limit(
    tmp_path: Path,
) -> None:
    root = util_folder(tmp_path)
    replies = [NO_TEST, "1. Add a docstring", "I added it.", "Really, it is done."]
    flags = ["planning.max_agent_rounds=2"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    assert (result.status, result.exit_code) == ("limit", 1), result.message
    assert "attempt_completion" in result.message
    assert [d["round"] for d in kinds(events, "agent.reminded")] == [0]
    last = requests(events)[-1]  # the agent's second call: its reply, then the reminder
    assert last[-2]["content"] == "I added it."
    assert "call attempt_completion(result)" in last[-1]["content"]
    assert not kinds(events, "verifier.verdict")  # nothing was completed: nothing judged


def test_an_agent_without_tools_completes_with_its_applied_reply(tmp_path: Path) -> None:
    """The embedded model's profiles run the agent without tools (one reply with edits):
    the applied reply is its completion, judged like one."""
    root = util_folder(tmp_path)
    replies = [
        NO_TEST,
        "1. Add a docstring to double",
        whole_file("util.py", DOCUMENTED),
        "VERIFIED: double has a docstring",
    ]
    flags = ["llm.profiles.s.agent_tools=false"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    assert (result.status, result.exit_code) == ("unverified", 1), result.message
    assert (root / "util.py").read_text() == DOCUMENTED
    agent = [e.data for e in events if e.kind == "model.request"][2]
    assert agent["tools"] == [] and "COMPLETE corrected file" in said(agent["messages"])
    assert "Plan 1, to work through step by step" in said(agent["messages"])
    assert nodes(events)[-7:] == [
        "prepare", "agent", "finish", "verify", "review", "verifier", "review"
    ]  # fmt: skip


def test_an_unreadable_verdict_is_not_verified(tmp_path: Path) -> None:
    root = util_folder(tmp_path)
    done = tool_calls(("attempt_completion", {"result": "Done."}))
    replies = [NO_TEST, "1. Add a docstring", done, "Looks fine to me!"]
    flags = ["planning.max_plan_iterations=1"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    assert (result.status, result.exit_code) == ("unverified", 1)
    assert "the verifier's reply could not be read" in result.message


def test_a_failing_check_outranks_the_model_verifier(tmp_path: Path) -> None:
    """With expected output, plan_verify mode still runs the check after the completion:
    a failing one replans (the model verifier is not even asked), and `verified` needs it
    to pass; the verifier's VERIFIED alone never passes it."""
    root = buggy_folder(tmp_path / "work")
    wrong = tool_calls(("write_file", {"path": "main.py", "content": WRONG}))
    done = tool_calls(("attempt_completion", {"result": "Fixed the loop."}))
    replies = [
        "1. Fix the loop bound in total",  # no test asked: expected.txt is the check
        wrong,
        done,
        verdict("VERIFIED", "the loop is fixed"),  # left unused: the check failed first
    ]
    flags = ["planning.mode=plan_verify", "planning.max_plan_iterations=1"]
    result, events, _ = run_in_process(root, replies, task="fix @main.py", overrides=flags)
    assert (result.status, result.exit_code) == ("unverified", 1)
    assert result.message.startswith("the check still fails after 1 plan(s)")
    assert not kinds(events, "verifier.verdict") and result.model_calls == 3
    assert result.verifier_verdict == ""

    again = buggy_folder(tmp_path / "again")
    fixed = tool_calls(("write_file", {"path": "main.py", "content": FIXED}))
    replies = [
        "1. Fix the loop bound in total",
        wrong,
        done,
        "1. Sum every element: range(len(xs))",
        fixed,
        done,
        verdict("VERIFIED", "total sums every element"),
    ]
    flags = ["planning.mode=plan_verify"]
    result, events, _ = run_in_process(again, replies, task="fix @main.py", overrides=flags)
    assert (result.status, result.exit_code, result.plan_iteration) == ("verified", 0, 2)
    assert result.check.startswith("python main.py") and result.check.endswith(
        "model verifier: VERIFIED — total sums every element"
    )
    replan = requests(events)[3][0]["content"]  # the check's failure was the reason
    assert "Actual output:\n```\n3\n```" in replan
    assert (again / "main.py").read_text() == FIXED


def test_check_mode_keeps_the_check_driven_loop(tmp_path: Path) -> None:
    root = util_folder(tmp_path)
    replies = [NO_TEST, whole_file("util.py", DOCUMENTED)]
    flags = ["planning.mode=check"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    assert (result.status, result.exit_code) == ("unverified", 1)
    assert result.message.startswith("no check")
    assert "planner" not in nodes(events) and result.plan_iteration == 0


@pytest.mark.parametrize("mode", ["auto", "plan_verify"])
def test_a_task_with_a_check_in_auto_mode_does_not_plan(tmp_path: Path, mode: str) -> None:
    root = buggy_folder(tmp_path / "work")
    if mode == "auto":
        result, events, _ = run_in_process(root, [whole_file("main.py", FIXED)])
        assert result.status == "verified" and "planner" not in nodes(events)
    else:
        replies = ["1. Fix total", "Thinking."]
        flags = ["planning.mode=plan_verify", "planning.max_agent_rounds=1"]
        result, events, _ = run_in_process(root, replies, overrides=flags)
        assert "planner" in nodes(events) and result.status == "limit"
        assert (root / "main.py").read_text() == BUGGY


@pytest.mark.parametrize("mode", ["auto", "plan_verify"])
def test_a_plain_pyproject_is_no_check_and_the_run_plans(tmp_path: Path, mode: str) -> None:
    root = util_folder(tmp_path)
    (root / "pyproject.toml").write_text("[project]\nname = 'util'\nversion = '0.1'\n")
    replies = [
        NO_TEST,
        PLAN,
        ADD_DOCSTRING,
        tool_calls(("attempt_completion", {"result": "Added a docstring to double."})),
        verdict("VERIFIED", "double has a docstring"),
    ]
    flags = [f"planning.mode={mode}"]
    result, events, _ = run_in_process(root, replies, task=TASK, overrides=flags)
    # pyproject.toml is protected (pytest reads it) but checks nothing: the plan is judged
    # by the model verifier once, as in a folder without it
    assert (result.status, result.exit_code) == ("unverified", 1), result.message
    assert (result.plan_iteration, result.verifier_verdict) == (1, "VERIFIED")
    assert nodes(events).count("planner") == 1 and "replan" not in nodes(events)
    assert (root / "util.py").read_text() == DOCUMENTED
    assert (root / "pyproject.toml").read_text().startswith("[project]")
