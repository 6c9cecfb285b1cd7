"""The ask graph's nodes: each `(state, runtime) -> update` (or `Command[Literal[...]]`
when it chooses where to go). None prints; events go on the session's bus."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from codur.config.schema import AskConfig
from codur.models.client import ModelClient
from codur.session import Session
from codur.trace import traced as graph_traced


def traced(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The run graph's node tracing (node.start / node.end), tagged graph="ask"."""
    return graph_traced(name, graph="ask")  # type: ignore[return-value]


def ask_config(runtime: Runtime[Session]) -> AskConfig:
    return runtime.context.config.ask


def client(runtime: Runtime[Session]) -> ModelClient:
    """The model answering questions: ask.profile, else the run's profile."""
    return runtime.context.client(runtime.context.config.ask.profile)


def asked(state: dict, runtime: Runtime[Session]) -> str:
    """The question as the planner and the synthesizer read it: after what the chat
    session did so far (`Session.chat_context`: its earlier tasks, questions and
    replies), when it is a line of `codur chat` (a follow-up reads as one)."""
    chat = runtime.context.chat_context
    return f"{chat}\n\n{state['question']}" if chat else state["question"]


def format_findings(findings: dict[str, str], limit: int) -> str:
    """The findings as markdown sections, each cut to `limit` characters."""
    if not findings:
        return "(none yet)"
    parts = []
    for step, text in findings.items():
        body = text if len(text) <= limit else text[:limit] + "\n[... cut]"
        parts.append(f"### {step}\n{body}")
    return "\n\n".join(parts)


def evidence(state: dict, limit: int) -> str:
    """What the research has so far, as markdown: the code search for each part of the
    question (the retrieve node; already within ask.max_retrieved_chars), then the
    findings by step, each cut to `limit` characters."""
    text = format_findings(state.get("findings") or {}, limit)
    retrieved = state.get("retrieved") or ""
    if not retrieved:
        return text
    return retrieved if not state.get("findings") else f"{retrieved}\n\n{text}"
