"""Per-call settings on a chat model: one call's temperature, seed and output cap (and the
run's prompts) applied to the fields the profile's model has."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from codur.promptbook import PromptBook

FIELDS: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature",),
    "seed": ("seed",),
    "max_tokens": ("max_tokens", "num_predict"),  # OpenAI and local; Ollama
}
"""Where each per-call setting lives on the chat models; a model without the field (the
scripted one) ignores the setting."""


def configured(
    model: BaseChatModel, prompts: PromptBook | None, settings: dict[str, Any]
) -> BaseChatModel:
    """`model` with `settings` (and the run's prompts, for a model that words part of a call
    itself) applied to the fields it has; `model` itself when nothing changes."""
    fields = type(model).model_fields
    update: dict[str, Any] = {}
    if "prompts" in fields and prompts not in (None, getattr(model, "prompts", None)):
        update["prompts"] = prompts
    for name, value in settings.items():
        field_name = next((f for f in FIELDS[name] if f in fields), None)
        if field_name and getattr(model, field_name) != value:
            update[field_name] = value
    return model.model_copy(update=update) if update else model
