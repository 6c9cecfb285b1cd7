"""Ask mode end to end with a scripted model over a real small repository: the answer
cites path:line, every file stays byte-identical, the three caps hold, and the planner's
and refinery's unreadable replies fall back (one search step; CONTINUE while planned
steps remain, else FINISH)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import run_cli, scripted_profile, tool_calls, write_files
from test_code_search import FILES

from codur.ask.parse import fallback_decision, parse_decision, parse_plan

QUESTION = "how does the config loader decide precedence?"
PLAN = json.dumps(["Search for where configuration layers are merged"])
SEARCH = tool_calls(("search_codebase", {"query": "merge configuration layers", "n_results": 3}))
SUMMARY = "merge in cfg/loader.py:8-12 lets later layers win."
FINISH = json.dumps({"decision": "FINISH", "reason": "the merge function is found"})
ANSWER = (
    "Later layers win: `merge` copies the base and updates it with the override "
    "(`cfg/loader.py:8-12`), and `Loader.load` folds the files in order (`cfg/loader.py:19`)."
)


def repo(root: Path) -> Path:
    root.mkdir()
    write_files(root, FILES)
    (root / "data.bin").write_bytes(b"\x00\xffkeep\r\n")
    return root


def files(root: Path) -> dict[str, bytes]:
    """Every file but Codur's own `.codur/` (the code index) and its debug log."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] != ".codur"
    }


LOOP = ["ask.direct_answer=false"]
"""The research loop even where retrieval alone would do (the loop is what these test)."""
LOOP_FLAGS = ["-o", "log.enabled=false", "-o", LOOP[0]]


def ask_in_process(
    root: Path, replies: list[Any], overrides: list[str] = (), question: str = QUESTION
) -> tuple[Any, list]:
    from codur.ask.run import ask_question
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    script = root.parent / f"{root.name}-ask.yaml"
    script.write_text(yaml.safe_dump(replies, sort_keys=False))
    flags = [
        "llm.profiles.s.provider=scripted",
        f"llm.profiles.s.script={script}",
        "llm.default_profile=s",
        *LOOP,
        *overrides,
    ]
    config = load_config(root, overrides=flags, environ={}).config
    events: list[Any] = []
    bus = EventBus()
    bus.subscribe(events.append)
    return ask_question(Session(config, Workspace(root), bus), question), events


def nodes(events: list) -> list[str]:
    return [e.data["node"] for e in events if e.kind == "node.start"]


@pytest.mark.slow
def test_codur_ask_answers_citing_path_line_and_changes_no_file(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    before = files(root)
    flags = scripted_profile(tmp_path, [PLAN, SEARCH, SUMMARY, FINISH, ANSWER])
    done = run_cli(["ask", "--json", *flags, *LOOP_FLAGS, QUESTION], root)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    order = [e["node"] for e in events if e["event"] == "node.start"]
    assert order == [
        "retrieve", "planner", "setup_executor", "executor_llm", "tool_node", "executor_llm",
        "aggregate", "refinery", "synthesizer",
    ]  # fmt: skip
    result = next(e for e in events if e["event"] == "tool.result")
    assert result["tool"] == "search_codebase" and "cfg/loader.py:8-12" in result["output"]
    end = events[-1]
    assert end["event"] == "ask.end" and end["status"] == "done"
    assert {"path": "cfg/loader.py", "line": 8, "exists": True} in end["citations"]
    assert all(c["exists"] for c in end["citations"])
    assert files(root) == before
    assert (root / ".codur/index/code_index.json").is_file()

    flags = scripted_profile(tmp_path, [PLAN, SEARCH, SUMMARY, FINISH, ANSWER], name="p")
    plain = run_cli(["ask", *flags, *LOOP_FLAGS, QUESTION], root)
    assert plain.returncode == 0, plain.stderr
    assert "(`cfg/loader.py:8-12`)" in plain.stdout
    assert files(root) == before


def test_findings_per_step_and_the_buffer_cleared_between_steps(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    plan = json.dumps(["Search for the merge", "Find who calls merge"])
    callers = tool_calls(("get_callers", {"name": "merge"}))
    replies = [plan, SEARCH, SUMMARY, "{not json", callers, "called in load", FINISH, ANSWER]
    result, events = ask_in_process(root, replies)
    assert result.status == "done" and result.iterations == 2
    assert list(result.findings) == ["step_1: Search for the merge", "step_2: Find who calls merge"]
    assert "cfg/loader.py:8-12" in result.findings["step_1: Search for the merge"]
    assert (
        "app.py:7: app.main -> cfg.loader.merge" in result.findings["step_2: Find who calls merge"]
    )
    decisions = [e.data for e in events if e.kind == "ask.decision"]
    assert decisions[0]["decision"] == "CONTINUE" and "not understood" in decisions[0]["reason"]
    assert decisions[1] == {"decision": "FINISH", "reason": "the merge function is found"}
    assert [e.data["kept"] for e in events if e.kind == "ask.plan"] == [False, True]
    step_two = [e.data for e in events if e.kind == "model.request"][4]["messages"]
    assert [m["role"] for m in step_two] == ["system", "human"]  # nothing of step one
    assert "Find who calls merge" in step_two[1]["content"]


def test_executor_step_cap_and_write_tools_refused(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    write = tool_calls(("write_file", {"path": "app.py", "content": "x = 1\n"}))
    before = files(root)
    replies = [PLAN, write, SEARCH, SEARCH, FINISH, ANSWER]
    result, events = ask_in_process(root, replies, ["ask.max_executor_steps=3"])
    assert result.status == "done"
    assert nodes(events).count("executor_llm") == 3 and nodes(events).count("tool_node") == 2
    finding = next(iter(result.findings.values()))
    assert "write_file is not available when answering a question" in finding
    assert files(root) == before


def test_iteration_cap_forces_finish_without_asking(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    cont = json.dumps({"decision": "CONTINUE", "reason": "more"})
    replies = [PLAN, SUMMARY, cont, PLAN, SUMMARY, ANSWER]
    result, events = ask_in_process(root, replies, ["ask.max_iterations=2"])
    assert result.status == "done" and result.iterations == 2 and result.model_calls == 6
    last = [e.data for e in events if e.kind == "ask.decision"][-1]
    assert last == {"decision": "FINISH", "reason": "ask.max_iterations (2) reached"}


def test_recursion_limit_ends_with_the_findings(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    replies = [PLAN, SEARCH, SEARCH, SEARCH, SEARCH]
    result, _ = ask_in_process(root, replies, ["ask.recursion_limit=6"])
    assert result.status == "limit" and "ask.recursion_limit reached (6 steps)" in result.message


def test_planner_fallback_when_the_plan_is_unreadable(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    result, events = ask_in_process(root, ["I will look around.", SUMMARY, FINISH, ANSWER])
    assert result.plan == [f"Search for relevant code related to the query: {QUESTION}"]
    assert [e.data["fallback"] for e in events if e.kind == "ask.plan"] == [True]


def test_parse_plan_and_decision() -> None:
    assert parse_plan('Plan:\n```json\n["a", "b", 3, ""]\n```', 4) == ["a", "b"]
    assert parse_plan('{"steps": ["x", "y", "z"]}', 2) == ["x", "y"]
    assert parse_plan("no plan", 3) is None and parse_plan("[]", 3) is None
    assert parse_decision('ok {"decision": "finish", "reason": "r"}') == ("FINISH", "r")
    assert parse_decision('{"decision": "maybe"}') is None
    assert fallback_decision(1, 2)[0] == "CONTINUE" and fallback_decision(2, 2)[0] == "FINISH"


@pytest.mark.slow
def test_graph_mode_ask_prints_the_ask_graph(tmp_path: Path) -> None:
    done = run_cli(["graph", "--mermaid", "--mode", "ask"], tmp_path)
    assert done.returncode == 0, done.stderr
    for edge in (
        "__start__ --> retrieve", "retrieve -.-> planner", "retrieve -.-> synthesizer",
        "planner --> setup_executor",
        "setup_executor --> executor_llm", "executor_llm -. &nbsp;tools&nbsp; .-> tool_node",
        "tool_node --> executor_llm", "executor_llm -. &nbsp;done&nbsp; .-> aggregate",
        "aggregate --> refinery",
        "refinery -.-> planner", "refinery -.-> synthesizer", "synthesizer --> __end__",
    ):  # fmt: skip
        assert edge in done.stdout
    assert run_cli(["graph", "--mode", "nope"], tmp_path).returncode == 2


def test_text_tool_calls_for_a_model_without_native_tool_calling(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    text_call = json.dumps({"tool": "get_callees", "args": {"name": "Loader.load"}})
    replies = [PLAN, f"Let me look.\n{text_call}", SUMMARY, FINISH, ANSWER]
    result, events = ask_in_process(root, replies, ["llm.profiles.s.native_tools=false"])
    assert result.status == "done"
    assert [e.data["tool"] for e in events if e.kind == "tool.call"] == ["get_callees"]
    finding = next(iter(result.findings.values()))
    assert "cfg.loader.Loader.load -> cfg.loader.merge" in finding
    second = [e.data for e in events if e.kind == "model.request"][2]["messages"]
    assert second[-1]["role"] == "human" and second[-1]["content"].startswith("Result of")


def test_the_question_is_searched_before_the_plan_and_every_node_sees_it(tmp_path: Path) -> None:
    root = repo(tmp_path / "w")
    result, events = ask_in_process(root, [PLAN, SUMMARY, FINISH, ANSWER])
    (retrieved,) = [e.data for e in events if e.kind == "ask.retrieve"]
    assert retrieved["query"] == QUESTION.rstrip("?") and len(retrieved["hits"]) == 5
    first = retrieved["hits"][0]
    assert first.startswith("cfg/loader.py:")
    requests = [e.data["messages"] for e in events if e.kind == "model.request"]
    planner, synthesizer = requests[0][0]["content"], requests[-1][0]["content"]
    for prompt_text in (planner, synthesizer):
        assert "Code search for the question" in prompt_text and first in prompt_text
    assert "Steps already ran" not in planner  # the search up front is no earlier step
    assert "cfg/loader.py" in result.files_read  # a cached answer depends on it

    _, events = ask_in_process(root, [PLAN, SUMMARY, FINISH, ANSWER], ["ask.retrieve_results=0"])
    assert not [e for e in events if e.kind == "ask.retrieve"]
    first = [e.data["messages"] for e in events if e.kind == "model.request"][0][0]["content"]
    assert "Code search for the question" not in first


def test_definitions_named_without_a_location_are_grounded_from_the_index(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path / "w")
    answer = (
        "`merge` lets later layers win; `Loader.load()` folds the files in order "
        "(`cfg/loader.py:19`), `merge` again, and `nothing_like_this` is not code."
    )
    result, events = ask_in_process(root, [PLAN, SUMMARY, FINISH, answer])
    assert result.answer.startswith("`merge` (`cfg/loader.py:8`) lets later layers win;")
    assert "`Loader.load()` folds" in result.answer  # cited already: left as it is
    assert result.answer.count("cfg/loader.py:8`") == 1  # the first mention only
    assert "`nothing_like_this` is not code" in result.answer
    assert [e.data["added"] for e in events if e.kind == "ask.grounded"] == [1]
    assert all(c.exists for c in result.citations)


def test_the_research_step_is_the_agent_loop_refusals_and_failures_included(
    tmp_path: Path,
) -> None:
    """The step runs the agent's model <-> tools loop: a tool it does not offer is refused
    with a tool.refused event, and a failed call reaches the model marked as an error."""
    root = repo(tmp_path / "w")
    write = tool_calls(("write_file", {"path": "app.py", "content": "x = 1\n"}))
    result, events = ask_in_process(root, [PLAN, write, SUMMARY, FINISH, ANSWER])
    assert result.status == "done"
    assert [(e.data["tool"], "read_file" in e.data["offered"]) for e in events
            if e.kind == "tool.refused"] == [("write_file", True)]  # fmt: skip

    missing = json.dumps({"tool": "read_file", "args": {"path": "gone.py"}})
    replies = [PLAN, missing, SUMMARY, FINISH, ANSWER]
    result, events = ask_in_process(root, replies, ["llm.profiles.s.native_tools=false"])
    assert result.status == "done"
    after = [e.data for e in events if e.kind == "model.request"][2]["messages"][-1]
    assert after["content"].startswith("Result of read_file (error):")
    assert "gone.py" in after["content"]
