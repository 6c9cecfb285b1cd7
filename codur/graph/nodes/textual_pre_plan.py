"""Phase 0, no model: read `@file` references into context and take the fast paths
(greetings, explicit file operations) and the routes whose form is unambiguous (explain
F or a wh-question: explain; run `COMMAND`: run_command). It runs once, at the start:
a retry goes from review straight to the agent or to planning (codur/graph/decide.py)."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.errors import UsageError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.planning.textual import fast_path
from codur.session import Session
from codur.task import file_refs


def read_reference(session: Session, path: str, shown: str) -> str:
    """The text of a file the task names, for the prompt; UsageError (one line, exit 2)
    when it is missing, not a regular file, a secrets file (`tools.secret_patterns`,
    unless `tools.allow_secrets`), larger than `tools.max_ref_bytes` or not UTF-8."""
    tools = session.config.tools
    target = session.ws.resolve(path)
    if not target.exists():
        raise UsageError(f"{shown}: no such file in {session.ws.root}")
    if not target.is_file():
        raise UsageError(f"{shown}: not a regular file")
    if not tools.allow_secrets and session.tool_context().is_secret(target):
        raise UsageError(
            f"{shown} looks like a secrets file; Codur does not read it "
            "(set tools.allow_secrets: true to allow)"
        )
    size = target.stat().st_size
    if size > tools.max_ref_bytes:
        raise UsageError(
            f"{shown} is {size:,} bytes; a file given with @ may be at most "
            f"{tools.max_ref_bytes:,} bytes (tools.max_ref_bytes): name a smaller file, or "
            "let the agent read parts of it"
        )
    return session.ws.read_text(path)


@traced("textual_pre_plan")
def textual_pre_plan(
    state: AgentState, runtime: Runtime[Session]
) -> Command[Literal["llm_pre_plan", "delegate", "explain", "run_command", "tool", "__end__"]]:
    session = runtime.context
    task = state["task"]
    files = dict(state.get("context_files", {}))
    for ref in file_refs(task):
        files[ref] = read_reference(session, ref, f"@{ref}")
    decision = fast_path(task, session.prompts.render("greeting").strip())
    update: dict[str, Any] = {"context_files": files, "iterations": 0}
    if decision is None:  # the model plans, unless planning is off: the default agent
        planned = session.config.planning.enabled
        return Command(update=update, goto="llm_pre_plan" if planned else "delegate")
    if decision.kind == "respond":
        update |= {"final_response": decision.response, "status": "done"}
        return Command(update=update, goto=END)
    if decision.kind == "tool":
        update |= {"tool_calls": decision.tool_calls, "tool_calls_by": "task"}
        return Command(update=update, goto="tool")
    if decision.kind == "run_command":
        return Command(update={**update, "command": decision.command}, goto="run_command")
    if decision.path:  # explain F: the file must be there and readable
        files[decision.path] = read_reference(session, decision.path, decision.path)
    return Command(update={**update, "context_files": files}, goto="explain")
