"""Phase 2: the planner decides, in one JSON object: delegate by route (edit: an
agent; explain: the ask graph; run_command: a shell command, `codur.planning.routes`),
call tools, or respond. Its reply is parsed robustly; an unusable reply is retried with
the reason, up to planning.max_retry_attempts, then the default agent gets the task.

Tool results come back here (with them in the prompt), so a task of several steps runs
tools and then delegates; after planning.max_tool_rounds the planner may not call more."""

from __future__ import annotations

import shlex
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, ValidationError

from codur.agents.registry import agent_choices, resolve_offered
from codur.errors import ConfigError
from codur.graph.nodes import traced
from codur.graph.state import AgentState, StandingPreference, ToolRun
from codur.memory import preferences_section
from codur.planning.routes import Route
from codur.planning.textual import is_question
from codur.promptbook import PromptBook
from codur.replyjson import json_object
from codur.session import Session


class PlannedCall(BaseModel):
    tool: str
    args: dict[str, Any] = {}


class PlanDecision(BaseModel):
    action: Literal["delegate", "tool", "respond", "done", "preference"]
    agent: str | None = None
    route: Route = "edit"
    """Where delegate sends the task (codur.planning.routes)."""
    command: str = ""
    """The shell command of route run_command."""
    reasoning: str = ""
    response: str = ""
    tool_calls: list[PlannedCall] = []
    preference: str = ""
    """For action preference: the standing instruction, as it should be remembered."""
    scope: Literal["project", "user"] = "project"
    """For action preference: this project only, or all of the user's projects."""


def parse_decision(text: str, session: Session) -> PlanDecision:
    """The decision in `text`, or ValueError saying what is wrong with it."""
    data = json_object(text)
    if data is None:
        raise ValueError("no JSON object found in the reply")
    try:
        decision = PlanDecision.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"invalid decision: {exc.errors()[0]['msg']}") from None
    delegate = decision.action == "delegate"
    if delegate and decision.route == "edit":
        default = session.config.agents.preferences.default_agent
        resolve_offered(decision.agent or default, session.config)
    if delegate and decision.route == "run_command" and not decision.command.strip():
        raise ValueError("route 'run_command' needs a command")
    if decision.action == "tool" and not decision.tool_calls:
        raise ValueError("action 'tool' needs tool_calls")
    if decision.action == "preference" and not decision.preference.strip():
        raise ValueError("action 'preference' needs the preference's text")
    limit = session.config.memory.max_preference_chars
    if decision.action == "preference" and len(" ".join(decision.preference.split())) > limit:
        raise ValueError(f"action 'preference': a preference is at most {limit} characters")
    return decision


def _system(session: Session) -> str:
    from codur.tools.offered import prompt_section
    from codur.tools.registry import TaskType

    agents = "\n".join(
        f"- {ref}: {cfg.description}"
        if (cfg := session.config.agents.configs.get(ref[6:]))
        else f"- {ref}"
        for ref in agent_choices(session.config)
    )
    tools = prompt_section([TaskType.FILE_OPERATION, TaskType.SEARCH, TaskType.GIT])
    system = session.prompts.render(
        "planner",
        agents=agents,
        tools=tools,
        default_agent=session.config.agents.preferences.default_agent,
    )
    return system + preferences_section(session.prompts, session.preferences())


def _results(book: PromptBook, runs: list[ToolRun], round_no: int, rounds: int) -> str:
    shown = "\n\n".join(
        f"{r.tool}({r.args}) -> {'ok' if r.ok else 'error'}:\n{r.output}" for r in runs
    )
    return book.render("planner_tool_results", round=round_no, rounds=rounds, results=shown)


Goto = Literal["delegate", "explain", "run_command", "tool", "__end__"]


def _delegate(agent: str, **update: Any) -> Command[Goto]:
    return Command(update={"selected_agent": agent, **update}, goto="delegate")


@traced("llm_plan")
def llm_plan(state: AgentState, runtime: Runtime[Session]) -> Command[Goto]:
    session = runtime.context
    default = session.config.agents.preferences.default_agent
    choices = agent_choices(session.config)
    if not session.model_allowed:  # --no-model: the default agent's check and repair only
        session.bus.emit(
            "plan.decision", action="delegate", agent=default, reasoning="no model (--no-model)"
        )
        return _delegate(default)
    runs = state.get("tool_results", [])
    task = state["task"]
    # a code task: it names files (phase 0 took the explain and run_command forms it could
    # see), or phase 1 classified it so
    code = state.get("context_files") or state.get("code_task")
    if code and len(choices) == 1 and not runs and not is_question(task):
        session.bus.emit(
            "plan.decision",
            action="delegate",
            agent=choices[0],
            route="edit",
            reasoning="a code task that asks nothing, and a single agent: nothing to choose",
        )
        return _delegate(choices[0])
    files = ", ".join(state.get("context_files", {})) or "none"
    chat = f"{session.chat_context}\n\n" if session.chat_context else ""
    messages = [
        SystemMessage(_system(session)),
        HumanMessage(f"{chat}Task: {task}\nFiles in context: {files}"),
    ]
    rounds, done = session.config.planning.max_tool_rounds, state.get("tool_rounds", 0)
    if runs:
        messages.append(HumanMessage(_results(session.prompts, runs, done, rounds)))
    if (failed := state.get("last_error")) and failed.node == "llm_plan":  # its retry
        messages.append(HumanMessage(failed.note()))
    for attempt in range(session.config.planning.max_retry_attempts + 1):
        reply = session.client().invoke(messages)
        try:
            decision = parse_decision(str(reply.content), session)
            break
        except (ValueError, ConfigError) as exc:
            session.bus.emit("plan.invalid", attempt=attempt + 1, error=str(exc))
            messages += [
                AIMessage(str(reply.content)),
                HumanMessage(session.prompts.render("planner_retry", error=exc)),
            ]
    else:
        session.bus.emit("plan.fallback", agent=default)
        return _delegate(default)
    session.bus.emit("plan.decision", **decision.model_dump())
    if decision.action == "delegate" and decision.route == "explain":
        return Command(goto="explain")
    if decision.action == "delegate" and decision.route == "run_command":
        return Command(update={"command": decision.command.strip()}, goto="run_command")
    if decision.action == "delegate":
        return _delegate(resolve_offered(decision.agent or default, session.config).reference)
    if decision.action == "preference":
        return _remember(decision, session)
    if decision.action == "tool" and done < rounds:
        calls = [{"tool": c.tool, "args": c.args} for c in decision.tool_calls]
        return Command(update={"tool_calls": calls, "tool_calls_by": "planner"}, goto="tool")
    if decision.action == "tool":  # no rounds left: the run ends with the last results
        session.bus.emit("plan.tool_rounds", rounds=rounds)
        message = f"planning.max_tool_rounds ({rounds}) reached"
        return Command(update={"status": "done", "status_message": message}, goto=END)
    update = {"status": "done"}
    if decision.response or not runs:
        update["final_response"] = decision.response
    return Command(update=update, goto=END)


def _remember(decision: PlanDecision, session: Session) -> Command[Goto]:
    """A standing preference ("always add type hints"): nothing runs; the run ends and
    run_task keeps it in memory, for the prompts of later tasks."""
    text, scope = " ".join(decision.preference.split()), decision.scope
    note = ""
    if scope == "user" and not _user_says_all_projects(text, session):
        scope = "project"  # a model's reading of one task does not reach every project
        note = f" (for all projects: codur memory add --user {shlex.quote(text)})"
    kept = StandingPreference(text, scope)
    message = (
        f"kept as a {kept.scope} preference: {kept.text}{note}"
        if session.memory is not None
        else f"not kept (memory.enabled is off): {kept.text}"
    )
    update = {"status": "done", "status_message": message, "preference": kept}
    return Command(update=update, goto=END)


def _user_says_all_projects(text: str, session: Session) -> bool:
    """The user, asked on the terminal, keeps the preference for all projects (no
    terminal: no, it stays the project's)."""
    if session.confirm is None or session.memory is None:
        return False
    return session.confirm(f"Keep this preference for all your projects? {text}", "")
