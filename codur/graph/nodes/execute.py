"""Execute: the run's agent on the task, as a subgraph (wired in graph/build.py):

    prepare -> agent <-> tools (the agent loop, codur.agents.loop) -> finish
    prepare -> finish (an agent that runs as a whole)

`prepare` builds the request (the files as they are now, how the check fails on them;
in plan_verify mode the plan and the todo list too) and lets the agent start its turn;
`finish` settles the turn (its edits read and written) and records what happened as one
Outcome. In plan_verify mode an agent with tools ends with attempt_completion (completed,
or no_completion when its loop ran out); for an agent without tools (one reply with
edits, such as the embedded model's profiles) the applied reply is its completion.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.registry import AgentResult, resolve
from codur.graph.attempts import build_request
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome, OutcomeKind
from codur.graph.state import ExecuteState
from codur.session import Session

if TYPE_CHECKING:
    from codur.agents.loop import LoopAgent


@traced("prepare")
def prepare(state: ExecuteState, runtime: Runtime[Session]) -> Command[Literal["agent", "finish"]]:
    session = runtime.context
    request = build_request(state, session, state.get("verification"))
    agent = resolve(state["agent"], session.config).build()
    if not agent.loops:  # it runs as a whole
        return Command(update={"result": agent.run(request, session)}, goto="finish")
    turn = cast("LoopAgent", agent).start(request, session)
    return Command(update={"turn": turn, "result": None}, goto="agent")


@traced("finish")
def finish(state: ExecuteState, runtime: Runtime[Session]) -> dict[str, Any]:
    result = state.get("result")
    turn = state.get("turn")
    if result is None:
        assert turn is not None and turn.owner is not None
        result = turn.owner.settle(turn, list(state.get("turns", [])), runtime.context)
    plan_mode = state.get("plan_iteration", 0) > 0
    required = turn is not None and turn.completion
    return {
        "outcome": outcome(state["agent"], result, plan_mode, required),
        "messages": result.messages,
    }


def outcome(
    agent: str, result: AgentResult, plan_mode: bool = False, required: bool = False
) -> Outcome:
    """The typed outcome of one agent run. `plan_mode`: the run is in plan_verify mode;
    `required`: the agent's loop could end only with attempt_completion."""
    kind: OutcomeKind
    if result.failed:
        kind = "agent_failed"
    elif plan_mode and result.completion is not None:
        kind = "completed"
    elif required:
        kind = "no_completion"
    elif result.truncated:
        kind = "cut"
    elif result.duplicate:
        kind = "duplicate"
    elif result.error:
        kind = "rejected"
    elif plan_mode:
        kind = "completed"  # an agent without tools: its applied reply is its completion
    else:
        kind = "edited" if result.files_changed else "no_edit"
    return Outcome(
        kind=kind,
        agent=agent,
        reply=result.completion if result.completion is not None else result.reply,
        files_changed=tuple(result.files_changed),
        error=result.error or "",
        notes=tuple(result.notes),
        digest=result.digest,
    )
