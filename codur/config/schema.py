"""The typed configuration. Every field carries a docstring; `codur config show` prints them.

The built-in values live in `configs/default.yaml`; the defaults here only matter for
keys that file leaves out. Unknown keys are errors (extra="forbid").
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from codur.config.agents import AgentsConfig, ollama_profile
from codur.config.context import ContextConfig
from codur.config.llm import LLMConfig, LLMProfile
from codur.config.planning import PlanningConfig
from codur.config.sections import (
    ApprovalConfig,
    AskConfig,
    CrossCheckConfig,
    DisplayConfig,
    EmbeddingConfig,
    McpServerConfig,
    MemoryConfig,
    RepairConfig,
    RunsConfig,
    SamplingConfig,
    SandboxConfig,
    UndoConfig,
    _Section,
)


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
    max_task_chars: int = Field(50_000, gt=0)
    """Longest task (or `codur ask` question) accepted, in characters; a longer one is
    refused before anything runs (exit code 2): put long text in a file and name it."""
    max_node_retries: int = Field(3, ge=0)
    """Times a graph step that raised an unexpected error runs again (the error in the
    model's context) before the run ends with status error; the tool and run_command
    steps never run again (their effects would repeat)."""
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
    """Before the whole suite, run the test files that import a changed or referenced
    module (directly or through the folder's other modules): quick feedback. False: the
    failing tests, then the whole suite."""
    test_command: list[str] | None = None
    """The project's test command (`--test-cmd`, like Aider's), as arguments or one string
    split by shell rules (no shell runs it); `python`/`python3` and `pytest` at its start
    mean the project's interpreter. Unset: detected from the project (pytest's
    configuration and its testpaths, a tests/ tree, unittest discovery). An untrusted
    project codur.yaml may not set it."""
    suite_budget_s: float = Field(300.0, gt=0)
    """Seconds the whole test suite may run at the end of a check. A suite stopped at it
    leaves a pass `checked` (part of the project's tests), never `verified`."""
    lint_command: list[str] | None = None
    """Linter for the static strategy, run with the changed files appended (e.g.
    `[ruff, check]`); unset means syntax and import checks only."""
    script_run_s: float = Field(5.0, ge=0)
    """With no expected output and no tests, the static checks also run each script the
    task names, stdin closed, for at most this long: an uncaught exception fails them (one
    from the check's surroundings, an OSError, a missing argument or module, is not
    judged; nor a script still running then, or one that exits with an error of its
    own). 0: scripts are not run."""
    allow_edit: list[str] = []
    """Files the checks judge by (expected output, tests, pytest's configuration...) that
    a run may change anyway, relative to the working folder (`--allow-edit FILE`). An
    untrusted project codur.yaml may not set it."""

    @field_validator("test_command", mode="before")
    @classmethod
    def _split_command(cls, value: object) -> object:
        """A string is split as a shell would (quotes, escapes), without running one."""
        if isinstance(value, str):
            try:
                value = shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"cannot split the test command: {exc}") from None
        if isinstance(value, list) and not value:
            raise ValueError("the test command is empty")
        return value


class LogConfig(_Section):
    path: str = ".codur/debug.log"
    """Debug log (JSON lines), relative to the working folder unless absolute; by default
    in Codur's own folder, which git ignores."""
    enabled: bool = True
    """Write the debug log at all."""
    max_field_chars: int = Field(4000, gt=0)
    """Long strings (prompts, outputs) are truncated to this many characters in the log."""
    max_bytes: int = Field(1_000_000, gt=0)
    """A run that finds the log this large first moves it to `<path>.1` (replacing the
    one there), so the log takes at most about twice this; `codur trace` reads both."""


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
        ".pytest_cache", ".ruff_cache", ".tox", ".codur",
    ]  # fmt: skip
    """Names of files and folders that listing and search tools always skip (on top of
    the workspace's .gitignore files); Codur's own (.codur, the debug log's folder) among them, so
    a search never feeds earlier prompts back to the model."""
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
    """The project's Python, which runs its programs, tests and checks (a path, relative to
    the folder, or a name on PATH). Unset: found from the project: $VIRTUAL_ENV, a .venv
    or venv in the folder or a parent up to the repository root, a uv, Hatch or Poetry
    environment on disk, python3 on PATH, Codur's own last (`codur doctor` says which)."""
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
    git_hooks: bool = False
    """Run the repository's hooks (pre-commit, commit-msg, ...) when the git tools stage or
    commit. Off by default, as with Aider's --no-verify: a hook runs with the
    repository writable, outside the confinement of the programs Codur runs."""
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
    context: ContextConfig = ContextConfig()
    """What the coder's prompt shows of the code: big files in part, located code."""
    repair: RepairConfig = RepairConfig()
    """Repair search: model-free fixes tried when verification fails."""
    sampling: SamplingConfig = SamplingConfig()
    """Sample and verify: several model replies tried in scratch copies per attempt."""
    crosscheck: CrossCheckConfig = CrossCheckConfig()
    """A change the docstrings' examples alone checked, compared with other replies."""
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
    prompts: dict[str, str] = {}
    """Custom node prompts: node -> prompt file (relative to the config file that sets
    it; to the folder for -o and CODUR_*). See docs/prompts.md and `codur prompts list`."""

    def profile(self, name: str | None = None) -> tuple[str, LLMProfile]:
        """The named profile (default: llm.default_profile), or ConfigError. `agent:NAME`
        is the profile an ollama-type agent runs on (`agents.ollama_profile`)."""
        from codur.errors import ConfigError

        name = name or self.llm.default_profile
        if name.startswith("agent:"):
            return name, ollama_profile(self, name.removeprefix("agent:"))
        name = name.removeprefix("llm:")
        if name not in self.llm.profiles:
            known = ", ".join(sorted(self.llm.profiles)) or "none"
            raise ConfigError(f"unknown LLM profile '{name}' (configured: {known})")
        return name, self.llm.profiles[name]

    def log_path(self, workdir: Path) -> Path:
        """Where this run's debug log goes."""
        return workdir / Path(self.log.path).expanduser()
