"""The typed configuration. Every field carries a docstring; `codur config show` prints them.

The built-in values live in `configs/default.yaml`; the defaults here only matter for
keys that file leaves out. Unknown keys are errors (extra="forbid").
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class LLMProfile(_Section):
    provider: Literal["openai", "ollama", "local", "scripted"]
    """Which provider serves this profile: openai (any OpenAI-compatible endpoint),
    ollama, local (embedded llama.cpp) or scripted (replays a file, for tests/demos)."""
    model: str = ""
    """Model name as the provider knows it (e.g. gpt-4o-mini, qwen2.5-coder:1.5b)."""
    base_url: str | None = None
    """Endpoint URL for openai/ollama (e.g. http://127.0.0.1:8080/v1)."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (the key itself never goes
    in config files or logs)."""
    temperature: float = Field(0.2, ge=0, le=2)
    """Sampling temperature."""
    max_tokens: int = Field(2048, gt=0)
    """Upper bound on tokens generated per model call."""
    timeout_s: float = Field(120.0, gt=0)
    """Seconds to wait for one model response before treating it as a transient failure."""
    max_retries: int = Field(2, ge=0)
    """Retries (with exponential backoff) after a transient failure: connection error,
    timeout, HTTP 429 or 5xx."""
    retry_backoff_s: float = Field(1.0, ge=0)
    """First backoff delay in seconds; doubles after each retry."""
    native_tools: bool = True
    """Use the provider's native tool calling (bind_tools). When false, tools are described
    in the prompt and calls are read from the reply text."""
    edit_format: Literal["whole_file", "search_replace"] = "whole_file"
    """How this model is asked to edit files. Small models do best with whole files."""
    model_file: str | None = None
    """local: path to a GGUF file. Unset means the packaged weights named by `weights`."""
    weights: str | None = None
    """local: which packaged weights to use (a key of codur.models.weights.PACKAGED)."""
    n_ctx: int = Field(8192, gt=0)
    """local: context window in tokens."""
    n_threads: int | None = Field(None, gt=0)
    """local: CPU threads for inference (unset: the number of cores)."""
    seed: int = 0
    """local: sampling seed, so runs are reproducible."""
    script: str | None = None
    """scripted: path to a YAML/JSON file of responses to replay in order."""


class LLMConfig(_Section):
    default_profile: str = "local"
    """The profile used when an agent or command names none (`--profile` overrides)."""
    profiles: dict[str, LLMProfile] = {}
    """Named model profiles, referenced as `llm:NAME`."""


class AgentConfig(_Section):
    type: Literal["llm", "tool"] = "llm"
    """llm: an LLM coding agent driven by a profile; tool: a registered agent class."""
    profile: str | None = None
    """For type llm: the LLM profile this agent uses (default: llm.default_profile)."""
    description: str = ""
    """What the agent is good at; the planner reads this when choosing an agent."""
    options: dict[str, str | int | float | bool] = {}
    """Agent-specific options passed to a registered agent class."""


class AgentPreferences(_Section):
    default_agent: str = "agent:coder"
    """The agent that gets a task when planning does not pick one (or fails)."""


class AgentsConfig(_Section):
    preferences: AgentPreferences = AgentPreferences()
    """Agent selection preferences."""
    configs: dict[str, AgentConfig] = {}
    """Config-defined agents, referenced as `agent:NAME`."""


class RuntimeConfig(_Section):
    max_iterations: int = Field(10, gt=0)
    """Maximum review -> retry loops before the run ends unverified."""
    max_tool_iterations: int = Field(5, gt=0)
    """Maximum tool-call rounds within one agent execution."""
    max_llm_calls: int = Field(50, gt=0)
    """Hard cap on model calls in one run."""
    recursion_limit: int = Field(300, gt=0)
    """LangGraph recursion limit (graph steps) for one run."""
    detect_tool_calls_from_text: bool = True
    """Read tool calls written as text (JSON, fenced blocks) from models without native
    tool calling."""


class PlanningConfig(_Section):
    max_retry_attempts: int = Field(3, ge=0)
    """Planner retries when its reply cannot be parsed, before the default agent is used."""
    pre_plan_confidence: float = Field(0.9, ge=0, le=1)
    """Phase-1 classification may route directly only above this confidence."""


class VerifyConfig(_Section):
    entry_point: str | None = None
    """Program to run for verification; unset means the referenced file, else the folder's
    obvious entry point."""
    expected_file: str = "expected.txt"
    """File holding the exact expected stdout of the entry point."""
    timeout_s: float = Field(30.0, gt=0)
    """Seconds a verification run may take before it is stopped."""
    output_limit_bytes: int = Field(200_000, gt=0)
    """Output captured from a verification run; the rest is cut and reported as cut."""


class LogConfig(_Section):
    path: str = "codur_debug.log"
    """Debug log (JSON lines), relative to the working folder unless absolute."""
    enabled: bool = True
    """Write the debug log at all."""
    max_field_chars: int = Field(4000, gt=0)
    """Long strings (prompts, outputs) are truncated to this many characters in the log."""


class CodurConfig(_Section):
    llm: LLMConfig = LLMConfig()
    """Model profiles."""
    agents: AgentsConfig = AgentsConfig()
    """Agents and agent selection."""
    runtime: RuntimeConfig = RuntimeConfig()
    """Loop limits."""
    planning: PlanningConfig = PlanningConfig()
    """Planner behaviour."""
    verify: VerifyConfig = VerifyConfig()
    """How results are verified."""
    log: LogConfig = LogConfig()
    """The debug log."""

    def profile(self, name: str | None = None) -> tuple[str, LLMProfile]:
        """The named profile (default: llm.default_profile), or ConfigError."""
        from codur.errors import ConfigError

        name = name or self.llm.default_profile
        name = name.removeprefix("llm:")
        if name not in self.llm.profiles:
            known = ", ".join(sorted(self.llm.profiles)) or "none"
            raise ConfigError(f"unknown LLM profile '{name}' (configured: {known})")
        return name, self.llm.profiles[name]

    def log_path(self, workdir: Path) -> Path:
        """Where this run's debug log goes."""
        return workdir / Path(self.log.path).expanduser()
