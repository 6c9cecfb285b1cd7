"""Message pruning keeps the task and the latest rounds, and never splits a tool exchange."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from codur.graph.pruning import feedback, prune


def test_prune_keeps_task_and_recent_rounds() -> None:
    messages = [HumanMessage("fix @main.py", id="task")]
    for n in range(5):
        call = AIMessage(
            "", id=f"call{n}", tool_calls=[{"name": "read_file", "args": {}, "id": f"t{n}"}]
        )
        messages += [
            call,
            ToolMessage("content", tool_call_id=f"t{n}", id=f"tool{n}"),
            AIMessage(f"attempt {n}", id=f"ai{n}"),
        ]
        fb = feedback(f"failure {n}")
        fb.id = f"fb{n}"
        messages.append(fb)
    removed = {m.id for m in prune(messages, keep_rounds=2)}
    assert removed == {f"{kind}{n}" for n in range(3) for kind in ("call", "tool", "ai", "fb")}
    assert "task" not in removed
    assert prune(messages, keep_rounds=10) == []


def test_prune_leaves_an_unfinished_round_alone() -> None:
    done = feedback("failure")
    done.id = "fb"
    messages = [
        HumanMessage("task", id="task"),
        AIMessage("a", id="a"),
        done,
        AIMessage("b", id="b"),
    ]
    assert [m.id for m in prune(messages, keep_rounds=0)] == ["a", "fb"]
