"""What one generation of the embedded model decoded: written by its Llama's `eval`
(codur.models.local_cancel), read for the cached prompt tokens and the live progress."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Decoding:
    """What one generation has decoded so far (positions in the context)."""

    cached: int | None = None
    """Prompt tokens already in the KV cache (set by the generation's first decode)."""
    prompt: int = 0
    """The prompt's length: where the reply starts."""
    prompt_todo: int = 0
    """Prompt tokens this generation evaluates (the rest was cached)."""
    confirmed: int = 0
    """Where the reply's confirmed tokens end (a draft's tokens are not, until sampled)."""
