"""`Agent`: a Codur agent on a folder, its runs and its prompts (codur.api's docstring)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codur.api.result import Result, from_run
from codur.errors import Cancelled, ConfigError, UsageError
from codur.models import PROVIDERS

API_PROFILE = "api"
"""The profile an Agent's `model="provider/model"` becomes."""


class Agent:
    """A Codur agent on a folder. See the module docstring and docs/api.md."""

    def __init__(
        self,
        cwd: str | Path = ".",
        model: str | None = None,
        enable_planning: bool | None = None,
        tools: list[str] | None = None,
        recursion_limit: int | None = None,
        max_context_tokens: int | None = None,
        verbose: bool = False,
        config: str | Path | None = None,
        overrides: list[str] | None = None,
        **model_kwargs: Any,
    ) -> None:
        """`model`: "llm:NAME" (a configured profile), "provider/model" (provider one of
        openai, ollama, local; `model_kwargs` are the profile's other fields, such as
        base_url, api_key_env, temperature), or None (the configured default). `tools`:
        names of the tools the agent may call (None: its configured ones). `config`: a
        YAML file layered over the folder's; `overrides`: "key=value" strings, as `-o`;
        `max_context_tokens`: the most tokens any model call of a run may take, prompt
        and reply (`llm.max_context_tokens`; None: the configured bound, if any)."""
        from codur.promptbook import PromptBook

        _check_kinds(cwd=cwd, model=model, tools=tools, overrides=overrides)
        if config is not None and not isinstance(config, str | os.PathLike):
            raise ConfigError(f"Agent(config={config!r}): a YAML file's path expected")
        self.cwd = Path(cwd).resolve()
        if not self.cwd.is_dir():
            raise ConfigError(f"Agent(cwd={str(cwd)!r}): no such folder")
        self.verbose = verbose
        self._flags = _flags(model, enable_planning, tools, recursion_limit, model_kwargs)
        if max_context_tokens is not None:
            self._flags["Agent(max_context_tokens=...)"] = (
                "llm.max_context_tokens",
                max_context_tokens,
            )
        self._file = Path(config) if config else None
        self._overrides = list(overrides or [])
        self.loaded = self._load()  # bad arguments fail here, not at the first run
        self.prompts = PromptBook(self.loaded.config.prompts)
        self.last: Result | None = None
        """The Result of this Agent's last run (None: it has not run yet)."""

    def _load(self) -> Any:
        from codur.config import load_config

        return load_config(self.cwd, self._file, self._overrides, flags=self._flags)

    def set_prompt(self, name: str, text: str) -> None:
        """Replace node `name`'s prompt (`codur prompts list` names them); a template
        missing a required placeholder raises PromptError (docs/prompts.md)."""
        if not isinstance(name, str) or not isinstance(text, str):
            raise ConfigError(f"set_prompt({name!r}, {text!r}): a prompt's name and text expected")
        self.prompts.set(name, text)

    def get_prompt(self, name: str) -> str:
        """Node `name`'s prompt template as runs use it: set here, from a config file, or
        the built-in one; PromptError for an unknown name."""
        return self.prompts.get(name).template.text

    def preview_prompts(self, names: list[str] | None = None) -> str:
        """The prompts of `names` (None: every node) rendered with example values, each
        under a line saying where it comes from: what `codur prompts show` prints."""
        from codur.promptbook.listing import shown

        return shown(self.prompts, self._prompt_names(names), self.cwd)

    def save_prompts(self, path: str | Path, names: list[str] | None = None) -> Path:
        """Write `preview_prompts(names)` to the file `path` (relative: to `cwd`), replaced
        whole or not at all; its absolute path."""
        from codur.promptbook.listing import save

        if not isinstance(path, str | os.PathLike):
            raise ConfigError(f"save_prompts(path={path!r}): a file's path expected")
        target = (self.cwd / Path(path).expanduser()).resolve()
        save(target, self.preview_prompts(names))
        return target

    def reset_prompts(self, name: str | None = None) -> None:
        """Back to the built-in prompt of `name` (None: of every node) for this Agent's
        runs, whether set here or by a config file; the file itself is not edited
        (`codur prompts reset` removes the setting from codur.yaml)."""
        self.prompts.reset(name)

    def _prompt_names(self, names: list[str] | None) -> list[str]:
        from codur.promptbook.book import spec

        if names is None:
            return self.prompts.names()
        given = list(names) if isinstance(names, Iterable) and not isinstance(names, str) else None
        if given is None or not all(isinstance(n, str) for n in given):
            raise ConfigError(f"names={names!r}: a list of prompt names expected")
        return [spec(n).name for n in given]

    def display_trace(self, full: bool = False) -> None:
        """Print the last run as `codur trace` shows it (`Result.trace`); UsageError when
        this Agent has not run yet."""
        if self.last is None:
            raise UsageError("display_trace(): this Agent has not run yet")
        print(self.last.trace(full), end="")

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

        ended: list[Result] = []
        how = How(verbose=self.verbose, prompts=self.prompts, io=terminal, cancel=cancel)
        loaded = self._load()  # the folder's config as it is now
        show = lambda io, run, log: ended.append(from_run(run, log))  # noqa: E731
        wired(loaded, self.cwd, task, "run", run_task, show, how)
        self.last = ended[0]
        return self.last


def _check_kinds(cwd: object, model: object, tools: object, overrides: object) -> None:
    """ConfigError for an argument of the wrong kind (a string where a list of names is
    wanted would otherwise be read as a list of its characters)."""
    if not isinstance(cwd, str | Path):
        raise ConfigError(f"Agent(cwd={cwd!r}): a folder's path expected")
    if model is not None and not isinstance(model, str):
        raise ConfigError(f"Agent(model={model!r}): 'llm:PROFILE' or 'provider/model' expected")
    for name, value in (("tools", tools), ("overrides", overrides)):
        if value is None:
            continue
        if not isinstance(value, list | tuple):  # a string would read as its letters
            raise ConfigError(f"Agent({name}={value!r}): a list of strings expected")
        if not all(isinstance(item, str) for item in value):
            raise ConfigError(f"Agent({name}={value!r}): a list of strings expected")


def _flags(
    model: str | None,
    planning: bool | None,
    tools: list[str] | None,
    recursion_limit: int | None,
    model_kwargs: dict[str, Any],
) -> dict[str, tuple[str, Any]]:
    """The Agent's arguments given (not None) as config layers (label -> key, value):
    above the config files and `overrides`, as flags are."""
    flags: dict[str, tuple[str, Any]] = {}
    if planning is not None:
        flags["Agent(enable_planning=...)"] = ("planning.enabled", planning)
    if recursion_limit is not None:
        flags["Agent(recursion_limit=...)"] = ("runtime.recursion_limit", recursion_limit)
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
    if given := sorted({"provider", "model"} & set(model_kwargs)):
        raise ConfigError(
            f"Agent({', '.join(given)}=...): the provider and model come from model={model!r} alone"
        )
    profile = {"provider": provider, "model": name, **model_kwargs}
    flags["Agent(model=...)"] = (f"llm.profiles.{API_PROFILE}", profile)
    flags["Agent(model=...) profile"] = ("llm.default_profile", API_PROFILE)
    return flags
