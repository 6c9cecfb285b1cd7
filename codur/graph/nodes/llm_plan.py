"""Phase 2: the planner decides (seed 000's JSON decision): delegate to an agent, call
tools, or respond. Its reply is parsed robustly; an unusable reply is retried with the
reason, up to planning.max_retry_attempts, then the default agent gets the task."""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, ValidationError

from codur.agents.registry import agent_choices, resolve
from codur.errors import ConfigError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.planning.parse import extract_json_object
from codur.resources import prompt
from codur.session import Session


class PlannedCall(BaseModel):
    tool: str
    args: dict[str, Any] = {}


class PlanDecision(BaseModel):
    action: Literal["delegate", "tool", "respond", "done"]
    agent: str | None = None
    reasoning: str = ""
    response: str = ""
    tool_calls: list[PlannedCall] = []


def parse_decision(text: str, session: Session) -> PlanDecision:
    """The decision in `text`, or ValueError saying what is wrong with it."""
    data = extract_json_object(text)
    if data is None:
        raise ValueError("no JSON object found in the reply")
    try:
        decision = PlanDecision.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"invalid decision: {exc.errors()[0]['msg']}") from None
    if decision.action == "delegate":
        resolve(decision.agent or session.config.agents.preferences.default_agent, session.config)
    if decision.action == "tool" and not decision.tool_calls:
        raise ValueError("action 'tool' needs tool_calls")
    return decision


def _system(session: Session) -> str:
    from codur.tools.registry import TaskType, prompt_section

    agents = "\n".join(
        f"- {ref}: {cfg.description}"
        if (cfg := session.config.agents.configs.get(ref[6:]))
        else f"- {ref}"
        for ref in agent_choices(session.config)
    )
    tools = prompt_section([TaskType.FILE_OPERATION, TaskType.SEARCH, TaskType.GIT])
    return prompt("plan.md").format(
        agents=agents, tools=tools, default_agent=session.config.agents.preferences.default_agent
    )


@traced("llm_plan")
def llm_plan(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    default = session.config.agents.preferences.default_agent
    choices = agent_choices(session.config)
    if not session.model_allowed:  # --no-model: the default agent's check and repair only
        session.bus.emit(
            "plan.decision", action="delegate", agent=default, reasoning="no model (--no-model)"
        )
        return {"next_action": "delegate", "selected_agent": default}
    if state.get("context_files") and len(choices) == 1:  # a code task, one agent: no choice
        session.bus.emit(
            "plan.decision",
            action="delegate",
            agent=choices[0],
            reasoning="a code task and a single agent: nothing to choose",
        )
        return {"next_action": "delegate", "selected_agent": choices[0]}
    files = ", ".join(state.get("context_files", {})) or "none"
    messages = [
        SystemMessage(_system(session)),
        HumanMessage(f"Task: {state['task']}\nFiles in context: {files}"),
    ]
    for attempt in range(session.config.planning.max_retry_attempts + 1):
        reply = session.client().invoke(messages)
        try:
            decision = parse_decision(str(reply.content), session)
            break
        except (ValueError, ConfigError) as exc:
            session.bus.emit("plan.invalid", attempt=attempt + 1, error=str(exc))
            messages += [
                AIMessage(str(reply.content)),
                HumanMessage(prompt("plan_retry.md").format(error=exc)),
            ]
    else:
        session.bus.emit("plan.fallback", agent=default)
        return {"next_action": "delegate", "selected_agent": default}
    session.bus.emit("plan.decision", **decision.model_dump())
    if decision.action == "delegate":
        agent = resolve(decision.agent or default, session.config).reference
        return {"next_action": "delegate", "selected_agent": agent}
    if decision.action == "tool":
        calls = [{"tool": c.tool, "args": c.args} for c in decision.tool_calls]
        return {"next_action": "tool", "tool_calls": calls}
    return {"next_action": "end", "final_response": decision.response, "status": "done"}
