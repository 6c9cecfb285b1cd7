"""What one generation of the embedded model decoded: written by its Llama's `eval`
(codur.models.local_cancel), read for the cached prompt tokens and the live progress."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


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
    started: float = field(default_factory=time.perf_counter)
    """When the generation began (`time.perf_counter`), once it held the model."""
    loop_checked: int = 0
    """The reply's length when it was last checked for a loop (codur.models.repetition)."""
    prompt_s: float = 0.0
    """Seconds the prompt took to evaluate (set when its last batch is decoded)."""

    def timings(self) -> dict[str, float]:
        """Seconds spent evaluating the prompt and generating the reply, so far."""
        total = time.perf_counter() - self.started
        return {"prompt_s": round(self.prompt_s, 3), "generate_s": round(total - self.prompt_s, 3)}
