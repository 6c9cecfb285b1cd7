"""The typed configuration. Every field carries a docstring; `codur config show` prints them.

The built-in values live in `configs/default.yaml`; the defaults here only matter for
keys that file leaves out. Unknown keys are errors (extra="forbid").
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from codur.config.planning import PlanningConfig
from codur.config.sections import (
    ApprovalConfig,
    AskConfig,
    DisplayConfig,
    EmbeddingConfig,
    MemoryConfig,
    RepairConfig,
    RunsConfig,
    SamplingConfig,
    SandboxConfig,
    UndoConfig,
    _Section,
)


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
    """Seconds one model request may take as a whole, however its answer trickles in
    (openai, ollama); then it counts as a transient failure and is retried."""
    retry_temperature: float = Field(0.8, ge=0, le=2)
    """Temperature for a new attempt after a failed one (with a different seed), so the
    model samples a different fix instead of repeating the one that failed."""
    max_retries: int = Field(2, ge=0)
    """Retries (with exponential backoff) after a transient failure: connection error,
    timeout, HTTP 429 or 5xx."""
    retry_backoff_s: float = Field(1.0, ge=0)
    """First backoff delay in seconds; doubles after each retry."""
    native_tools: bool = True
    """Use the provider's native tool calling (bind_tools). When false, tools are described
    in the prompt and calls are read from the reply text."""
    agent_tools: bool = True
    """Offer tools to agents running on this profile. Small embedded models do better
    with the relevant files given up front and no tool list to read."""
    edit_format: Literal["whole_file", "search_replace", "functions"] = "whole_file"
    """How this model is asked to edit files: the complete file (whole_file), SEARCH/REPLACE
    blocks (search_replace), or only the changed functions/classes, merged into the file by
    name (functions). Any of these shapes in a reply is applied, whichever was asked for.
    Small models do best with whole files or functions."""
    model_file: str | None = None
    """local: path to a GGUF file. Unset means the packaged weights named by `weights`."""
    weights: str | None = None
    """local: which packaged weights to use (a key of codur.models.weights.PACKAGED)."""
    n_ctx: int = Field(8192, gt=0)
    """local: context window in tokens."""
    n_threads: int | None = Field(None, gt=0)
    """local: CPU threads for inference (unset: the number of cores)."""
    seed: int = 0
    """Sampling seed, so runs are reproducible; attempt k after a failed one uses seed + k
    (local and ollama; OpenAI-compatible servers get it too, some ignore it)."""
    context_window: int | None = Field(None, gt=0)
    """openai/ollama/scripted: the model's context window in tokens (prompt plus reply),
    for fitting prompts into it; unset means unknown. Ollama also gets it as `num_ctx`, so
    the server loads the model with that window instead of its small default, which
    silently drops the start of longer prompts. local: `n_ctx` is the window."""
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
    tools: list[str] = ["file_operation", "search", "code_validation"]
    """Task types (codur.tools.registry.TaskType) whose tools this agent may call."""


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
    max_llm_calls: int = Field(50, ge=0)
    """Hard cap on model calls in one run. 0: no model at all (phase 0 and the repair
    search only; the model is never loaded), as `--no-model`."""
    recursion_limit: int = Field(300, gt=0)
    """LangGraph recursion limit (graph steps) for one run."""
    detect_tool_calls_from_text: bool = True
    """Read tool calls written as text (JSON, fenced blocks) from models without native
    tool calling."""


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
    relevant_tests_only: bool = True
    """Run only the test files that import a changed or referenced module when some do
    (all tests otherwise)."""
    lint_command: list[str] | None = None
    """Linter for the static strategy, run with the changed files appended (e.g.
    `[ruff, check]`); unset means syntax and import checks only."""


class LogConfig(_Section):
    path: str = "codur_debug.log"
    """Debug log (JSON lines), relative to the working folder unless absolute."""
    enabled: bool = True
    """Write the debug log at all."""
    max_field_chars: int = Field(4000, gt=0)
    """Long strings (prompts, outputs) are truncated to this many characters in the log."""


class ToolsConfig(_Section):
    allow_outside_workspace: bool = False
    """Let tools reach paths outside the workspace (`..`, absolute paths, symlinks that
    lead out). Off by default: everything a tool touches stays inside the workspace."""
    allow_secrets: bool = False
    """Let tools read and search files matching `secret_patterns` (.env, keys, ...)."""
    secret_patterns: list[str] = [
        ".env", ".env.*", "*.pem", "*.key", "*.p12", "id_rsa*", "id_dsa*", "id_ecdsa*",
        "id_ed25519*", ".netrc", ".pgpass", ".git-credentials",
    ]  # fmt: skip
    """File-name globs (or workspace-relative path globs, with a `/`) of secrets files
    that tools neither read nor search unless `allow_secrets` is true."""
    ignore: list[str] = [
        ".git", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".tox",
    ]  # fmt: skip
    """Names of files and folders that listing and search tools always skip (on top of
    the workspace's .gitignore files)."""
    max_ref_bytes: int = Field(1_000_000, gt=0)
    """Largest file a task may name with `@path` (it goes whole into the prompt); a
    larger one stops the run with a message (exit code 2)."""
    max_read_bytes: int = Field(200_000, gt=0)
    """read_file returns at most this many bytes of a file; ask for a line range to read
    further."""
    max_result_chars: int = Field(20_000, gt=0)
    """A tool result longer than this is cut (with a note) before the model sees it."""
    max_list_entries: int = Field(500, gt=0)
    """Listing, tree and file-search tools stop after this many entries (with a note)."""
    event_preview_chars: int = Field(300, gt=0)
    """tool.call / tool.result events carry at most this many characters of arguments
    and output."""
    grep_backend: Literal["auto", "ripgrep", "python"] = "auto"
    """grep_files engine: ripgrep (the `rg` binary of the ripgrep package), the
    pure-Python fallback, or auto (ripgrep when found)."""
    grep_max_matches: int = Field(200, gt=0)
    """grep_files returns at most this many matching lines."""
    grep_timeout_s: float = Field(30.0, gt=0)
    """Seconds a grep_files search may take before it is stopped."""
    python: str | None = None
    """Interpreter for run_python_file and run_pytest; unset means the one running Codur."""
    run_timeout_s: float = Field(60.0, gt=0)
    """Seconds run_python_file lets a program run before stopping it."""
    pytest_timeout_s: float = Field(300.0, gt=0)
    """Seconds run_pytest lets a test run take before stopping it."""
    command_timeout_s: float = Field(60.0, gt=0)
    """Seconds run_command lets a shell command run before stopping it (and its
    descendants); the model may ask for less, never more."""
    output_limit_bytes: int = Field(200_000, gt=0)
    """Output captured from a program run by a tool; past it the program is stopped."""
    memory_limit_mb: int | None = Field(2048, gt=0)
    """Address-space cap in MiB for programs run by tools (unset: no cap)."""
    git_timeout_s: float = Field(30.0, gt=0)
    """Seconds one git command may take."""
    mcp_timeout_s: float = Field(30.0, gt=0)
    """Seconds to start an MCP server or wait for one of its answers."""
    web_timeout_s: float = Field(10.0, gt=0)
    """Seconds fetch_webpage and duckduckgo_search may take, in all."""
    web_max_bytes: int = Field(2_000_000, gt=0)
    """fetch_webpage stops downloading a page past this many bytes."""
    code_index_dir: str | None = ".codur/index"
    """Where search_codebase keeps its index of the workspace's Python files (relative
    to the workspace; updated by file hash). Unset: built in memory for each run."""
    code_search: Literal["bm25", "hybrid"] = "bm25"
    """How search_codebase ranks: BM25 alone, or BM25 fused by reciprocal rank with the
    embedding model's ranking (`embedding`; needs `codur[embed]`, else a ranking of chunk
    names stands in and `-v` says why). Figures: docs/benchmarks.md."""
    embedding: EmbeddingConfig = EmbeddingConfig()
    """The embedding model of hybrid code search."""
    search_backend: str = "duckduckgo"
    """ddgs backend for duckduckgo_search (duckduckgo, auto, bing, ...)."""


class McpServerConfig(_Section):
    command: str | None = None
    """stdio server: the program to start (e.g. `npx`, `uvx`, a path)."""
    args: list[str] = []
    """stdio server: its command-line arguments."""
    env: dict[str, str] = {}
    """stdio server: extra environment variables."""
    cwd: str | None = None
    """stdio server: working folder, relative to the workspace root (default: the root)."""
    url: str | None = None
    """HTTP server: its streamable-HTTP endpoint (e.g. http://127.0.0.1:8000/mcp)."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs exactly one of `command` (stdio) or `url`")
        return self


class CodurConfig(_Section):
    llm: LLMConfig = LLMConfig()
    """Model profiles."""
    agents: AgentsConfig = AgentsConfig()
    """Agents and agent selection."""
    runtime: RuntimeConfig = RuntimeConfig()
    """Loop limits."""
    planning: PlanningConfig = PlanningConfig()
    """Planner behaviour."""
    ask: AskConfig = AskConfig()
    """`codur ask`: the research loop's caps."""
    verify: VerifyConfig = VerifyConfig()
    """How results are verified."""
    repair: RepairConfig = RepairConfig()
    """Repair search: model-free fixes tried when verification fails."""
    sampling: SamplingConfig = SamplingConfig()
    """Sample and verify: several model replies tried in scratch copies per attempt."""
    log: LogConfig = LogConfig()
    """The debug log."""
    tools: ToolsConfig = ToolsConfig()
    """The tools the agents call: limits, safety switches, engines."""
    display: DisplayConfig = DisplayConfig()
    """What the terminal shows."""
    sandbox: SandboxConfig = SandboxConfig()
    """How the programs Codur runs are contained: environment, confinement."""
    mcp_servers: dict[str, McpServerConfig] = {}
    """MCP servers whose tools and resources the MCP tools reach, by name."""
    approval: ApprovalConfig = ApprovalConfig()
    """What needs the user's yes: edits, programs, destructive actions."""
    undo: UndoConfig = UndoConfig()
    """Snapshots of the workspace taken before each run, for `codur undo` and `codur diff`."""
    memory: MemoryConfig = MemoryConfig()
    """Preferences, the `codur ask` answer cache and the node log, kept between runs."""
    runs: RunsConfig = RunsConfig()
    """Checkpoints for `codur resume`; recording and replaying model calls."""

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
