"""The agent registry: agents are registered by name; references resolve to one of them.

References (seed 000): `agent:NAME` is a config-defined agent (agents.configs.NAME) or a
registered agent class; `llm:PROFILE` is the LLM coding agent on that profile. Adding an
agent is one module with a class and an `@register("name")` line, plus its import below.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from codur.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.config.schema import AgentConfig, CodurConfig
    from codur.session import Session
    from codur.tools.todo import TodoItem

_MODULES = ("codur.agents.coder",)
"""Modules holding registered agents, imported on first lookup."""


@dataclass
class AgentRequest:
    """What an agent is asked: the task, the files as they are now, how the check fails
    on them, and one line for each earlier attempt that did not work."""

    task: str
    files: dict[str, str]
    evidence: str | None = None
    """The current failure (expected / actual / error / where to look), if any."""
    attempts: tuple[str, ...] = ()
    edit_format: str | None = None
    """Overrides the profile's edit format (changed functions only after a cut reply)."""
    hot_lines: dict[str, set[int]] = field(default_factory=dict)
    """Lines the failure went through, per file (kept when a prompt must be shortened)."""
    seen: frozenset[str] = frozenset()
    """Digests of earlier replies: a reply identical to one of them is not applied."""
    preferences: tuple[str, ...] = ()
    """The user's standing preferences (persistent memory), for the system prompt."""
    context: str = ""
    """What a `codur chat` session said before this task (empty outside a chat)."""
    plan: tuple[str, ...] = ()
    """plan_verify mode: the step plan to work through (empty: not in that mode). An agent
    with tools then ends with attempt_completion; one without completes with its reply."""
    plan_iteration: int = 0
    """plan_verify mode: which plan this is (1: the first)."""
    todos: tuple[TodoItem, ...] = ()
    """plan_verify mode: the task's todo list as it stands."""


@dataclass
class AgentResult:
    """What came back: the final reply, new conversation turns, files changed, or why the
    attempt is unusable (an error the next attempt is told about)."""

    reply: str
    messages: list[BaseMessage] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    """Parts of the reply that were not applied (an edit outside the scope), for the
    next attempt to read even though other edits went through."""
    digest: str = ""
    """Identifies the reply's content (see codur.agents.proposal.digest)."""
    duplicate: bool = False
    """The reply repeated an earlier one: nothing was applied."""
    truncated: bool = False
    """The reply was cut at the token limit: nothing was applied."""
    completion: str | None = None
    """plan_verify mode: the result the agent gave attempt_completion; None: it did not
    call it (or was not asked to)."""


class Agent(Protocol):
    def run(self, request: AgentRequest, session: Session) -> AgentResult: ...


AgentFactory = Callable[["AgentConfig | None", "str | None"], Agent]
_AGENTS: dict[str, AgentFactory] = {}


def register(name: str) -> Callable[[AgentFactory], AgentFactory]:
    """Register an agent factory `(agent_config, profile) -> Agent` under `name`."""

    def add(factory: AgentFactory) -> AgentFactory:
        _AGENTS[name] = factory
        return factory

    return add


def registered() -> dict[str, AgentFactory]:
    for module in _MODULES:
        importlib.import_module(module)
    return dict(_AGENTS)


@dataclass(frozen=True)
class ResolvedAgent:
    reference: str
    kind: str
    """The registered agent that runs it."""
    profile: str | None
    config: AgentConfig | None

    def build(self) -> Agent:
        return registered()[self.kind](self.config, self.profile)


def agent_choices(cfg: CodurConfig) -> list[str]:
    """The agents the planner chooses among: config-defined agents, then registered ones
    that no config entry covers (`llm:PROFILE` stays available to users, not offered)."""
    agents = registered()
    refs = [
        f"agent:{name}"
        for name, agent in cfg.agents.configs.items()
        if agent.type == "llm" or name in agents
    ]
    covered = {"coder"} if any(a.type == "llm" for a in cfg.agents.configs.values()) else set()
    return refs + [
        f"agent:{name}" for name in agents if name not in set(cfg.agents.configs) | covered
    ]


def known_references(cfg: CodurConfig) -> list[str]:
    """Every valid reference, for error messages."""
    return agent_choices(cfg) + [f"llm:{name}" for name in cfg.llm.profiles]


def resolve(reference: str, cfg: CodurConfig) -> ResolvedAgent:
    """The agent behind `reference` (a bare NAME means agent:NAME), or ConfigError naming
    the valid ones."""
    if ":" not in reference:
        reference = f"agent:{reference}"
    kind, _, name = reference.partition(":")
    if kind == "llm" and name in cfg.llm.profiles:
        return ResolvedAgent(reference, "coder", name, None)
    if kind == "agent" and name in cfg.agents.configs:
        agent_cfg = cfg.agents.configs[name]
        target = "coder" if agent_cfg.type == "llm" else name
        if target in registered():
            return ResolvedAgent(reference, target, agent_cfg.profile, agent_cfg)
    if kind == "agent" and name in registered():
        return ResolvedAgent(reference, name, None, None)
    valid = ", ".join(known_references(cfg))
    raise ConfigError(f"unknown agent '{reference}' (valid: {valid})")
