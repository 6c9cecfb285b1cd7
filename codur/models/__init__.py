"""Model providers, registered in one place: a provider is one module and one line here.

A provider module defines five functions (see `codur.models.base.Provider`):
`build(name, profile)` -> a LangChain chat model, `classify(exc)` -> whether an error is
worth retrying, `endpoint(profile)` -> the URL or file shown in error messages,
`context_window(profile)` and `count_tokens(model, messages, tools)` for fitting prompts.
A provider that replays answers in order may also define `advance(model, calls)`: a
resumed run's model, built after `calls` requests of its profile were answered, skips
that many (the scripted provider). `--replay` swaps in `replay.Replay` for every profile
(`ModelClient.backend`); `--record` is `recording.Recorder`, called by `ModelClient`.
Modules are imported only when a profile uses them, so `codur --help` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.models.base import Provider

PROVIDERS: dict[str, str] = {
    "openai": "codur.models.openai",
    "ollama": "codur.models.ollama",
    "anthropic": "codur.models.anthropic",
    "local": "codur.models.local",
    "scripted": "codur.models.scripted",
}


def provider(name: str) -> Provider:
    """The provider module registered under `name`."""
    from codur.errors import ConfigError

    if name not in PROVIDERS:
        raise ConfigError(f"unknown provider '{name}' (known: {', '.join(sorted(PROVIDERS))})")
    return importlib.import_module(PROVIDERS[name])  # type: ignore[return-value]
