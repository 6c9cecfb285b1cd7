"""The coder's prompt: the files as they are now, how the check fails on them, what
earlier attempts did, the task and the answer format; fitted into the context window.

Every attempt gets a fresh prompt (the failure evidence is always in it), rather than a
replay of earlier replies a small model would copy.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from codur.agents.fit import MARGIN, Prompt, fit
from codur.agents.reply_shape import ReplyShape, choose_format, reply_budget, stop_sequences
from codur.edits.excerpt import excerpt

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.agents.registry import AgentRequest
    from codur.models.client import ModelClient
    from codur.promptbook import PromptBook

EDIT_PROMPTS = {
    "whole_file": "edit_whole_file",
    "search_replace": "edit_search_replace",
    "functions": "edit_functions",
}
"""The prompt of each edit format's answer rules."""


def implement_names(stubs: dict[str, tuple[str, ...]]) -> str:
    """`f`, `f` and `g`, `f` in a.py and `g` in b.py: the functions to write."""
    groups = [(path, [f"`{n}`" for n in names]) for path, names in stubs.items() if names]
    spoken = [
        (", ".join(names[:-1]) + " and " + names[-1]) if len(names) > 1 else names[0]
        for _, names in groups
    ]
    if len(groups) == 1:
        return spoken[0]
    return "; ".join(f"{text} in {path}" for text, (path, _) in zip(spoken, groups, strict=True))


def answer_rules(
    book: PromptBook, edit_format: str, implement: bool, files: int, partial: bool = False
) -> str:
    """The answer format's rules; one file to implement in whole: the bare instruction a
    small model answers best (bench/humaneval.py measures it); a file shown in part:
    changed functions, and SEARCH/REPLACE for a line outside them (no whole file)."""
    if implement and files == 1 and edit_format == "whole_file":
        return book.render("edit_implement")
    if partial and edit_format == "functions":
        return book.render("edit_functions_in_part")
    return book.render(EDIT_PROMPTS[edit_format])


def in_part(request: AgentRequest, book: PromptBook) -> tuple[dict[str, str], tuple[str, ...]]:
    """The files as the prompt shows them (those in `request.parts` as excerpts) and a
    note for each file shown in part."""
    views = dict(request.files)
    notes = []
    for path, names in request.parts.items():
        shown = excerpt(request.files[path], names) if path in request.files else None
        if shown is None:
            continue
        views[path] = shown.text
        notes.append(
            book.render(
                "coder_in_part", path=path, lines=shown.ranges(), total=f"{shown.total:,}"
            ).strip()
        )
    return views, tuple(notes)


def task_message(
    task: str,
    parts: Prompt,
    edit_format: str,
    book: PromptBook,
    rules: str | None = None,
    stubs: dict[str, tuple[str, ...]] | None = None,
) -> str:
    """The user turn (`book`'s coder_task prompt): files, how the check fails, earlier
    attempts, task, answer format (`rules`: instead of the edit format's). With `stubs`
    (functions with no body yet) the coder_implement prompt asks for their bodies."""
    shown = "\n\n".join(
        f"{path}\n```{'python' if path.endswith('.py') else ''}\n{text.rstrip()}\n```"
        for path, text in parts.files.items()
    )
    if parts.related:
        related = "\n".join(f"- {line}" for line in parts.related)
        shown += "\n\n" + book.render("coder_map", entries=related).strip()
    evidence = book.render("coder_evidence", failure=parts.evidence) if parts.evidence else ""
    attempts = ""
    if parts.attempts:
        listed = "\n".join(f"- {line}" for line in parts.attempts)
        attempts = book.render("coder_attempts", attempts=listed)
    notes = "\n".join(f"(Note: {n}.)" for n in parts.notes)
    common = {
        "files": shown or "(no files given)",
        "evidence": evidence,
        "attempts": attempts,
        "notes": notes,
        "task": task,
    }
    if stubs and rules is None:
        count = sum(len(names) for names in stubs.values())
        text = book.render(
            "coder_implement",
            **common,
            names=implement_names(stubs),
            verb="has" if count == 1 else "have",
            edit_rules=answer_rules(book, edit_format, True, len(parts.files), parts.partial_files),
        )
    else:
        edit_rules = (
            rules
            if rules is not None
            else answer_rules(book, edit_format, False, 0, parts.partial_files)
        )
        text = book.render("coder_task", **common, edit_rules=edit_rules)
    return text.strip() + "\n"


def plan_section(request: AgentRequest, book: PromptBook) -> str:
    """The step plan the agent works through (plan_verify mode); empty without one."""
    if not request.plan:
        return ""
    steps = "\n".join(f"{n}. {step}" for n, step in enumerate(request.plan, 1))
    return book.render("plan_section", iteration=request.plan_iteration, steps=steps)


def build_messages(
    request: AgentRequest,
    client: ModelClient,
    system: str,
    book: PromptBook,
    rules: str | None = None,
) -> tuple[list[BaseMessage], ReplyShape]:
    """The messages for `request`, fitted to the model's window, and the reply's shape:
    the edit format asked for (codur.agents.reply_shape: the one that costs the fewest
    tokens for the files shown; changed functions when a file is shown in part), its
    token budget and stop sequence. `rules`: what the answer is instead of the edit
    format's rules (an agent that ends with attempt_completion). Where a file shown in
    part still does not fit, its last-ranked functions are left out, one at a time, and
    then such a file whose one function is still too long."""
    while True:
        messages, shape, fits = _messages(request, client, system, book, rules)
        fewer = _fewer(request)
        if fits or fewer is None:
            return messages, shape
        request = fewer


def _fewer(request: AgentRequest) -> AgentRequest | None:
    """`request` without the last function of the file shown in part with the most; once
    each shows one, without the file whose function is longest (None: no file is shown in
    part any more)."""
    parts = request.parts
    path = max(parts, key=lambda p: len(parts[p]), default=None)
    if path is None:
        return None
    if len(parts[path]) > 1:
        return replace(request, parts={**parts, path: parts[path][:-1]})
    path = max(parts, key=lambda p: _shown_size(request, p))
    files = {p: text for p, text in request.files.items() if p != path}
    return replace(request, files=files, parts={p: n for p, n in parts.items() if p != path})


def _shown_size(request: AgentRequest, path: str) -> int:
    shown = excerpt(request.files[path], request.parts[path]) if path in request.files else None
    return len(shown.text) if shown is not None else 0


def _messages(
    request: AgentRequest, client: ModelClient, system: str, book: PromptBook, rules: str | None
) -> tuple[list[BaseMessage], ReplyShape, bool]:
    """build_messages for these parts, and whether the prompt fits the window with the
    reply's budget."""
    from langchain_core.messages import HumanMessage, SystemMessage

    views, notes = in_part(request, book)
    edit_format = choose_format(
        views, request.edit_format or client.profile.edit_format, bool(notes)
    )
    parts = Prompt(
        files=views,
        evidence=request.evidence or "",
        attempts=request.attempts,
        notes=notes,
        partial_files=bool(notes),
        in_part=tuple(p for p in request.parts if views.get(p) != request.files.get(p)),
        related=request.related,
    )
    task = "\n\n".join(filter(None, [request.task, plan_section(request, book).strip()]))

    def render(p: Prompt) -> list[BaseMessage]:
        fmt = "functions" if p.partial_files and edit_format == "whole_file" else edit_format
        message = task_message(task, p, fmt, book, rules, request.stubs)
        return [SystemMessage(system), HumanMessage(message)]

    budget = min(client.profile.max_tokens, reply_budget(views, edit_format))
    fitted, budget = fit(
        parts, render, client.count_tokens, client.context_window, budget, request.hot_lines
    )
    if fitted.partial_files and edit_format == "whole_file":
        edit_format = "functions"
        budget = min(budget, reply_budget(request.files, edit_format))
    partial = fitted.partial_files
    stop = () if rules is not None else stop_sequences(views, edit_format, partial, request.files)
    messages = render(fitted)
    window = client.context_window
    fits = window is None or client.count_tokens(messages) + budget + MARGIN <= window
    return messages, ReplyShape(edit_format, budget, stop), fits
