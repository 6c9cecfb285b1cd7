"""The Python API: `from codur import Agent`.

    agent = Agent(cwd="project", model="llm:local")
    result = agent.run("fix @main.py")
    result.is_verified, result.evidence, result.final_answer, result.files_changed

A run is the CLI's run (`codur.command.wired`): the same config layers (built-in, user,
the folder's codur.yaml, `CODUR_*`), then the Agent's arguments on top; the same
snapshot before any edit (`codur undo` works), debug log and verdict. Nothing is printed
unless `verbose`; nobody is asked anything (approvals that need a yes stop the run with
status `approval`). What `Agent(...)`, `run` and `arun` raise, and when, is listed in
docs/api.md ("Errors"): CodurErrors with one line, e.g. ConfigError for bad arguments or
config, UsageError for a file named with @ that is missing, ModelUnreachable for a model
that cannot be reached, WorkspaceBusy while another run may change the folder; every
other ending is a Result. `arun` cancelled stops its run as Ctrl-C would (docs/api.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.errors import Cancelled, ConfigError, UsageError
from codur.verify.strength import PASSED, Strength

PROVIDERS = ("openai", "ollama", "local", "scripted")
API_PROFILE = "api"
"""The profile an Agent's `model="provider/model"` becomes."""


@dataclass
class Usage:
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    wall_s: float = 0.0


@dataclass
class Result:
    """How a run ended. `result["final_answer"]` works too (dict access, for callers
    that treat a result as a dict)."""

    status: str
    """verified, checked, done, unverified, stuck, limit, approval, failed (the agent
    failed, no fallback agent left) or error (docs/verification.md)."""
    message: str
    final_answer: str
    """What the run answers: the agent's or planner's reply, else the status message."""
    is_verified: bool
    """The project's own check (its expected-output file, its tests that reach the code)
    passed on the changed code (status verified). Never true on derived evidence (the
    task's statements, docstring examples, a test the model wrote: status checked) nor on
    a model's word."""
    files_changed: list[str]
    diff: str
    messages: list[Any]
    """The run's conversation (LangChain messages)."""
    plan_iteration: int
    """plan_verify mode (docs/verification.md): plans made, 1 plus one per replan after
    a failed verification; 0: the run used the check-driven loop."""
    usage: Usage
    run_id: str
    exit_code: int
    check: str = ""
    """What the verdict rests on (the checks that ran)."""
    evidence: Strength | None = None
    """A passing run (verified or checked): how strong its evidence is, `.level` (project,
    task, docstring, model), `.owned` (the project's own check) and `.description` (one
    line: `checked against 3 docstring examples`); None for any other ending."""
    plan: list[str] = field(default_factory=list)
    """plan_verify mode: the last step plan."""
    verifier_verdict: str = ""
    """plan_verify mode: the model verifier's last verdict (VERIFIED / NOT_VERIFIED)."""
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    @property
    def passed_checks(self) -> bool:
        """A behavioural check passed on the changed code: verified (the project's own)
        or checked (derived from the task, the docstrings or the model; see `evidence`)."""
        return self.status in PASSED


class Agent:
    """A Codur agent on a folder. See the module docstring and docs/api.md."""

    def __init__(
        self,
        cwd: str | Path = ".",
        model: str | None = None,
        enable_planning: bool = True,
        tools: list[str] | None = None,
        recursion_limit: int = 50,
        verbose: bool = False,
        config: str | Path | None = None,
        overrides: list[str] | None = None,
        **model_kwargs: Any,
    ) -> None:
        """`model`: "llm:NAME" (a configured profile), "provider/model" (provider one of
        openai, ollama, local; `model_kwargs` are the profile's other fields, such as
        base_url, api_key_env, temperature), or None (the configured default). `tools`:
        names of the tools the agent may call (None: its configured ones). `config`: a
        YAML file layered over the folder's; `overrides`: "key=value" strings, as `-o`."""
        from codur.promptbook import PromptBook

        _check_kinds(cwd=cwd, model=model, tools=tools, overrides=overrides)
        self.cwd = Path(cwd).resolve()
        if not self.cwd.is_dir():
            raise ConfigError(f"Agent(cwd={str(cwd)!r}): no such folder")
        self.verbose = verbose
        self._flags = _flags(model, enable_planning, tools, recursion_limit, model_kwargs)
        self._file = Path(config) if config else None
        self._overrides = list(overrides or [])
        self.loaded = self._load()  # bad arguments fail here, not at the first run
        self.prompts = PromptBook(self.loaded.config.prompts)

    def _load(self) -> Any:
        from codur.config import load_config

        return load_config(self.cwd, self._file, self._overrides, flags=self._flags)

    def set_prompt(self, name: str, text: str) -> None:
        """Replace node `name`'s prompt (`codur prompts list` names them); a template
        missing a required placeholder raises PromptError (docs/prompts.md)."""
        self.prompts.set(name, text)

    def run(self, task: str) -> Result:
        """Run `task` in the folder to its end; the Result says how it ended. Raises only
        what docs/api.md ("Errors") lists: e.g. UsageError when a file the task names
        with @ is missing, ConfigError for the config or an unknown profile,
        ModelUnreachable, AgentUnavailable, WorkspaceBusy when another run that may change
        files is under way in the folder (this process's or another's; nothing done)."""
        return self._run(task, None)

    async def arun(self, task: str) -> Result:
        """`run` without blocking the event loop (in a worker thread). Cancelled (its task's
        `cancel()`, a timeout), the run stops at its next node, model call or program
        (programs are killed, a model call under way is cut), ends `interrupted` in the
        debug log and lets go of the folder; then CancelledError is raised here."""
        cancel = threading.Event()
        loop = asyncio.get_running_loop()
        running = loop.run_in_executor(None, self._run_until_cancelled, task, cancel)
        try:
            return await asyncio.shield(running)
        except asyncio.CancelledError:
            cancel.set()
            await asyncio.wait([running])  # the run unwinds (a second cancel: go at once)
            if not running.cancelled():
                running.exception()  # an error while unwinding: the caller hears the cancel
            raise

    def _run_until_cancelled(self, task: str, cancel: threading.Event) -> Result | None:
        """`_run` in arun's worker thread: None when it was cancelled (Cancelled must not
        reach the event loop, which would stop on a KeyboardInterrupt). Cancelled before
        the thread started: nothing is loaded, locked or written (no run record)."""
        if cancel.is_set():
            return None
        try:
            return self._run(task, cancel)
        except Cancelled:
            return None

    def _run(self, task: str, cancel: threading.Event | None) -> Result:
        from codur.command import How, wired
        from codur.run import run_task
        from codur.ui import IO, SilentIO

        if not isinstance(task, str):
            raise UsageError(f"Agent.run(task): the task must be text, not {type(task).__name__}")

        def terminal(redact: Any) -> IO:
            return IO(verbose=True, redact=redact) if self.verbose else SilentIO(redact=redact)

        ended: list[Any] = []
        how = How(verbose=self.verbose, prompts=self.prompts, io=terminal, cancel=cancel)
        loaded = self._load()  # the folder's config as it is now
        wired(loaded, self.cwd, task, "run", run_task, lambda io, r, log: ended.append(r), how)
        return _result(ended[0])


def _check_kinds(cwd: object, model: object, tools: object, overrides: object) -> None:
    """ConfigError for an argument of the wrong kind (a string where a list of names is
    wanted would otherwise be read as a list of its characters)."""
    if not isinstance(cwd, str | Path):
        raise ConfigError(f"Agent(cwd={cwd!r}): a folder's path expected")
    if model is not None and not isinstance(model, str):
        raise ConfigError(f"Agent(model={model!r}): 'llm:PROFILE' or 'provider/model' expected")
    for name, value in (("tools", tools), ("overrides", overrides)):
        if isinstance(value, str):
            raise ConfigError(f"Agent({name}={value!r}): a list of strings expected, not a string")


def _flags(
    model: str | None,
    planning: bool,
    tools: list[str] | None,
    recursion_limit: int,
    model_kwargs: dict[str, Any],
) -> dict[str, tuple[str, Any]]:
    """The Agent's arguments as config layers (label -> key, value)."""
    flags: dict[str, tuple[str, Any]] = {
        "Agent(enable_planning=...)": ("planning.enabled", planning),
        "Agent(recursion_limit=...)": ("runtime.recursion_limit", recursion_limit),
    }
    if tools is not None:
        flags["Agent(tools=...)"] = ("agents.configs.coder.tool_names", list(tools))
    if model is None or model.startswith("llm:") or "/" not in model:
        if model_kwargs:
            raise ConfigError("Agent(**model_kwargs) needs model='provider/model'")
        if model is not None:
            flags["Agent(model=...)"] = ("llm.default_profile", model.removeprefix("llm:"))
        return flags
    provider, _, name = model.partition("/")
    if provider not in PROVIDERS:
        raise ConfigError(
            f"Agent(model={model!r}): unknown provider {provider!r} "
            f"(valid: {', '.join(PROVIDERS)}; or llm:PROFILE)"
        )
    if not name.strip():
        raise ConfigError(f"Agent(model={model!r}): no model named after {provider}/")
    profile = {"provider": provider, "model": name, **model_kwargs}
    flags["Agent(model=...)"] = (f"llm.profiles.{API_PROFILE}", profile)
    flags["Agent(model=...) profile"] = ("llm.default_profile", API_PROFILE)
    return flags


def _result(run: Any) -> Result:
    return Result(
        status=run.status,
        message=run.message,
        final_answer=run.final_response or run.message,
        is_verified=run.evidence is not None and run.evidence.owned,
        files_changed=list(run.files_changed),
        diff=run.diff,
        messages=list(run.messages),
        plan_iteration=run.plan_iteration,
        usage=Usage(
            run.model_calls,
            run.prompt_tokens,
            run.completion_tokens,
            run.cached_prompt_tokens,
            run.wall_s,
        ),
        run_id=run.run_id,
        exit_code=int(run.exit_code),
        check=run.check,
        evidence=run.evidence,
        plan=list(run.plan),
        verifier_verdict=run.verifier_verdict,
    )


logging.getLogger("codur").addHandler(logging.NullHandler())
