"""The prompt book: every node's prompt, the shipped one or a replacement from config (a
file) or the Python API (`set`), and rendering it with the node's values.

A custom template is checked against its node's placeholders when it comes in
(`codur.promptbook.template.check`); plain text is kept as it is and, when rendered, the
node's dynamic parts follow it, each under a heading ("Task:", "Files:", ...), so the
node still gets its data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from codur.promptbook.registry import REGISTRY, PromptSpec
from codur.promptbook.template import PromptError, Template, check
from codur.resources import prompt as shipped

API = "set by the API"
"""The source of a prompt given to `PromptBook.set`."""


@dataclass(frozen=True)
class Prompt:
    spec: PromptSpec
    template: Template
    source: str | None
    """Where a custom prompt came from (its file, or API); None: the shipped one."""

    @property
    def origin(self) -> str:
        """`built-in (prompts/plan.md)`, or the custom prompt's file."""
        return f"built-in (prompts/{self.spec.file})" if self.source is None else self.source


def spec(name: str) -> PromptSpec:
    """The spec of prompt `name`, or PromptError naming the known ones."""
    if name not in REGISTRY:
        raise PromptError(f"unknown prompt '{name}' (known: {', '.join(REGISTRY)})")
    return REGISTRY[name]


def fitted(name: str, text: str, source: str) -> Prompt:
    """`text` as node `name`'s prompt, or PromptError saying which node, where from and
    what does not fit."""
    wanted = spec(name)
    try:
        template = check(text, tuple(wanted.required), tuple(wanted.optional))
    except ValueError as exc:
        where = source if source == API else f"in {source}"
        raise PromptError(f"prompt '{name}' {where}: {exc}") from None
    return Prompt(wanted, template, source)


@cache
def _builtin(name: str) -> Prompt:
    wanted = spec(name)
    return Prompt(wanted, fitted(name, shipped(wanted.file), wanted.file).template, None)


def read(name: str, path: Path) -> Prompt:
    """Node `name`'s prompt from the file `path`."""
    spec(name)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PromptError(f"prompt '{name}': cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise PromptError(
            f"prompt '{name}': cannot read {path}: not UTF-8 ({exc.reason})"
        ) from None
    return fitted(name, text, str(path))


def _heading(placeholder: str) -> str:
    return placeholder.replace("_", " ").capitalize()


class PromptBook:
    """The prompts of every node; a custom one replaces the shipped one."""

    def __init__(self, files: Mapping[str, str | Path] | None = None) -> None:
        """`files`: node -> prompt file (config's `prompts` section, paths resolved);
        PromptError for an unknown node, an unreadable file or one that does not fit. The
        shipped prompts are checked too (once a process), so a placeholder that does not
        fit fails here rather than when the prompt is first sent."""
        for name in REGISTRY:
            _builtin(name)
        self._custom: dict[str, Prompt] = {
            name: read(name, Path(path)) for name, path in (files or {}).items()
        }

    @staticmethod
    def names() -> list[str]:
        return list(REGISTRY)

    def set(self, name: str, text: str, source: str = API) -> None:
        """Replace node `name`'s prompt with `text` (checked as a file's would be:
        PromptError, a ValueError, if it does not fit)."""
        self._custom[name] = fitted(name, text, source)

    def reset(self, name: str | None = None) -> None:
        """Back to the shipped prompt of `name` (None: of every node)."""
        if name is None:
            self._custom.clear()
        else:
            self._custom.pop(spec(name).name, None)

    def get(self, name: str) -> Prompt:
        """Node `name`'s prompt as it will be used."""
        return self._custom.get(name) or _builtin(name)

    def render(self, name: str, **values: object) -> str:
        """Node `name`'s prompt with its placeholders filled (`values` holds them all;
        a plain prompt gets the non-empty ones appended)."""
        current = self.get(name)
        expected = set(current.spec.placeholders)
        if set(values) != expected:
            raise TypeError(f"prompt '{name}' takes {sorted(expected)}, was given {sorted(values)}")
        if not current.template.plain:
            return current.template.text.format(**values)
        parts = [
            f"{_heading(key)}:\n{str(values[key]).strip()}"
            for key in current.spec.placeholders
            if str(values[key]).strip()
        ]
        text = current.template.text
        return text if not parts else text.rstrip() + "\n\n" + "\n\n".join(parts) + "\n"

    def example(self, name: str) -> str:
        """Node `name`'s prompt rendered with its spec's example values."""
        return self.render(name, **self.get(name).spec.examples)
