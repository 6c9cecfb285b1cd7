"""A llama.cpp model whose generation a cancelled run cuts (imported only with llama_cpp).

llama-cpp-python runs a chat completion as a Python loop around llama.cpp calls: it
evaluates the prompt (`Llama.eval`, in batches of `n_batch` tokens), then samples a token
and evaluates it, token after token. `CancellableLlama.eval` checks the run's cancel
event before each of those decodes and raises `Cancelled` there, in Python, between two
llama.cpp calls: nothing inside llama.cpp is interrupted, and the model's state stays
consistent (`n_tokens`, `input_ids` and the KV cache hold what was evaluated, so the next
call reuses the prompt's prefix as usual). What it does not cut: a decode under way, a
batch of up to `n_batch` (512) prompt tokens or one generated token.

Why not a logits processor forcing the end-of-generation token (llama-cpp-python's
`create_chat_completion` takes no stopping criteria, but takes `logits_processor`): with
tools bound, `codur.models.local` constrains the reply with a JSON-schema grammar, and
llama.cpp's grammar sampler rejects that token until the JSON is complete; a token the
grammar rejects that is sampled anyway aborts the whole process (GGML_ABORT in
`llama_grammar_accept_impl`). Raising between decodes works with and without a grammar.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from llama_cpp import Llama

from codur.errors import Cancelled


class CancellableLlama(Llama):  # type: ignore[misc]
    """A Llama that stops before its next decode once `cancel` is set."""

    cancel: threading.Event | None = None
    """The cancel event of the generation under way (set by `local_llama.generating`)."""

    def eval(self, tokens: Sequence[int]) -> None:
        """Evaluate `tokens` as `Llama.eval` does, one `n_batch` batch a call (the same
        decodes), raising Cancelled before a batch once `cancel` is set."""
        for start in range(0, max(len(tokens), 1), self.n_batch):
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled()
            super().eval(tokens[start : start + self.n_batch])
