"""The ask graph's nodes: each `(state, runtime) -> update` (or `Command[Literal[...]]`
when it chooses where to go). None prints; events go on the session's bus."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.ask.state import AskState
from codur.config.schema import AskConfig
from codur.models.client import ModelClient
from codur.session import Session

Node = Callable[[AskState, Runtime[Session]], Any]


def traced(name: str) -> Callable[[Node], Node]:
    """Emit node.start / node.end (with duration, or the error) around a node."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: AskState, runtime: Runtime[Session]) -> Any:
            with runtime.context.bus.span(
                "node", node=name, graph="ask", iteration=state.get("iterations", 0)
            ) as out:
                update = func(state, runtime)
                if isinstance(update, Command):
                    out["goto"] = update.goto
                return update

        return node

    return wrap


def ask_config(runtime: Runtime[Session]) -> AskConfig:
    return runtime.context.config.ask


def client(runtime: Runtime[Session]) -> ModelClient:
    """The model answering questions: ask.profile, else the run's profile."""
    return runtime.context.client(runtime.context.config.ask.profile)


def format_findings(findings: dict[str, str], limit: int) -> str:
    """The findings as markdown sections, each cut to `limit` characters."""
    if not findings:
        return "(none yet)"
    parts = []
    for step, text in findings.items():
        body = text if len(text) <= limit else text[:limit] + "\n[... cut]"
        parts.append(f"### {step}\n{body}")
    return "\n\n".join(parts)
