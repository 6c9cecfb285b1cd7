"""Phase 0: recognise what needs no model: greetings, explicit file operations, and the
routes whose form is unambiguous: explain F, a wh-question, an explain/describe request
(the explain route), run `COMMAND` (the run_command route).

Each pattern is one row of a table: a regex and a function turning its match into a
decision, so adding a pattern is one line, and the match is over the whole request (a
task that merely mentions "copy" somewhere is not a copy operation). Questions are
recognised by the sentence's grammar, never by what it is about (see `WH_QUESTION`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from codur.planning.calls import ToolCallSpec
from codur.task import file_refs

_Q = r"""(?:"(?P<{0}dq>[^"]*)"|'(?P<{0}sq>[^']*)'|(?P<{0}bare>\S+))"""


def _quoted(name: str) -> str:
    return _Q.format(name)


def _get(match: re.Match[str], name: str) -> str:
    for suffix in ("dq", "sq", "bare"):
        value = match.group(name + suffix)
        if value is not None:
            return value
    raise KeyError(name)


def _path(match: re.Match[str], name: str) -> str:
    return _get(match, name).lstrip("@").rstrip(".,;:")


@dataclass(frozen=True)
class FastPath:
    """What phase 0 decided: a direct reply, tool calls, or a route."""

    kind: Literal["respond", "tool", "explain", "run_command"]
    response: str = ""
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    path: str = ""
    """explain: the file to explain (empty for a question)."""
    command: str = ""
    """run_command: the shell command."""


def _call(tool: str, **args: str) -> FastPath:
    return FastPath("tool", tool_calls=[{"tool": tool, "args": args}])


GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|yo|thanks|thank you|thx|good (morning|afternoon|evening))"
    r"( there)?( codur)?\s*[!.]*\s*$",
    re.IGNORECASE,
)

PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], FastPath]]] = [
    (
        re.compile(
            rf"^\s*(?:read|show|cat|open|print)\s+(?:the\s+)?(?:file\s+)?{_quoted('p')}\s*$", re.I
        ),
        lambda m: _call("read_file", path=_path(m, "p")),
    ),
    (
        re.compile(rf"^\s*write\s+{_quoted('t')}\s+(?:to|into)\s+{_quoted('p')}\s*$", re.I),
        lambda m: _call("write_file", path=_path(m, "p"), content=_get(m, "t")),
    ),
    (
        re.compile(rf"^\s*(?:move|rename)\s+{_quoted('a')}\s+to\s+{_quoted('b')}\s*$", re.I),
        lambda m: _call("move_file", source=_path(m, "a"), destination=_path(m, "b")),
    ),
    (
        re.compile(rf"^\s*copy\s+{_quoted('a')}\s+to\s+{_quoted('b')}\s*$", re.I),
        lambda m: _call("copy_file", source=_path(m, "a"), destination=_path(m, "b")),
    ),
    (
        re.compile(rf"^\s*(?:delete|remove)\s+(?:the\s+)?(?:file\s+)?{_quoted('p')}\s*$", re.I),
        lambda m: _call("delete_file", path=_path(m, "p")),
    ),
    (
        re.compile(
            rf"^\s*replace\s+{_quoted('x')}\s+with\s+{_quoted('y')}\s+in\s+{_quoted('p')}\s*$", re.I
        ),
        lambda m: _call("replace_in_file", path=_path(m, "p"), old=_get(m, "x"), new=_get(m, "y")),
    ),
    (
        re.compile(
            rf"^\s*(?:explain|what\s+does|describe)\s+{_quoted('p')}(?:\s+do)?\s*\??\s*$", re.I
        ),
        lambda m: FastPath("explain", path=_path(m, "p")),
    ),
    (
        re.compile(r"^\s*run\s+`(?P<c>[^`]+)`\s*$", re.I),
        lambda m: FastPath("run_command", command=m.group("c").strip()),
    ),
]

WH_QUESTION = re.compile(
    r"^\s*(?:what|why|how|where|which|who|whose|when)\b"
    r"(?!\s+(?:about|if|not|don'?t|doesn'?t)\b)"  # suggestions: how about / why not ...
    r"(?:[^?!.]|\.(?=\S))*\?\s*$",  # one sentence (a dot inside a name is no end)
    re.I,
)
"""A wh-question, and only that: it opens with an interrogative word, ends with its one
question mark, and holds no other sentence. A question of that grammar asks to be
answered, whatever its verbs ("how do I fix @main.py?" is answered, not done); a yes/no
question ("can you fix @main.py?") is left to the planner."""


EXPLAIN_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:explain|describe|summari[sz]e)\b(?:[^?!.;]|\.(?=\S))*[.?]?\s*$",
    re.I,
)
"""One imperative sentence whose verb asks for an explanation ("explain how @main.py
picks its discount"): answered, never done. A request that also asks for a change in
the same sentence is answered too, without edits: the safe side of a misreading."""


def is_question(task: str) -> bool:
    """The request ends with a question mark: the planner decides what it asks for."""
    return task.rstrip().endswith("?")


def fast_path(task: str, greeting_reply: str) -> FastPath | None:
    """The phase-0 decision for `task`, or None when a model must plan."""
    if GREETING.match(task):
        return FastPath("respond", response=greeting_reply)
    for pattern, decide in PATTERNS:
        match = pattern.match(task)
        if match:
            return decide(match)
    if WH_QUESTION.match(task):
        return FastPath("explain")
    match = EXPLAIN_REQUEST.match(task)
    if match:
        refs = file_refs(task)
        return FastPath("explain", path=refs[0] if len(refs) == 1 else "")
    return None
