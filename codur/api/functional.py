"""`run_agentic_task`: one run in a single call, without keeping an `Agent` (the
function form of `Agent(...).run(task)`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codur.api.agent import Agent
from codur.api.result import Result


def run_agentic_task(
    task: str,
    cwd: str | Path = ".",
    model: str | None = None,
    *,
    enable_planning: bool | None = None,
    tools: list[str] | None = None,
    recursion_limit: int | None = None,
    max_context_tokens: int | None = None,
    verbose: bool = False,
    config: str | Path | None = None,
    overrides: list[str] | None = None,
    **model_kwargs: Any,
) -> Result:
    """Run `task` in the folder `cwd` to its end and return how it ended: exactly
    `Agent(cwd, model, ...).run(task)`, with the same arguments (docs/api.md, `Agent`)
    and the same errors."""
    agent = Agent(
        cwd,
        model,
        enable_planning=enable_planning,
        tools=tools,
        recursion_limit=recursion_limit,
        max_context_tokens=max_context_tokens,
        verbose=verbose,
        config=config,
        overrides=overrides,
        **model_kwargs,
    )
    return agent.run(task)
