"""AgentState: what flows between the graph's nodes, and its reducers.

Config, workspace, models and the event bus are not state: they travel in the runtime
context (`codur.session.Session`), so a checkpoint holds only data.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from codur.verify.result import VerificationResult

NextAction = Literal[
    "continue_to_llm_pre_plan",
    "continue_to_llm_plan",
    "delegate",
    "tool",
    "end",
    "continue",
    "repair",
    "sample",
    "verify",
    "review",
    "execute",
]
Status = Literal["verified", "unverified", "stuck", "limit", "done", "error"]


class ToolCallSpec(TypedDict):
    """A tool call decided by planning (not by an agent): registry name and arguments."""

    tool: str
    args: dict


class AgentOutcome(TypedDict, total=False):
    agent: str
    status: Literal["delegated", "completed", "failed"]
    reply: str
    files_changed: list[str]
    error: str
    notes: list[str]
    """Parts of the reply left out (outside the edit scope), for the next prompt."""
    digest: str
    duplicate: bool
    truncated: bool
    candidates: list[str]
    """Sampling: one line per candidate tried (how it failed)."""
    fingerprints: list[str]
    """Sampling: the failures of the candidates that ran."""


class Attempt(TypedDict, total=False):
    """One attempt (a model reply, a repair, a sampling round), kept so later rounds can
    see what failed and the next prompt can say so."""

    iteration: int
    agent: str
    files_changed: list[str]
    outcome: str
    """passed, failed, rejected, cut (at the token limit), duplicate, no edit, sampled."""
    summary: str
    """One line for the next prompt ("rejected: ...", "changed main.py; still: ...")."""
    digest: str
    """The reply's digest (a repeated reply is recognised by it)."""


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    task: str
    next_action: NextAction
    agent_outcome: AgentOutcome
    iterations: int
    final_response: str
    selected_agent: str
    tool_calls: list[ToolCallSpec]
    context_files: dict[str, str]
    """Files read into context before any model call (`@file` references)."""
    llm_calls: int
    """Model calls so far in the run (all nodes)."""
    error_fingerprints: list[str]
    attempts: list[Attempt]
    verification: VerificationResult | None
    """The verification agent's verdict on the files as they are now."""
    repairs_tried: list[str]
    """Fingerprints of the failures the repair search has already been run on."""
    status: Status
    status_message: str
    intent: Literal["change", "answer"]
    """answer: the task asks for an explanation (it edits nothing and gets no check)."""
