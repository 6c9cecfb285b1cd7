"""A llama.cpp model whose generation a cancelled run cuts, that drafts tokens to verify
in one decode, and that records each generation's decodes (imported only with llama_cpp).

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

Speculative decoding (`draft_model`, set per generation by `local_llama.generating`):
llama-cpp-python's `generate` evaluates the sampled token with the draft's tokens in one
batch and samples each of them from its own logits, keeping them while they match. The
Llama is built without a draft model, which would make it keep every token's logits
(a prompt's worth of vocabulary rows, and the output layer run for every prompt token);
`eval` asks llama.cpp for every token's logits in the batches that check a draft only.

A reply that ends in the same block `repeats` times in a row is stopped before its next
decode with Repeating (codur.models.repetition), which holds the reply's tokens.

`decoding` records what the generation under way has decoded (the prompt's cached prefix,
the prompt evaluated, the reply's confirmed tokens), and `on_decode` is called after each
decode, for the live progress.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from llama_cpp import Llama

from codur.errors import Cancelled
from codur.models.local_decoding import Decoding
from codur.models.repetition import CHECK_EVERY, Repeating, period


class CancellableLlama(Llama):  # type: ignore[misc]
    """A Llama that stops before its next decode once `cancel` is set, verifies drafts in
    one decode, and records its decodes."""

    cancel: threading.Event | None = None
    """The cancel event of the generation under way (set by `local_llama.generating`)."""
    decoding: Decoding = Decoding()
    """The generation under way (a new one per generation: `local_llama.generating`)."""
    on_decode: Callable[[CancellableLlama], None] | None = None
    """Called after each decode of the generation under way."""
    repeats: int = 0
    """A reply ending in the same block this many times is stopped (0: never)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decoding = Decoding()

    def eval(self, tokens: Sequence[int]) -> None:
        """Evaluate `tokens` as `Llama.eval` does, one `n_batch` batch a decode, raising
        Cancelled before a batch once `cancel` is set. The generation's first call is its
        prompt (logits for the last token only); with a draft model, each later call is
        the sampled token and its draft, and gets every token's logits."""
        record = self.decoding
        prompt = record.cached is None
        if prompt:  # a prompt cached whole comes as no tokens: the reply starts here
            record.cached, record.prompt_todo = self.n_tokens, len(tokens)
            record.prompt = record.confirmed = self.n_tokens
        else:
            record.confirmed = self.n_tokens + 1  # the sampled token; the rest is a draft
            self._check_loop(tokens[0])
        all_logits = not prompt and self.draft_model is not None
        self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
        for start in range(0, max(len(tokens), 1), self.n_batch):
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled()
            batch = tokens[start : start + self.n_batch]
            if not batch:
                break
            n_past = self.n_tokens
            self._batch.set_batch(batch=batch, n_past=n_past, logits_all=all_logits)
            self._ctx.decode(self._batch)
            self.input_ids[n_past : n_past + len(batch)] = batch
            self.n_tokens += len(batch)
            self._requires_eval = False
            if prompt:
                record.prompt = record.confirmed = self.n_tokens
            if prompt:
                record.prompt_s = time.perf_counter() - record.started
            if self.on_decode is not None:
                self.on_decode(self)

    def _check_loop(self, sampled: int) -> None:
        """Raise Repeating when the reply, with the token just sampled, ends in a loop
        (`repeats` blocks in a row; codur.models.repetition)."""
        record = self.decoding
        reply = self.n_tokens + 1 - record.prompt  # a draft may have added several
        if self.repeats and reply - record.loop_checked >= CHECK_EVERY:
            record.loop_checked = reply
            tokens = [*self.input_ids[record.prompt : self.n_tokens].tolist(), sampled]
            if found := period(tokens, self.repeats):
                raise Repeating(tokens, found)
