"""What the registry says of one prompt: its name, its shipped file, what it is for, and
its placeholders with an example value each."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PromptSpec:
    name: str
    """The node name users see (config key `prompts.NAME`, `codur prompts show NAME`)."""
    file: str
    """The shipped template, in `prompts/`."""
    description: str
    """What the prompt is for, in one line."""
    required: dict[str, str] = field(default_factory=dict)
    """Placeholder -> an example value; a custom template must hold every one."""
    optional: dict[str, str] = field(default_factory=dict)
    """Placeholder -> an example value; a custom template may leave them out."""

    @property
    def placeholders(self) -> tuple[str, ...]:
        return (*self.required, *self.optional)

    @property
    def examples(self) -> dict[str, str]:
        return {**self.required, **self.optional}
