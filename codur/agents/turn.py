"""What one run of the model <-> tools loop (codur.agents.loop) is given and keeps: the
turn fixed before it, and the state it grows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypedDict

from langchain_core.messages import AnyMessage, BaseMessage
from langgraph.graph.message import add_messages

from codur.tools.todo import TodoItem

if TYPE_CHECKING:
    from codur.agents.registry import AgentRequest, AgentResult
    from codur.session import Session


class LoopAgent(Protocol):
    """An agent whose model <-> tools loop runs in the graph: it prepares the turn, the
    loop runs, and it settles the result from the turns (its reply read, its edits
    written)."""

    def start(self, request: AgentRequest, session: Session) -> Turn: ...

    def settle(self, turn: Turn, turns: list[BaseMessage], session: Session) -> AgentResult: ...


@dataclass(frozen=True)
class Turn:
    """One attempt's model call, fixed before the loop: the prompt, the tools offered and
    how, the reply's token budget; and what the agent needs to settle it."""

    profile: str | None
    prompt: tuple[BaseMessage, ...]
    """The system message and the task (files, failure, earlier attempts)."""
    names: tuple[str, ...] = ()
    """The tools the model is offered (none: one model call, no loop)."""
    bound: tuple[Any, ...] = ()
    """LangChain tools bound natively (empty when calls are read from text)."""
    native: bool = True
    budget: int | None = 2048
    """The reply's token cap (None: the profile's max_tokens)."""
    stop: tuple[str, ...] = ()
    """Stop sequences: where the reply has a natural end (codur.agents.reply_shape)."""
    sample: int = 0
    """The first call's sampling (0: the profile's own)."""
    vary: bool = True
    """Later calls sample differently (each its own seed), so a loop does not repeat a
    reply; False: every call samples as the first."""
    max_rounds: int = 5
    detect_from_text: bool = True
    refusal: str = "{name} is not one of your tools (you may call: {tools})"
    """The result of a call of a tool the turn does not offer ({name}, {tools})."""
    unreadable: str = (
        "the arguments of this call to {name} are not a JSON object ({error}): {raw}; "
        "call it again with its arguments as one JSON object"
    )
    """The result of a call whose arguments could not be read ({name}, {error}, {raw})."""
    request: AgentRequest | None = None
    edit_format: str = "whole_file"
    written_before: frozenset[str] = frozenset()
    owner: LoopAgent | None = field(default=None, compare=False)
    """The agent that started the turn and settles it."""
    completion: bool = False
    """attempt_completion is the only way out of the loop (plan_verify mode, tools
    offered): a reply without a tool call gets a reminder and another round."""


class LoopState(TypedDict, total=False):
    turn: Turn
    turns: Annotated[list[AnyMessage], add_messages]
    """The loop's conversation after the prompt: replies and tool results."""
    loop_rounds: int
    """Rounds of tools (and reminders) run so far."""
    todos: list[TodoItem]
    """The task's todo list (plan_verify mode): todo_write changes it."""
