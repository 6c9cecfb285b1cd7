"""The one reader of JSON in model replies, through each of its readers: plans, the
refinery's decisions, tool calls written as text."""

from __future__ import annotations

import pytest

from codur.agents.tool_detection import detect_tool_calls
from codur.ask.parse import parse_decision, parse_plan
from codur.replyjson import json_object

KNOWN = {"read_file", "write_file"}


@pytest.mark.parametrize(
    "reply",
    [
        '{"decision": "FINISH", "reason": "done"}',
        '```json\n{"decision": "FINISH", "reason": "done"}\n```',
        'Here it is: {"decision": "FINISH", "reason": "done"} Hope this helps',
        '{"decision": "FINISH", "reason": "done",}',  # a trailing comma
        "{'decision': 'FINISH', 'reason': 'done'}",  # single quotes
        '{"decision": "FINISH", "reason": "done',  # cut short
    ],
    ids=["bare", "fenced", "in-prose", "trailing-comma", "single-quotes", "cut-short"],
)
def test_a_decision_is_read_however_it_is_written(reply: str) -> None:
    assert parse_decision(reply) == ("FINISH", "done")


@pytest.mark.parametrize(
    "reply",
    [
        '["a", "b"]',
        'Plan:\n```json\n["a", "b"]\n```',
        'My steps are ["a", "b"] in order.',
        '{"steps": ["a", "b"]}',
        'Sure. {"plan": ["a", "b"]}',
        '["a", "b",]',
    ],
    ids=["bare", "fenced", "in-prose", "steps-key", "plan-key-in-prose", "trailing-comma"],
)
def test_a_plan_is_read_however_it_is_written(reply: str) -> None:
    assert parse_plan(reply, max_steps=5) == ["a", "b"]


@pytest.mark.parametrize(
    "reply",
    [
        '{"tool": "read_file", "args": {"path": "a.py"}}',
        'I will look.\n```tool\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
        'First {"note": 1} then {"tool": "read_file", "args": {"path": "a.py"}}',
        "{'tool': 'read_file', 'args': {'path': 'a.py'}}",
        'read_file(path="a.py")',
    ],
    ids=["bare", "fenced-name-arguments", "after-another-object", "single-quotes", "call"],
)
def test_a_tool_call_is_read_however_it_is_written(reply: str) -> None:
    assert detect_tool_calls(reply, KNOWN) == [{"name": "read_file", "args": {"path": "a.py"}}]


@pytest.mark.parametrize(
    "reply",
    [
        "no JSON at all",
        "def f(x):\n    return x[0]\n",
        '{"tool": "delete_everything", "args": {}}',
    ],
)
def test_prose_code_and_unknown_tools_are_no_calls(reply: str) -> None:
    assert detect_tool_calls(reply, KNOWN) == []


def test_valid_json_wins_over_mending_earlier_text() -> None:
    """A broken object before a valid one: the valid one is read, not the mended one."""
    reply = 'Draft: {"decision": "CONTINUE",, oops. Final: {"decision": "FINISH"}'
    assert json_object(reply) == {"decision": "FINISH"}
    assert parse_decision("neither word here") is None
