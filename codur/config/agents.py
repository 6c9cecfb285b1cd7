"""Agents in config: what each `agents.configs.NAME` entry may say (by its `type`), agent
selection preferences, and the references (`agent:NAME`, `llm:PROFILE`) config values
may name.

Types: `llm` (the LLM coding agent on a profile), `ollama` (the coding agent speaking to
an Ollama server: `host`, `model`), `codex` and `claude_code` (the Codex and Claude Code
CLIs, run non-interactively in the workspace). docs/agents.md describes each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from codur.config.llm import LLMProfile
from codur.config.sections import _Section

if TYPE_CHECKING:
    from codur.config.schema import CodurConfig

AgentType = Literal["llm", "ollama", "codex", "claude_code"]

BUILTIN_AGENTS: tuple[str, ...] = ("coder", "ollama", "codex", "claude_code")
"""The registered agents (codur.agents.registry; a test checks the two agree): each may
be referenced as `agent:NAME` without a config entry."""

RUNS: dict[str, str] = {
    "llm": "coder",
    "ollama": "ollama",
    "codex": "codex",
    "claude_code": "claude_code",
}
"""The registered agent that runs an entry of each type."""

CLI_TYPES: frozenset[str] = frozenset({"codex", "claude_code"})
"""Types whose agent starts a program of its own (a CLI): an untrusted project file may
not add an entry of one, nor change an entry's type (codur.config.trust)."""

OLLAMA_HOST = "http://127.0.0.1:11434"
"""Where Ollama listens unless told otherwise (`ollama serve`)."""

_CLI_KEYS = frozenset(
    {"model", "command", "args", "timeout_s", "output_limit_bytes", "env_allow", "writable"}
)
_KEYS: dict[str, frozenset[str]] = {
    "llm": frozenset({"profile", "tools", "tool_names"}),
    "ollama": frozenset({"profile", "tools", "tool_names", "host", "model"}),
    "codex": _CLI_KEYS,
    "claude_code": _CLI_KEYS,
}
"""The settings each type takes (besides `type` and `description`)."""
_COMMON = frozenset({"type", "description"})


class AgentConfig(_Section):
    type: AgentType = "llm"
    """What runs this agent: llm (the LLM coding agent on `profile`), ollama (the coding
    agent on an Ollama server: `host`, `model`), codex (the Codex CLI) or claude_code
    (the Claude Code CLI). An untrusted project file may not add an entry of a CLI type
    nor change an entry's type (codur.config.trust)."""
    description: str = ""
    """What the agent is good at; the planner reads this when choosing an agent."""
    profile: str | None = None
    """llm: the LLM profile this agent uses (default: llm.default_profile). ollama: the
    profile whose other settings (temperature, context window, edit format, timeouts)
    apply, `host` and `model` replacing its own (default: the `ollama` profile). A
    profile that does not exist is a config error at load."""
    tools: list[str] = ["file_operation", "search", "code_validation"]
    """llm, ollama: task types (codur.tools.registry.TaskType) whose tools the agent may
    call."""
    tool_names: list[str] | None = None
    """llm, ollama: only these tools (by name) of those task types' tools (unset: all of
    them; the Python API's `tools=`). An unknown name stops the run (exit code 2)."""
    host: str | None = None
    """ollama: the server's URL (default: the profile's `base_url`, else
    http://127.0.0.1:11434)."""
    model: str | None = None
    """ollama: the model as `ollama list` names it (default: the profile's). codex,
    claude_code: passed to the CLI's `--model` (default: the CLI's own choice)."""
    command: str | None = None
    """codex, claude_code: the executable, a name looked up on PATH or a path (default:
    `codex`, `claude`)."""
    args: list[str] = []
    """codex, claude_code: more arguments, after Codur's own (see docs/agents.md)."""
    timeout_s: float = Field(900.0, gt=0)
    """codex, claude_code: seconds one run of the CLI may take; then it and everything
    it started are stopped and the agent has failed."""
    output_limit_bytes: int = Field(5_000_000, gt=0)
    """codex, claude_code: output captured from the CLI; past it the CLI is stopped and
    the agent has failed."""
    env_allow: list[str] | None = None
    """codex, claude_code: variables (names or globs) the CLI keeps although they look
    like secrets, on top of `sandbox.env_allow` (default: its API key variables, e.g.
    OPENAI_API_KEY for codex, ANTHROPIC_API_KEY for claude_code)."""
    writable: list[str] | None = None
    """codex, claude_code: folders (made if missing) or files the CLI may write besides
    the workspace when programs are confined (sandbox.confine), on top of
    `sandbox.writable` (default: the parts of its state folder it writes, such as
    ~/.codex/sessions, not its settings; see docs/agents.md)."""

    @model_serializer(mode="wrap")
    def _own_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Only the settings of its type (`codur config show`, the run's record)."""
        keep = _KEYS[self.type] | _COMMON
        return {k: v for k, v in handler(self).items() if k in keep}

    @model_validator(mode="after")
    def _keys_of_its_type(self) -> AgentConfig:
        fields = type(self).model_fields
        others = self.model_fields_set - _KEYS[self.type] - _COMMON
        stray = sorted(n for n in others if getattr(self, n) != fields[n].default)  # a dump's too
        if stray:
            allowed = ", ".join(sorted(_KEYS[self.type] | _COMMON))
            raise ValueError(
                f"{', '.join(stray)}: not a setting of a {self.type} agent (its settings: "
                f"{allowed})"
            )
        return self


class AgentPreferences(_Section):
    default_agent: str = "agent:coder"
    """The agent that gets a task when planning does not pick one (or fails): a
    reference, `agent:NAME` or `llm:PROFILE`."""
    fallback_order: list[str] = []
    """Agents tried, in this order, when the running agent fails or cannot run (not
    installed, its server or model unreachable, the CLI exited with an error or timed
    out): the first one that has not failed in this run takes over, and the switch is
    logged (`agent.fallback`). Empty: a failing agent ends the run (exit code 3)."""


class AgentsConfig(_Section):
    preferences: AgentPreferences = AgentPreferences()
    """Agent selection preferences."""
    configs: dict[str, AgentConfig] = {}
    """Config-defined agents, referenced as `agent:NAME`."""


def reference(name: str) -> str:
    """`name` as a full reference (a bare NAME means agent:NAME)."""
    return name if ":" in name else f"agent:{name}"


def valid_references(cfg: CodurConfig) -> list[str]:
    """Every reference config may name: the config-defined agents, the registered ones
    no entry shadows, and each profile as `llm:NAME`."""
    entries = list(cfg.agents.configs)
    return (
        [f"agent:{n}" for n in entries]
        + [f"agent:{n}" for n in BUILTIN_AGENTS if n not in entries]
        + [f"llm:{n}" for n in cfg.llm.profiles]
    )


def unknown_references(cfg: CodurConfig) -> tuple[tuple[str, ...], str] | None:
    """The first config value naming an agent or profile that does not exist: (its key,
    one line naming the valid ones); None when all are known."""
    valid = valid_references(cfg)
    prefs = cfg.agents.preferences
    named = [(("agents", "preferences", "default_agent"), prefs.default_agent)]
    named += [(("agents", "preferences", "fallback_order"), ref) for ref in prefs.fallback_order]
    for key, ref in named:
        if reference(ref) not in valid:
            return key, f"unknown agent '{ref}' (valid: {', '.join(valid)})"
    for key, name, agents in _profile_references(cfg):
        problem = _unknown_profile(cfg, name, agents)
        if problem is not None:
            return key, problem
    return None


def _profile_references(cfg: CodurConfig) -> list[tuple[tuple[str, ...], str, bool]]:
    """(key, the profile it names, whether an ollama agent's `agent:NAME` may stand for a
    profile there) for every config value naming a profile."""
    named = [(("llm", "default_profile"), cfg.llm.default_profile, True)]
    named += [(("llm", "fallback_order"), name, False) for name in cfg.llm.fallback_order]
    if cfg.ask.profile is not None:
        named.append((("ask", "profile"), cfg.ask.profile, True))
    for agent, entry in cfg.agents.configs.items():
        if entry.profile is not None:  # llm and ollama types (a CLI's is a stray key)
            key = ("agents", "configs", agent, "profile")
            named.append((key, entry.profile, entry.type == "llm"))
    return named


def _unknown_profile(cfg: CodurConfig, name: str, agents: bool) -> str | None:
    """Why `name` names no profile, in one line listing the valid ones; None when it
    does: NAME or llm:NAME of a profile, or (where `agents`) agent:NAME of an ollama
    agent (CodurConfig.profile)."""
    if agents and name.startswith("agent:"):
        ollama = [f"agent:{n}" for n, e in cfg.agents.configs.items() if e.type == "ollama"]
        if "ollama" not in cfg.agents.configs:
            ollama.append("agent:ollama")  # the registered one
        if name in ollama:
            return None
        return f"'{name}' is no ollama agent (ollama agents: {', '.join(ollama) or 'none'})"
    if name.removeprefix("llm:") in cfg.llm.profiles:
        return None
    known = ", ".join(cfg.llm.profiles) or "none"
    return f"unknown LLM profile '{name}' (configured: {known})"


def ollama_profile(cfg: CodurConfig, name: str) -> LLMProfile:
    """The profile the ollama-type agent `name` runs on (agents.configs.NAME, or the
    registered `ollama` agent with no entry): its `profile`'s settings (default: the
    `ollama` profile) with its `host` and `model`, spoken to as Ollama."""
    from codur.errors import ConfigError

    entry = cfg.agents.configs.get(name)
    if entry is None and name == "ollama":
        entry = AgentConfig(type="ollama")
    if entry is None or entry.type != "ollama":
        raise ConfigError(f"agent:{name} is not an ollama agent")
    base_name = entry.profile or ("ollama" if "ollama" in cfg.llm.profiles else None)
    base = cfg.profile(base_name)[1] if base_name else LLMProfile(provider="ollama")
    own = base.provider == "ollama"
    model = entry.model or (base.model if own else "")
    if not model:
        raise ConfigError(f"agents.configs.{name}.model: agent:{name} needs a model")
    host = entry.host or (base.base_url if own else None) or OLLAMA_HOST
    return base.model_copy(update={"provider": "ollama", "base_url": host, "model": model})
