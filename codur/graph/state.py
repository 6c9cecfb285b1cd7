"""AgentState: what flows between the graph's nodes, and its reducers.

Config, workspace, models and the event bus are not state: they travel in the runtime
context (`codur.session.Session`), so a checkpoint holds only data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from codur.agents.loop import LoopState
from codur.agents.registry import AgentResult
from codur.graph.outcome import Outcome
from codur.models.usage import Spent, add_spent
from codur.planning.calls import ToolCallSpec
from codur.planning.verdict import VerifierVerdict
from codur.repair.searched import Searched
from codur.scope import EditScope
from codur.scope.learned import ScopeLearned, learn
from codur.tools.todo import TodoItem
from codur.verify.result import VerificationResult

Status = Literal["verified", "checked", "unverified", "stuck", "limit", "done", "error", "failed"]
"""How a run ended: verified (the project's own check passed) and checked (only a check
derived from the task, the docstrings or the model did: codur/verify/strength.py) are
passes; done changed nothing; the rest are not (docs/verification.md)."""


def first_written(left: dict[str, bool], right: dict[str, bool]) -> dict[str, bool]:
    """The reducer of `written`: a path's first record stands (it says whether the path
    existed before the run), so the same records given back count once."""
    return {**right, **left}


@dataclass(frozen=True)
class ModelTest:
    """The test the model wrote when nothing else checks behaviour (verify/model_test.py)."""

    test: str
    """Its text (empty: asked once, none came back or it was no check)."""
    failed_first: bool | None = None
    """Whether it failed on the files as the run found them (it must, to show a fix)."""


@dataclass(frozen=True)
class ToolRun:
    """A planned tool call and its result, shown to planning in its next step."""

    tool: str
    args: dict
    ok: bool
    output: str


@dataclass(frozen=True)
class NodeFailure:
    """An exception a node raised (working memory: the run's last error)."""

    node: str
    error: str
    """`Type: message`, its first line."""
    count: int
    """Node exceptions in the run so far, this one included."""

    def note(self) -> str:
        """The line the model reads when the node runs again."""
        return f"An earlier try of this step failed with an error: {self.error}"


@dataclass(frozen=True)
class StandingPreference:
    """A task that is a standing instruction ("always add type hints"), to remember."""

    text: str
    scope: Literal["project", "user"] = "project"


class Attempt(TypedDict, total=False):
    """One attempt (a model reply, a repair, a sampling round), kept so later rounds can
    see what failed and the next prompt can say so."""

    iteration: int
    agent: str
    """The agent reference; empty for the repair search."""
    files_changed: list[str]
    outcome: str
    """passed, failed, rejected, cut (at the token limit), duplicate, no edit, sampled,
    agent failed (the agent itself failed or could not run)."""
    summary: str
    """One line for the next prompt ("rejected: ...", "changed main.py; still: ...")."""
    digest: str
    """The reply's digest (a repeated reply is recognised by it)."""


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    task: str
    outcome: Outcome | None
    """What the last attempt did; None before the first attempt (the first check)."""
    iterations: int
    final_response: str
    """What the run answers: a planner's or agent's reply, or planned tools' output."""
    selected_agent: str
    """The agent planning chose (a reference as written); settled by delegate."""
    agent: str
    """The agent that runs the task: resolved by delegate, again only when planning
    chooses another or the agent fails and another takes over (agent fallback)."""
    agents_failed: list[str]
    """Agents that failed or could not run in this run, in order: the fallback takes the
    first agent of agents.preferences.fallback_order not among them, and delegate never
    goes back to one."""
    tool_calls: list[ToolCallSpec]
    """Tool calls planning decided on, not yet run."""
    tool_calls_by: Literal["task", "planner"]
    """task: the task itself is the file operation (phase 0), so the run ends with its
    output; planner: the results go back to planning (llm_plan) for the next step."""
    tool_results: list[ToolRun]
    """Planned tool calls that ran and their results, shown to planning."""
    tool_rounds: int
    """Rounds of planned tool calls so far (at most planning.max_tool_rounds)."""
    context_files: dict[str, str]
    """Files read into context before any model call (`@file` references)."""
    code_task: bool
    """Phase 1 classified the task as a code change, above planning.pre_plan_confidence."""
    usage: Annotated[dict[str, Spent], add_spent]
    """What each step spent on the model (`codur.graph.learned`), by a key of the step's
    own: the run's spend is their sum (`codur.models.usage.total`)."""
    written: Annotated[dict[str, bool], first_written]
    """Paths Codur changed in the run -> whether they existed before it, as the step that
    changed each returned it (`codur.graph.learned`); a resumed run's snapshot goes on
    from them."""
    error_fingerprints: list[str]
    attempts: list[Attempt]
    verification: VerificationResult | None
    """The verification agent's verdict on the files as they are now."""
    first_verification: VerificationResult | None
    """The verdict on the files as the run found them (the check before the first
    attempt): what a fresh start is told (attempts.fresh_request)."""
    repair_searches: dict[str, Searched]
    """What the repair search did on each state of the code it ran on (keyed by
    codur/repair/searched.py's `code_key`)."""
    repair_doubt: str
    """Why the repair search's last applied fix cannot end the run verified (a
    constant-only change no review confirmed); empty: nothing to doubt."""
    repair_reviews: list[dict]
    """Each review of a constant-only fix: its change, verdict (confirmed, overruled,
    unconfirmed) and who judged (differential, model, none)."""
    crosscheck: str
    """How the cross-check of a change only the docstrings' examples checked went, in a
    line (codur/agents/crosscheck.py); empty: none ran yet."""
    crosscheck_kept: dict[str, str | None]
    """The texts the cross-check's chosen reply replaced (the change that had passed; None:
    the file was absent), put back if that reply fails on the real files; empty after."""
    status: Status
    status_message: str
    command: str
    """The shell command of the run_command route (phase 0's or the planner's)."""
    last_error: NodeFailure | None
    """Working memory: the last exception a node raised; when that node runs again (the
    retry) the model reads it (codur.graph.nodes.node_error)."""
    error_count: int
    """Node exceptions in the run so far; past on_error.MAX_NODE_RETRIES retries the run
    ends with status error."""
    preference: StandingPreference | None
    """The task states a standing preference (the planner's `preference` action): the
    run ends without running an agent, and run_task keeps it in memory."""
    scope: EditScope | None
    """The edit scope decided at the run's start, with the oracle as it was then (None:
    no limits); no node changes it, so a resumed run's write path is this one."""
    scope_learned: Annotated[ScopeLearned, learn]
    """What the run learned of its edit scope since (the verify node): the run's write
    path knows it (`EditScope.knowing`)."""
    derived: tuple[list, str] | None
    """The checks derived from the task and the docstrings (used when the folder has no
    expected output and no tests), or a test the model wrote, and what they came from."""
    model_test: ModelTest | None
    """The test the model was asked to write for this run (None: not asked)."""
    plan: list[str]
    """plan_verify mode: the step plan the agent works through (the planner's, then
    replan's)."""
    plan_iteration: int
    """plan_verify mode: which plan the agent works on (1: the first); 0 or absent: the
    run is not in that mode."""
    todos: list[TodoItem]
    """plan_verify mode: the task's todo list, seeded from the plan; todo_write changes it
    (the agent loop takes it back from the tool context)."""
    verifier_verdict: VerifierVerdict | None
    """plan_verify mode: the model verifier's last judgement (with the plan it judged)."""
    replan_reasons: list[str]
    """plan_verify mode: why the last plan's work was not accepted (the verifier's reasons,
    or the failing check), for replan."""


class ExecuteState(AgentState, LoopState, total=False):
    """The execute step's state: the run's state plus the agent loop's own keys (`turn`,
    `turns`, `loop_rounds`: private to the step, gone when it ends)."""

    result: AgentResult | None
    """The result of an agent that runs as a whole (not in the loop); None otherwise."""
