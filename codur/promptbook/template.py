"""Reading a prompt's text: a `str.format` template with `{name}` placeholders, or plain
text, and checking it against its node's placeholders.

A text is a template when it holds a `{name}` placeholder or an escaped brace `{{` (as
the shipped prompts do); its literal braces are then written `{{` and `}}`. Any other
text is plain: taken as it is (JSON examples with single braces included), and the
node's dynamic parts are appended to it when it is rendered (`codur.promptbook.book`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from string import Formatter

from codur.errors import ConfigError

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


class PromptError(ConfigError, ValueError):
    """A prompt that does not fit its node: an unknown node, a missing or unknown
    placeholder, a lone brace, an unreadable file. A ConfigError (exit 2) from config,
    a ValueError to a caller of `PromptBook.set`."""


@dataclass(frozen=True)
class Template:
    text: str
    fields: frozenset[str] | None
    """The placeholders a template holds; None: plain text."""

    @property
    def plain(self) -> bool:
        return self.fields is None


def braces(names: Iterable[str]) -> str:
    """`{a}, {b}` for messages."""
    return ", ".join(f"{{{n}}}" for n in names)


def parse(text: str) -> Template:
    """The template in `text`, or ValueError saying what is wrong with it."""
    if "{{" not in text and not PLACEHOLDER.search(text):
        return Template(text, None)
    try:
        parts = list(Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(
            f"it has {{placeholders}} but also a lone brace ({exc}): "
            "write literal braces as {{ and }}"
        ) from None
    fields: set[str] = set()
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if not name.isidentifier():
            raise ValueError(
                f"{{{name}}} is no placeholder name: write literal braces as {{{{ and }}}}"
            )
        if spec or conversion:
            raise ValueError(f"placeholders are plain {{name}}, not {{{name}...}} with a format")
        fields.add(name)
    return Template(text, frozenset(fields))


def check(text: str, required: tuple[str, ...], optional: tuple[str, ...]) -> Template:
    """`text` parsed and checked: a template must hold every required placeholder and no
    other than the required and optional ones (ValueError naming them); plain text is
    accepted unless it is empty."""
    if not text.strip():
        raise ValueError("it is empty")
    template = parse(text)
    if template.fields is None:
        return template
    problems = []
    if missing := [n for n in required if n not in template.fields]:
        problems.append(f"missing required placeholders {braces(missing)}")
    allowed = {*required, *optional}
    if unknown := sorted(template.fields - allowed):
        known = braces([*required, *optional]) or "none"
        problems.append(f"unknown placeholders {braces(unknown)} (allowed: {known})")
    if problems:
        raise ValueError("; ".join(problems))
    return template
