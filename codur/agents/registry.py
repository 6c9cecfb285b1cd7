"""The agent registry: agents are registered by name; references resolve to one of them.

References: `agent:NAME` is a config-defined agent (agents.configs.NAME, run by
the registered agent of its type) or a registered agent class (coder, ollama, codex,
claude_code); `llm:PROFILE` is the LLM coding agent on that profile. Adding an agent is
one module with a class and an `@register("name")` line, plus its module in `_MODULES`
(and its name in codur.config.agents.BUILTIN_AGENTS, its type in AgentType).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from codur.config.agents import RUNS, reference, valid_references
from codur.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.config.schema import AgentConfig, CodurConfig
    from codur.session import Session
    from codur.tools.todo import TodoItem

_MODULES = (
    "codur.agents.coder",
    "codur.agents.ollama",
    "codur.agents.codex",
    "codur.agents.claude_code",
)
"""Modules holding registered agents, imported on first lookup."""

CLI_KINDS = frozenset({"codex", "claude_code"})
"""Registered agents that run a CLI (no model profile of Codur's)."""


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
    stubs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Functions with no body yet, per file: the prompt asks to implement them."""
    hot_lines: dict[str, set[int]] = field(default_factory=dict)
    """Lines the failure went through, per file (kept when a prompt must be shortened)."""
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Files shown in part (big ones): path -> the definitions shown whole, with the
    module's imports and the names they use (codur.edits.excerpt); `files` still holds
    their whole text, which a reply's functions are merged into."""
    related: tuple[str, ...] = ()
    """A map of the related code not shown: `path:line signature` lines."""
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
    failed: bool = False
    """The agent itself failed (its CLI exited with an error or timed out, the user said
    no to running it): `error` says how. Not a reply whose edits were unusable."""
    completion: str | None = None
    """plan_verify mode: the result the agent gave attempt_completion; None: it did not
    call it (or was not asked to)."""


class AgentBackend(Protocol):
    """A registered agent (coder, ollama, a CLI agent) as the graph runs it: `run` does the
    task as a whole; what more it can do, it declares. (`codur.Agent` is the Python API.)"""

    loops: ClassVar[bool]
    """Its model <-> tools loop runs in the graph's execute step: it has `start` and
    `settle` (codur.agents.loop.LoopAgent). False: the step calls `run`."""
    proposes: ClassVar[bool]
    """It can make a reply without writing it (`propose`, as `CoderAgent.propose`):
    sampling and the cross-check need that. A CLI agent edits the files itself."""

    def run(self, request: AgentRequest, session: Session) -> AgentResult: ...


AgentFactory = Callable[["ResolvedAgent"], AgentBackend]
_AGENTS: dict[str, AgentFactory] = {}


def register(name: str) -> Callable[[AgentFactory], AgentFactory]:
    """Register an agent factory `(resolved agent) -> AgentBackend` under `name`."""

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
    """The profile its model runs on: llm agents' (None: the default), an ollama agent's
    own (`agent:NAME`, codur.config.agents.ollama_profile); None for a CLI agent."""
    config: AgentConfig | None

    def build(self) -> AgentBackend:
        return registered()[self.kind](self)


def agent_choices(cfg: CodurConfig) -> list[str]:
    """The agents the planner chooses among: the default agent, the config-defined ones,
    and the LLM coding agent when no entry covers it. A registered agent that needs
    something installed (ollama, codex, claude_code) is offered only when an entry or
    the default names it; `llm:PROFILE` stays available to users, not offered."""
    refs = [f"agent:{name}" for name in cfg.agents.configs]
    if not any(a.type == "llm" for a in cfg.agents.configs.values()):
        refs.append("agent:coder")
    default = reference(cfg.agents.preferences.default_agent)
    if default.startswith("agent:") and default not in refs:
        refs.insert(0, default)
    return refs


def resolve_offered(ref: str, cfg: CodurConfig, also: list[str] | None = None) -> ResolvedAgent:
    """`resolve` for an agent the planner (a model, reading text an untrusted repository
    may have written) chose: ConfigError, as for an unknown agent, unless it is one of
    `agent_choices`, the default agent or `also` (references the config names), so that
    no text makes a run start a CLI agent nobody configured."""
    agent = resolve(ref, cfg)
    allowed = [*agent_choices(cfg), cfg.agents.preferences.default_agent, *(also or [])]
    if agent.reference not in {reference(r) for r in allowed}:
        offered = ", ".join(agent_choices(cfg))
        raise ConfigError(f"agent '{agent.reference}' is not offered (offered: {offered})")
    return agent


def known_references(cfg: CodurConfig) -> list[str]:
    """Every valid reference, for error messages."""
    return valid_references(cfg)


def resolve(ref: str, cfg: CodurConfig) -> ResolvedAgent:
    """The agent behind `ref` (a bare NAME means agent:NAME), or ConfigError naming the
    valid ones."""
    ref = reference(ref)
    kind, _, name = ref.partition(":")
    if kind == "llm" and name in cfg.llm.profiles:
        return ResolvedAgent(ref, "coder", name, None)
    if kind == "agent" and name in cfg.agents.configs:
        entry = cfg.agents.configs[name]
        target = RUNS[entry.type]
        profile = ref if entry.type == "ollama" else entry.profile
        return ResolvedAgent(ref, target, None if target in CLI_KINDS else profile, entry)
    if kind == "agent" and name in registered():
        return ResolvedAgent(ref, name, ref if name == "ollama" else None, None)
    valid = ", ".join(known_references(cfg))
    raise ConfigError(f"unknown agent '{ref}' (valid: {valid})")


def can_sample(ref: str, cfg: CodurConfig) -> bool:
    """Whether the agent can propose replies without writing them (sampling and the
    cross-check need it): what it declares (`AgentBackend.proposes`)."""
    return resolve(ref, cfg).build().proposes


def fallback(cfg: CodurConfig, failed: list[str]) -> str | None:
    """The agent that takes over when the agents in `failed` (this one included) failed
    or could not run: the first of agents.preferences.fallback_order not among them."""
    down = {reference(r) for r in failed}
    order = [reference(r) for r in cfg.agents.preferences.fallback_order]
    return next((r for r in order if r not in down), None)
