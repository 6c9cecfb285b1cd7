"""Phase 1: a short classification call that may answer obvious cases directly.

Only greetings, plain questions and explicit file operations may be routed from here,
and only above `planning.pre_plan_confidence`; anything that changes code goes on to the
full planner (a code task routed wrongly here would never reach an agent). A task
that names the workspace's files (`@main.py`, or `tests/test_x.py::test_y fails`), or
that is no question and quotes one of the workspace's tests (an issue quoting the
failing check), is about code, so it goes on without spending a call. Only a request
phrased as a question is answered here: an imperative ("fix the bug") the model calls a
question goes on to the planner, never ends the run with an answer in place of the
change it asks for.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.errors import WorkspaceError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.models.finish import finish_reason
from codur.planning.textual import is_question
from codur.replyjson import json_object
from codur.session import Session
from codur.task import file_mentions

DIRECT = {"greeting", "question", "file_operation"}


@traced("llm_pre_plan")
def llm_pre_plan(
    state: AgentState, runtime: Runtime[Session]
) -> Command[Literal["llm_plan", "tool", "__end__"]]:
    session = runtime.context
    if state.get("context_files") or not session.model_allowed:
        return Command(goto="llm_plan")
    task = state["task"]
    if names_workspace_files(session, task) or (
        not is_question(task) and quotes_a_check(session, task)
    ):
        return Command(update={"code_task": True}, goto="llm_plan")
    client = session.client()
    system = SystemMessage(session.prompts.render("pre_planner"))
    planning = session.config.planning
    reply = client.invoke(
        [system, HumanMessage(state["task"])], max_tokens=planning.pre_plan_max_tokens
    )
    data = _classification(str(reply.content), finish_reason(reply) == "length")
    kind, confidence = data.get("kind"), data.get("confidence")
    sure = isinstance(confidence, int | float) and confidence >= planning.pre_plan_confidence
    if sure and kind == "code_change":  # the planner has the agent to choose, nothing else
        return Command(update={"code_task": True}, goto="llm_plan")
    if not sure or not isinstance(kind, str) or kind not in DIRECT:
        return Command(goto="llm_plan")
    listed = data.get("tool_calls") or []
    calls = (
        [c for c in listed if isinstance(c, dict) and "tool" in c]
        if isinstance(listed, list)
        else []
    )
    if any(not isinstance(c.get("args") or {}, dict) for c in calls):
        calls = []  # a call whose arguments are not an object: the planner decides instead
    if kind == "file_operation" and calls:
        tool_calls = [{"tool": str(c["tool"]), "args": dict(c.get("args") or {})} for c in calls]
        return Command(update={"tool_calls": tool_calls, "tool_calls_by": "planner"}, goto="tool")
    asked = kind == "greeting" or (kind == "question" and is_question(state["task"]))
    if asked and isinstance(data.get("response"), str):
        update = {"final_response": data["response"], "status": "done"}
        return Command(update=update, goto=END)
    return Command(goto="llm_plan")


def names_workspace_files(session: Session, task: str) -> bool:
    """Whether `task` names, without `@`, a file the workspace holds."""
    for name in file_mentions(task):
        try:
            if session.ws.resolve(name).is_file():
                return True
        except WorkspaceError:  # outside the workspace: not one of its files
            continue
    return False


_QUOTED_CODE = re.compile(r"`([^`\n]{12,})`")
QUOTE_PREFIX = 60
"""Characters of a quoted snippet looked for (a statement may go on over lines)."""


def quotes_a_check(session: Session, task: str) -> bool:
    """Whether `task` quotes, in backticks, code a test of the workspace holds (an issue's
    `assert r.named["dt"] == datetime(...)` from its failing test): a check of the
    project's is reported, so its code is to change. Spacing aside; a long snippet by its
    start. (Quoted code of the program itself may come with a request to explain it.)"""
    from codur.tools.registry import invoke
    from codur.verify.target import is_test

    ctx = session.tool_context()
    for snippet in _QUOTED_CODE.findall(task):
        words = re.split(r"\s+", snippet.strip()[:QUOTE_PREFIX].strip())
        pattern = r"\s+".join(re.escape(word) for word in words)
        found = invoke("grep_files", {"pattern": pattern, "glob": "*.py"}, ctx)
        matches = found.value.matches if found.ok and found.value is not None else []
        if any(is_test(line.split(":", 1)[0]) for line in matches):
            return True
    return False


def _classification(text: str, cut: bool) -> dict[str, Any]:
    """The reply's JSON object; of a reply cut at its token cap, the fields it completed
    (its kind and confidence come first; a cut answer or tool call is dropped)."""
    if not cut:
        return json_object(text) or {}
    from langchain_core.utils.json import parse_partial_json

    start = text.find("{")
    try:
        data = parse_partial_json(text[start:]) if start >= 0 else None
    except ValueError:  # not JSON even when completed
        data = None
    if not isinstance(data, dict):
        return {}
    return {k: data[k] for k in ("kind", "confidence") if k in data}
