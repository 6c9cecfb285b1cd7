"""Step plans in plan_verify mode, as the planner and replan make them: the model asked for
a short numbered list (what tools the agent has is in the prompt), the list read, and the
plan adopted: into the state (`plan`, `plan_iteration`), the todo list seeded from its
steps, a message marking where the plan's work begins, and its events (`plan.steps`,
`todo.updated`)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from codur.agents.registry import resolve
from codur.graph.state import AgentState
from codur.graph.transcript import PLAN_MARK
from codur.planning.steps import parse_steps
from codur.session import Session
from codur.tools.todo import TodoItem, announce


def agent_tools(state: AgentState, session: Session) -> str:
    """What the planner is told about the agent's tools (the coder's choice: its
    configured task types, when its profile offers agents tools)."""
    from codur.tools.offered import prompt_section
    from codur.tools.registry import TaskType

    cfg = session.config
    agent = resolve(state.get("agent") or cfg.agents.preferences.default_agent, cfg)
    _, profile = cfg.profile(agent.profile or session.profile)
    wanted = agent.config.tools if agent.config is not None and profile.agent_tools else []
    if not wanted:
        return session.prompts.render("plan_no_tools").strip()
    return prompt_section([*(TaskType(t) for t in wanted), TaskType.PLANNING])


def draw(
    state: AgentState, session: Session, node: str, text: str, fallback: list[str]
) -> list[str]:
    """One model call on the prompt `text` (with the note of `node`'s failed try when this
    is its retry); the steps the reply lists, or `fallback` when it lists none (then a
    `plan.no_steps` event with the reply)."""
    if (failed := state.get("last_error")) and failed.node == node:
        text += "\n\n" + failed.note()
    reply = session.client().invoke([HumanMessage(text)])
    content = reply.content if isinstance(reply.content, str) else str(reply.content)
    steps = parse_steps(content, session.config.planning.max_plan_steps)
    if not steps:
        session.bus.emit("plan.no_steps", reply=content)
    return steps or fallback


def render(steps: list[str], iteration: int) -> str:
    listed = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
    return f"Plan {iteration}:\n{listed}"


def adopt(steps: list[str], iteration: int, session: Session, **why: Any) -> dict[str, Any]:
    """The state update that makes `steps` the plan the agent works on next (`why`: more
    fields for the `plan.steps` event)."""
    todos = [TodoItem(step) for step in steps]
    session.bus.emit("plan.steps", steps=steps, plan_iteration=iteration, **why)
    announce(session.bus, todos)
    marker = HumanMessage(render(steps, iteration), additional_kwargs={PLAN_MARK: iteration})
    return {"plan": steps, "plan_iteration": iteration, "todos": todos, "messages": [marker]}
