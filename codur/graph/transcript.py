"""The execution trace of plan_verify mode, formatted compactly for the model verifier and
replan: the plan and the todo list, what the agent did since the plan (its tool calls and
their results, cut short), the checks Codur ran, and the files changed as a short diff.

Everything is cut to `planning.verifier_trace_chars`: long arguments and results to a
line's worth, the diff to a third of the budget, the steps to their head and tail.
"""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from codur.graph.state import AgentState
from codur.session import Session
from codur.tools.todo import checklist

PLAN_MARK = "codur_plan"
"""The additional_kwargs key of the message a plan starts with (its iteration)."""

ARG_CHARS = 200
"""A tool call's arguments are cut to this many characters..."""
RESULT_CHARS = 300
"""...a tool's result, a reply's text and a user turn to this many."""


def _cut(text: str, limit: int, collapse: bool = True) -> str:
    """`text` on one line (`collapse`: runs of whitespace made one space), cut to `limit`."""
    line = " ".join(text.split()) if collapse else text
    if len(line) <= limit:
        return line
    return f"{line[: limit - 20]} [... cut {len(line) - limit + 20}]"


def _text(message: AnyMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


def since_plan(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The messages after the last plan began (all but the task, if no plan is marked)."""
    for n in range(len(messages) - 1, -1, -1):
        if messages[n].additional_kwargs.get(PLAN_MARK):
            return messages[n + 1 :]
    return messages[1:]


def step_lines(messages: list[AnyMessage]) -> list[str]:
    """One line per reply text, tool call, tool result and user turn."""
    lines: list[str] = []
    for message in messages:
        text = _text(message)
        if isinstance(message, AIMessage):
            if text.strip():
                lines.append(f"agent: {_cut(text, RESULT_CHARS)}")
            for call in message.tool_calls:
                args = json.dumps(call["args"], ensure_ascii=False, default=str)
                lines.append(f"call {call['name']}({_cut(args, ARG_CHARS, collapse=False)})")
        elif isinstance(message, ToolMessage):
            state = "ok" if message.status == "success" else "error"
            lines.append(f"  -> {message.name} {state}: {_cut(text, RESULT_CHARS)}")
        else:
            lines.append(f"user: {_cut(text, RESULT_CHARS)}")
    return lines


def fit_lines(lines: list[str], limit: int) -> list[str]:
    """`lines` within `limit` characters: their head and tail, with a line saying how
    many were left out between."""
    if sum(len(line) + 1 for line in lines) <= limit:
        return lines
    head: list[str] = []
    tail: list[str] = []
    used = 0
    for n in range(len(lines)):
        line = lines[n // 2] if n % 2 == 0 else lines[len(lines) - 1 - n // 2]
        if used + len(line) + 1 > limit - 40:
            break
        (head if n % 2 == 0 else tail).append(line)
        used += len(line) + 1
    left_out = len(lines) - len(head) - len(tail)
    return [*head, f"[... {left_out} lines left out ...]", *reversed(tail)]


def plan_lines(state: AgentState) -> list[str]:
    steps = state.get("plan", [])
    lines = [f"Plan {state.get('plan_iteration', 0)}:"]
    lines += [f"{n}. {step}" for n, step in enumerate(steps, 1)] or ["(no plan)"]
    todos = state.get("todos", [])
    return [*lines, "Todo list:", checklist(todos) if todos else "(empty)"]


def diff_text(session: Session, limit: int) -> str:
    """The run's changes to files, as a unified diff cut to `limit` characters."""
    diff = "".join(diff for _, diff in session.changes.diffs())
    if len(diff) <= limit:
        return diff.rstrip() or "(no file changed)"
    kept = diff[:limit].rsplit("\n", 1)[0]
    return f"{kept}\n[... diff cut: {diff.count(chr(10)) - kept.count(chr(10))} more lines]"


def transcript(state: AgentState, session: Session) -> str:
    """The trace of the current plan's work, within planning.verifier_trace_chars."""
    limit = session.config.planning.verifier_trace_chars
    plan = "\n".join(plan_lines(state))
    verdict = state.get("verification")
    checks = ""
    if verdict is not None and verdict.strategy != "none":
        outcome = "passed" if verdict.passed else "failed"
        checks = f"Codur's checks ({verdict.strategy}): {outcome}: {_cut(verdict.rests_on, 300)}"
    diff = diff_text(session, limit // 3)
    room = max(limit - len(plan) - len(checks) - len(diff) - 60, limit // 4)
    steps = fit_lines(step_lines(since_plan(state.get("messages", []))), room)
    sections = [
        plan,
        "Steps:\n" + ("\n".join(steps) or "(none)"),
        checks,
        f"Files changed:\n{diff}",
    ]
    return "\n\n".join(s for s in sections if s)
