"""Whole-graph runs with a scripted model, real files and real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import BUGGY, FIXED, WRONG, run_in_process, whole_file

from codur.config import load_config
from codur.events import Event, EventBus
from codur.graph.build import build_graph
from codur.run import RunResult, run_task
from codur.session import Session
from codur.workspace import Workspace

PLAN = json.dumps({"action": "delegate", "agent": "agent:coder", "reasoning": "a code fix"})


class Run:
    """One in-process run: its result, its events, and the workspace."""

    def __init__(
        self,
        tmp_path: Path,
        responses: list[Any],
        task: str = "fix @main.py",
        files: dict[str, str | bytes] | None = None,
        overrides: list[str] = (),
    ) -> None:
        self.root = tmp_path / "work"
        self.root.mkdir()
        for name, text in (
            files if files is not None else {"main.py": BUGGY, "expected.txt": "10\n"}
        ).items():
            target = self.root / name
            target.write_bytes(text) if isinstance(text, bytes) else target.write_text(text)
        script = tmp_path / "script.yaml"
        script.write_text(yaml.safe_dump(responses, sort_keys=False))
        flags = [
            "llm.profiles.s.provider=scripted",
            f"llm.profiles.s.script={script}",
            "llm.default_profile=s",
            "agents.configs.reviewer.description=Reviews code",  # two agents: a real choice
            "repair.enabled=false",  # the model's part is tested here; repair in test_repair_*
            "sampling.candidates=0",  # one reply per attempt; sampling in test_attempts.py
            "crosscheck.candidates=0",  # a change that passed ends it; tests/test_crosscheck.py
            *overrides,
        ]
        config = load_config(self.root, overrides=flags, environ={}).config
        self.events: list[Event] = []
        bus = EventBus()
        bus.subscribe(self.events.append)
        self.session = Session(config, Workspace(self.root), bus)
        self.result: RunResult = run_task(self.session, task)

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        """Events of `kind`, leaving out the verification agent's own tool calls."""
        return [e.data for e in self.events if e.kind == kind and e.data.get("by") != "verify"]

    @property
    def nodes(self) -> list[str]:
        return [d["node"] for d in self.kinds("node.start")]


def test_fixed_on_the_first_try(tmp_path: Path) -> None:
    run = Run(tmp_path, [PLAN, whole_file("main.py", FIXED)])
    assert run.result.status == "verified" and run.result.exit_code == 0
    assert (run.root / "main.py").read_text() == FIXED
    assert run.nodes == [
        "textual_pre_plan",
        "llm_pre_plan",
        "llm_plan",
        "delegate",
        "verify",  # the one verification path: the files are checked before the agent runs
        "review",
        "prepare",  # execute: its subgraph, the agent loop (one reply without tool calls)
        "agent",
        "finish",
        "verify",
        "review",
    ]
    assert run.result.model_calls == 2 and run.result.files_changed == ["main.py"]
    assert "+    for i in range(len(xs)):" in run.result.diff
    # the coder saw the failing check before its first edit
    coder_request = run.kinds("model.request")[1]
    assert "Actual output:\n```\n6\n```" in coder_request["messages"][1]["content"]


def test_fails_verification_then_fixed_on_retry(tmp_path: Path) -> None:
    run = Run(tmp_path, [PLAN, whole_file("main.py", WRONG), whole_file("main.py", FIXED)])
    assert run.result.status == "verified" and run.result.iterations == 2
    retry = run.kinds("model.request")[2]
    assert len(retry["messages"]) == 2  # a fresh prompt, not a replay of its own reply
    prompt = retry["messages"][-1]["content"]
    assert "Expected output:\n```\n10\n```" in prompt and "Actual output:\n```\n3\n```" in prompt
    assert "- changed main.py; the check still failed: output line 1 is '3'" in prompt
    # the retry goes from review straight back to the agent: phase 0 and planning run once
    retry_path = ["review", "delegate", "prepare", "agent", "finish", "verify", "review"]
    assert run.nodes[run.nodes.index("finish") + 2 :] == retry_path
    assert run.nodes.count("llm_plan") == 1 and run.nodes.count("textual_pre_plan") == 1


def test_a_retry_with_replan_on_retry_goes_straight_to_planning(tmp_path: Path) -> None:
    replies = [PLAN, whole_file("main.py", WRONG), PLAN, whole_file("main.py", FIXED)]
    run = Run(tmp_path, replies, overrides=["planning.replan_on_retry=true"])
    assert run.result.status == "verified" and run.result.iterations == 2
    first_review = run.nodes.index("finish") + 2
    assert run.nodes[first_review : first_review + 3] == ["review", "llm_plan", "delegate"]
    assert run.nodes.count("textual_pre_plan") == 1 and run.nodes.count("llm_plan") == 2


def test_output_stated_only_in_the_task_is_checked(tmp_path: Path) -> None:
    """Issue 12: no expected.txt, no tests; the task says what the output should be (a
    derived check: `checked`, issue 39)."""
    replies = [PLAN, whole_file("main.py", WRONG), whole_file("main.py", FIXED)]
    task = "fix @main.py: the output should be 10"
    run = Run(tmp_path, replies, task=task, files={"main.py": BUGGY})
    assert run.result.status == "checked" and run.result.iterations == 2
    assert run.result.evidence.description == "checked against the output stated in the task"
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "compared with the output stated in the task" in retry
    assert "Expected output:\n```\n10\n```" in retry
    assert sorted(p.name for p in run.root.iterdir()) == ["main.py"]


def test_a_claim_about_a_call_is_checked_and_its_file_shown(tmp_path: Path) -> None:
    task = "total([1, 2, 3, 4]) should return 10"  # no file named: the claim's file is shown
    pre_plan = json.dumps({"kind": "code_change", "confidence": 0.9})
    replies = [pre_plan, PLAN, whole_file("main.py", FIXED)]
    run = Run(tmp_path, replies, task=task, files={"main.py": BUGGY})
    assert run.result.status == "checked" and run.result.exit_code == 10
    first = "\n".join(str(m["content"]) for m in run.kinds("model.request")[2]["messages"])
    assert "total([1, 2, 3, 4]) should return 10 (stated in the task): got 6" in first
    assert "for i in range(len(xs) - 1):" in first


def test_a_task_naming_a_file_without_at_skips_the_classification(tmp_path: Path) -> None:
    """`main.py prints the wrong total` names a workspace file: a code task, so no
    classification call is spent on it (the first reply goes to the planner)."""
    run = Run(tmp_path, [PLAN, whole_file("main.py", FIXED)], task="main.py prints 6: fix it")
    assert run.result.status == "verified" and run.result.model_calls == 2
    assert "llm_plan" in run.nodes


def test_an_imperative_the_classifier_calls_a_question_is_still_done(tmp_path: Path) -> None:
    """A small model may call "fix the bug" a question; only a request phrased as a
    question is answered in place of being done, so the run goes on to the change."""
    question = {"kind": "question", "confidence": 0.9, "response": "The user asks for a fix."}
    replies = [json.dumps(question), PLAN, whole_file("main.py", FIXED)]
    run = Run(tmp_path, replies, task="the total is one short: fix the bug")
    assert run.result.status == "verified" and run.result.exit_code == 0
    assert run.result.final_response != question["response"]


def test_stuck_when_the_same_failure_comes_back(tmp_path: Path) -> None:
    same = WRONG.replace("range(len(xs) - 2)", "range(0, len(xs) - 2)")
    run = Run(tmp_path, [PLAN, whole_file("main.py", WRONG), whole_file("main.py", same)])
    assert run.result.status == "stuck" and run.result.exit_code == 1
    assert run.result.model_calls == 3


@pytest.mark.slow
def test_repair_search_fixes_what_the_model_did_not(tmp_path: Path) -> None:
    after_model = ["repair.enabled=true", "repair.before_first_attempt=false"]
    run = Run(tmp_path, [PLAN, whole_file("main.py", WRONG)], overrides=after_model)
    assert run.result.status == "verified" and run.result.exit_code == 0
    assert (run.root / "main.py").read_text() == FIXED
    assert run.nodes[-6:] == ["finish", "verify", "review", "repair", "verify", "review"]
    assert run.result.model_calls == 2  # the planner and one coder attempt: no retry call
    end = run.kinds("repair.end")[0]
    assert end["reason"] == "repaired" and "+    for i in range(len(xs)):" in end["diff"]
    assert [w["by"] for w in run.kinds("file.write")] == ["coder", "repair"]
    assert {c["passed"] for c in run.kinds("repair.candidate")} == {True, False}


def test_repair_before_the_first_model_call(tmp_path: Path) -> None:
    busy = ["repair.enabled=true", "repair.first_budget_s=60"]  # time on a busy machine
    run = Run(tmp_path, [PLAN], overrides=busy)
    assert run.result.status == "verified" and run.result.exit_code == 0
    assert (run.root / "main.py").read_text() == FIXED
    assert run.result.model_calls == 1  # the planner's; the coder was never asked
    assert run.nodes[-6:] == ["delegate", "verify", "review", "repair", "verify", "review"]
    assert run.result.files_changed == ["main.py"] and "range(len(xs))" in run.result.diff


def test_repair_search_gives_way_to_the_model_when_it_finds_nothing(tmp_path: Path) -> None:
    files = {"main.py": "print('Hello, ' + 'Wrold')\n", "expected.txt": "Hello, World\n"}
    still = "print('Hello, ' + 'Wrld')\n"
    fixed = "print('Hello, ' + 'World')\n"
    replies = [PLAN, whole_file("main.py", still), whole_file("main.py", fixed)]
    busy = ["repair.enabled=true", "repair.first_budget_s=60"]  # time on a busy machine
    run = Run(tmp_path, replies, files=files, overrides=busy)
    assert run.result.status == "verified" and run.result.model_calls == 3
    # searched before the first model call, and again on the model's new failure
    assert run.nodes.count("repair") == 2
    assert run.kinds("repair.end")[0]["reason"] in ("pairs deferred", "no candidates")
    retry = run.kinds("model.request")[2]
    assert "Actual output:\n```\nHello, Wrld\n```" in retry["messages"][-1]["content"]


def test_max_iterations_ends_unverified(tmp_path: Path) -> None:
    replies = [whole_file("main.py", WRONG.replace("4]))", f"4]) + {n})")) for n in range(5)]
    run = Run(tmp_path, [PLAN, *replies], overrides=["runtime.max_iterations=3"])
    assert run.result.status == "unverified" and run.result.iterations == 3
    assert "no verification passed in 3 iterations" in run.result.message


def test_unchanged_replies_are_not_replayed(tmp_path: Path) -> None:
    run = Run(tmp_path, [PLAN, whole_file("main.py", BUGGY), whole_file("main.py", FIXED)])
    assert run.result.status == "verified"
    second = run.kinds("model.request")[2]
    assert len(second["messages"]) == 2
    assert (second["temperature"], second["seed"]) == (0.8, 2)  # retry_temperature, seed + 2
    assert "Actual output:\n```\n6\n```" in second["messages"][1]["content"]  # evidence again


def test_the_fixed_function_alone_is_merged(tmp_path: Path) -> None:
    function = FIXED.split("\n\n")[0] + "\n"
    reply = whole_file("main.py", function + "\nprint(total([1]))\n", "Only the function.")
    run = Run(tmp_path, [PLAN, reply], overrides=["llm.profiles.s.edit_format=functions"])
    assert run.result.status == "verified" and run.result.model_calls == 2
    assert (run.root / "main.py").read_text() == FIXED  # the file's own driver stayed
    assert run.kinds("file.write")[0]["lines"] == 7  # "wrote main.py (7 lines)", not 8
    assert "ONLY the functions" in run.kinds("model.request")[1]["messages"][1]["content"]


def test_rejected_edit_is_fed_back(tmp_path: Path) -> None:
    broken = whole_file("main.py", "def total(xs:\n    pass\n")
    run = Run(tmp_path, [PLAN, broken, whole_file("main.py", FIXED)])
    assert run.result.status == "verified"
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "- rejected: main.py:1: syntax error" in retry
    assert "Actual output:\n```\n6\n```" in retry  # the failure is still in the prompt


@pytest.mark.parametrize(
    ("task", "check"),
    [
        ("copy main.py to backup.py", lambda root: (root / "backup.py").read_text() == BUGGY),
        ('write "hello" to notes.txt', lambda root: (root / "notes.txt").read_text() == "hello"),
        ("read main.py", lambda root: True),
    ],
)
def test_phase_0_file_operations_make_no_model_call(tmp_path: Path, task: str, check: Any) -> None:
    run = Run(tmp_path, [], task=task)
    assert run.result.model_calls == 0 and run.result.status == "done"
    assert run.nodes == ["textual_pre_plan", "tool"]
    assert check(run.root)
    if task.startswith("read"):
        assert "range(len(xs) - 1)" in run.result.final_response


def test_greeting_makes_no_model_call(tmp_path: Path) -> None:
    run = Run(tmp_path, [], task="hello!")
    assert run.result.model_calls == 0 and run.nodes == ["textual_pre_plan"]
    assert "Codur" in run.result.final_response


def test_planner_garbage_then_recovers(tmp_path: Path) -> None:
    garbage = "I think we should fix it! {not json"
    fenced = f"Sure.\n```json\n{PLAN}\n```\nThat's my plan."
    run = Run(tmp_path, [garbage, fenced, whole_file("main.py", FIXED)])
    assert run.result.status == "verified"
    assert run.kinds("plan.invalid")[0]["error"] == "no JSON object found in the reply"
    assert run.kinds("plan.decision")[0]["agent"] == "agent:coder"


def test_planner_that_never_answers_falls_back_to_the_default_agent(tmp_path: Path) -> None:
    bad = ["no", '{"action": "fly"}', '{"action": "delegate", "agent": "agent:nobody"}', "??"]
    run = Run(tmp_path, [*bad, whole_file("main.py", FIXED)])
    assert run.result.status == "verified"
    assert len(run.kinds("plan.invalid")) == 4 and run.kinds("plan.fallback")
    assert "unknown agent 'agent:nobody'" in run.kinds("plan.invalid")[2]["error"]


def test_tool_loop_with_a_failing_tool(tmp_path: Path) -> None:
    calls = {"content": "", "tool_calls": [{"name": "read_file", "args": {"path": "missing.py"}}]}
    run = Run(tmp_path, [PLAN, calls, whole_file("main.py", FIXED)])
    assert run.result.status == "verified"
    result = run.kinds("tool.result")[0]
    assert result["tool"] == "read_file" and result["ok"] is False
    followup = run.kinds("model.request")[2]["messages"]
    assert followup[-1]["role"] == "tool" and "missing.py" in followup[-1]["content"]


def test_text_detected_tool_call_without_native_tools(tmp_path: Path) -> None:
    text_call = (
        'Let me look first.\n```json\n{"tool": "read_file", "args": {"path": "expected.txt"}}\n```'
    )
    run = Run(
        tmp_path,
        [PLAN, text_call, whole_file("main.py", FIXED)],
        overrides=["llm.profiles.s.native_tools=false"],
    )
    assert run.result.status == "verified"
    assert run.kinds("tool.call")[0]["tool"] == "read_file"
    request = run.kinds("model.request")[1]
    assert "## Available tools" in request["messages"][0]["content"] and request["tools"] == []
    followup = run.kinds("model.request")[2]["messages"]
    assert followup[-1]["role"] == "human" and "Result of read_file (ok)" in followup[-1]["content"]


def test_recursion_limit_is_a_clean_end_state(tmp_path: Path) -> None:
    replies = [whole_file("main.py", WRONG.replace("4]))", f"4]) + {n})")) for n in range(9)]
    run = Run(tmp_path, [PLAN, *replies], overrides=["runtime.recursion_limit=12"])
    assert (
        run.result.status == "limit" and "graph step limit reached (12 steps)" in run.result.message
    )


def test_mermaid_diagram_has_every_edge() -> None:
    diagram = build_graph().get_graph().draw_mermaid()
    for edge in (
        "textual_pre_plan -.-> llm_pre_plan",
        "llm_pre_plan -.-> llm_plan",
        "llm_plan -.-> delegate",
        "delegate -.-> execute",
        "delegate -.-> verify",
        "review -.-> execute",
        "execute --> verify",
        "verify --> review",
        "review -.-> repair",
        "review -.-> sample",
        "repair -.-> verify",
        "repair -.-> review",
        "sample -.-> verify",
        "tool -.-> llm_plan",
        "llm_plan -.-> tool",
        "review -.-> delegate",  # a retry goes straight to the agent ...
        "review -.-> llm_plan",  # ... or to planning (planning.replan_on_retry)
        "review -.-> __end__",
        "textual_pre_plan -.-> tool",
        "textual_pre_plan -.-> explain",  # the routes: explain (the ask graph) ...
        "llm_plan -.-> explain",
        "explain --> __end__",
        "textual_pre_plan -.-> run_command",  # ... and run_command
        "llm_plan -.-> run_command",
        "run_command --> __end__",
        "review -.-> planner",  # plan_verify mode
        "planner --> execute",
        "review -.-> verifier",
        "verifier --> review",
        "review -.-> replan",
        "replan --> execute",
    ):
        assert edge in diagram


def test_single_agent_code_task_needs_no_planning_call(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    result, events, _ = run_in_process(root, [whole_file("main.py", FIXED)])  # one agent
    assert result.status == "verified" and result.model_calls == 1
    nodes = [e.data["node"] for e in events if e.kind == "node.start"]
    decision = next(e.data for e in events if e.kind == "plan.decision")
    assert "llm_plan" in nodes and decision["agent"] == "agent:coder"


def _a_failing_test(tmp_path: Path) -> tuple[Path, str]:
    """A folder whose tests/test_main.py fails on main.py's bug; and main.py fixed."""
    root = tmp_path / "work"
    (root / "tests").mkdir(parents=True)
    (root / "main.py").write_text(BUGGY.replace("print(total([1, 2, 3, 4]))\n", ""))
    test = "from main import total\n\n\ndef test_total():\n    assert total([1, 2, 3, 4]) == 10\n"
    (root / "tests" / "test_main.py").write_text(test)
    return root, FIXED.replace("print(total([1, 2, 3, 4]))\n", "")


def test_a_task_naming_a_failing_test_needs_no_planning_call(tmp_path: Path) -> None:
    """`tests/test_main.py::test_total fails` names the workspace's files without `@`: a
    code task, so with one agent nothing is left to plan (on main: a planner call, 1,146
    prompt tokens, before every such run)."""
    root, fixed = _a_failing_test(tmp_path)
    task = "tests/test_main.py::test_total fails: fix the bug"
    result, events, _ = run_in_process(root, [whole_file("main.py", fixed)], task=task)
    assert result.status == "verified" and result.model_calls == 1, result.message
    decision = next(e.data for e in events if e.kind == "plan.decision")
    assert decision["agent"] == "agent:coder" and "nothing to choose" in decision["reasoning"]


@pytest.mark.parametrize(
    ("quote", "calls"),
    [
        ("`assert total([1, 2, 3, 4])  ==  10` fails. It should hold; please fix.", 1),
        ("`assert total([5]) == 5` fails. It should hold; please fix.", 3),  # not its code
        ("tell me what `s += xs[i]` does", 3),  # the program's code: maybe to explain
        ("could you fix it so that `assert total([1, 2, 3, 4]) == 10` holds?", 3),  # asked
    ],
)
def test_a_task_quoting_a_test_of_the_workspace_needs_no_planning_call(
    tmp_path: Path, quote: str, calls: int
) -> None:
    """An issue quoting the failing check, as it stands in the workspace's tests (spacing
    aside), is about the code: with one agent nothing is left to classify or plan (on
    main: two calls, 28 s on the real-repository benchmark's symptom tasks). Code the
    tests do not hold, the program's own code, or a question, goes through both."""
    root, fixed = _a_failing_test(tmp_path)
    classify = json.dumps({"kind": "code_change", "confidence": 0.5})
    replies = [classify, PLAN][: calls - 1] + [whole_file("main.py", fixed)]
    result, events, _ = run_in_process(root, replies, task=quote)
    assert result.status == "verified" and result.model_calls == calls, result.message


def test_bare_agent_name_from_the_planner_is_accepted(tmp_path: Path) -> None:
    plan = json.dumps({"action": "delegate", "agent": "coder"})
    run = Run(tmp_path, [plan, whole_file("main.py", FIXED)])
    assert run.result.status == "verified" and not run.kinds("plan.invalid")


def test_each_step_s_model_spend_and_files_written_are_records_in_the_state(
    tmp_path: Path,
) -> None:
    """The plan's call is llm_plan's record; the coder's reply, made in the execute step's
    agent loop (a graph inside a node, which gives the state back whole), is finish's,
    counted once: the state's records add up to the meter. The file it changed is in the
    state's `written`."""
    from codur.graph.checkpoint import run_graph
    from codur.models.usage import total
    from codur.undo.snapshot import begin

    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([PLAN, whole_file("main.py", FIXED)]))
    flags = [
        "llm.profiles.s.provider=scripted",
        f"llm.profiles.s.script={script}",
        "llm.default_profile=s",
        "agents.configs.reviewer.description=Reviews code",  # two agents: planning chooses
        "repair.enabled=false",
        "sampling.candidates=0",
        "crosscheck.candidates=0",
    ]
    session = Session(
        load_config(root, overrides=flags, environ={}).config, Workspace(root), EventBus()
    )
    session.changes.snapshot = begin(session.ws, session.config, session.run_id, "fix", session.bus)
    *_, state = run_graph(session, "fix @main.py", None)
    assert state["status"] == "verified"
    spent = state["usage"]
    assert sorted(key.split("/")[0] for key in spent) == ["finish", "llm_plan"]
    assert total(spent).calls == 2 == session.usage.calls
    assert total(spent).by_profile == {"s": 2}
    assert state["written"] == {"main.py": True}  # the coder's edit: the file existed
