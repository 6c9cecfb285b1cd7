"""One rule of the exposure registry (`codur.config.exposure`): the verdict on a config
key, what a hostile repository could do with it, and what Codur does; plus the rules many
keys share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["allowed", "clamped", "protected", "user only", "checked"]


@dataclass(frozen=True)
class Rule:
    verdict: Verdict
    threat: str
    """What a hostile repository could do with the key."""
    why: str
    """What Codur does, and why."""
    clamp: Literal["at most", "subset"] | None = None
    """clamped: the project's value counts only if it is at most the value below it
    (built-in and user config; unset below means no limit), or a subset of it."""


def allowed(threat: str, why: str) -> Rule:
    return Rule("allowed", threat, why)


def protected(threat: str, why: str) -> Rule:
    return Rule("protected", threat, why)


def at_most(threat: str) -> Rule:
    return Rule("clamped", threat, "a project may lower it, not raise it", "at most")


TUNING = allowed("worse answers (sampling, formats, planning style)", "quality, not safety")
OFF = allowed("switch a helper or a step on or off", "bounded by the clamped limits; no new reach")
LOOP = at_most("loop far longer, calling the model on the user's money")
WAIT = at_most("let a program, server or lock that never answers hold the run for ever")
SIZE = at_most("grow prompts (tokens the user pays for), memory, the log or output")
PROCS = at_most("start hundreds of processes and scratch copies at once")
SHOWN = at_most("flood the terminal (76 MB of diff seen)")
ROUTE = protected(
    "send the prompt (the folder's code, the user's preferences) to another model, host "
    "or paid account of the user's",
    "which model reads the prompt and who pays is the user's choice",
)
PROGRAM = protected(
    "start a program of its choosing, outside what the user approves",
    "programs Codur starts by itself are the user's choice",
)
READS = protected(
    "make Codur read a file outside the folder (`~/.ssh/id_rsa` replayed as the reply)",
    "a path Codur itself reads, outside confinement and the workspace",
)
AGENT_CLI = protected(
    "point a CLI agent at its program, arguments, secrets or writable folders",
    "what an agent starts and may see is the user's choice",
)
CONFINE = protected(
    "turn confinement or the secret scrubbing off, or open folders to writes",
    "the containment of programs is the safety net",
)
UNDO = protected(
    "delete this folder's undo history, or snapshot nothing, so undo cannot restore",
    "undo is the safety net",
)
