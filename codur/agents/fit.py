"""Fitting a prompt into the model's context window, with room for the reply.

When the prompt and the reply budget do not fit, parts are shortened in this order, each
time saying so in the prompt: the failure evidence (head and tail kept: the problem, the
first differing lines, and "where to look"); the list of earlier attempts (newest kept);
the map of related code not shown; then the files (not those already shown in part),
whose middle parts far from the failure are elided (the model is then
asked for changed functions only, which are merged by name, so a partial view is safe).
A file already shown in part then loses its last-ranked functions, one at a time
(`codur.agents.prompting.build_messages`). A prompt that still does not fit goes out as
it is; the provider's error is then real.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

MARGIN = 64
"""Tokens kept free for the chat template's own markup."""
MIN_REPLY = 256
"""The reply budget is never cut below this."""


@dataclass(frozen=True)
class Prompt:
    """The parts of a coder prompt, before they are rendered into messages."""

    files: dict[str, str]
    evidence: str = ""
    attempts: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    """What fitting shortened, said to the model."""
    partial_files: bool = False
    """Some file is shown in part: ask for changed functions only."""
    in_part: tuple[str, ...] = ()
    """Files already shown in part (an excerpt of their functions that matter): fitting
    leaves them as they are."""
    related: tuple[str, ...] = ()
    """The map of related code not shown (`path:line signature`), after the files."""


def clip_lines(text: str, keep: int) -> str:
    """The first and last `keep // 2` lines of `text`, with a line saying how many are
    left out between them."""
    lines = text.split("\n")
    if len(lines) <= keep:
        return text
    head, tail = keep - keep // 2, keep // 2
    hidden = len(lines) - head - tail
    return "\n".join([*lines[:head], f"... ({hidden} lines not shown) ...", *lines[-tail:]])


def _around(text: str, lines: set[int], context: int) -> str:
    """`text` with only the lines near `lines` (1-based) and its first lines kept."""
    rows = text.split("\n")
    keep = set(range(1, min(context, len(rows)) + 1))
    for line in lines:
        keep.update(range(max(1, line - context), line + context + 1))
    out: list[str] = []
    skipped = 0
    for number, row in enumerate(rows, 1):
        if number in keep:
            if skipped:
                out.append(f"# ... ({skipped} lines not shown) ...")
                skipped = 0
            out.append(row)
        else:
            skipped += 1
    if skipped:
        out.append(f"# ... ({skipped} lines not shown) ...")
    return "\n".join(out)


def fit(
    prompt: Prompt,
    render: Callable[[Prompt], list],
    count: Callable[[list], int],
    window: int | None,
    reply: int,
    hot_lines: dict[str, set[int]] | None = None,
) -> tuple[Prompt, int]:
    """Shorten `prompt` until it fits `window` with `reply` tokens to spare; returns the
    prompt and the reply budget (cut, never below MIN_REPLY, when nothing else helps)."""
    if window is None:
        return prompt, reply

    def over(p: Prompt, budget: int) -> bool:
        return count(render(p)) + budget + MARGIN > window

    for keep in (60, 30, 12):
        if not over(prompt, reply):
            return prompt, reply
        if prompt.evidence.count("\n") + 1 > keep:
            note = f"the failure details are shortened to {keep} lines"
            prompt = replace(
                prompt, evidence=clip_lines(prompt.evidence, keep), notes=(*prompt.notes, note)
            )
    for keep_attempts in (2, 0):
        if not over(prompt, reply):
            return prompt, reply
        if len(prompt.attempts) > keep_attempts:
            dropped = len(prompt.attempts) - keep_attempts
            note = f"{dropped} earlier attempt(s) not listed"
            kept = prompt.attempts[len(prompt.attempts) - keep_attempts :]
            prompt = replace(prompt, attempts=kept, notes=(*prompt.notes, note))
    if over(prompt, reply) and prompt.related:
        note = "the map of related code is left out"
        prompt = replace(prompt, related=(), notes=(*prompt.notes, note))
    whole = prompt.files
    for context in (40, 15, 5):
        if not over(prompt, reply):
            return prompt, reply
        files = {
            path: text
            if path in prompt.in_part
            else _around(text, (hot_lines or {}).get(path, set()), context)
            for path, text in whole.items()
        }
        note = "parts of the files far from the failure are not shown"
        prompt = replace(
            prompt, files=files, partial_files=True, notes=(*dict.fromkeys([*prompt.notes, note]),)
        )
    spare = window - count(render(prompt)) - MARGIN
    return prompt, max(MIN_REPLY, min(reply, spare))
