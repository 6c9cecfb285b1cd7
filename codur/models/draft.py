"""Prompt lookup drafts that follow a copy (imported only with llama_cpp).

An edit's reply copies long runs of the file it was shown. The draft for the next decode
is what followed the longest earlier occurrence of the context's last tokens (the most
recent of equally long ones), and only when that occurrence is at least `min_match`
tokens long: a run being copied matches long and keeps matching, while prose matches a
few tokens by chance ("the `total` function"), and a wrong draft costs a batch of tokens
for nothing: on 2 cores a decode of 16 tokens takes as long as 5-6 single ones
(bench/decode_cost.py). Measured on edit replies (bench/prompt_lookup.py, the same
machine state): drafting from a 3-token match, 1.53x the plain generation rate and 13 of
20 greedy replies the same; from a 6-token match, 1.68x and 18 of 20.
llama-cpp-python's own `LlamaPromptLookupDecoding` takes the first occurrence of the last
two tokens, or of the last one, anywhere in the context (often in the system text).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llama_cpp.llama_speculative import LlamaDraftModel


def follow(ids: np.ndarray, tokens: int, min_match: int, max_match: int) -> np.ndarray:
    """The `tokens` tokens after the longest (then latest) earlier occurrence of `ids`'
    last `min_match`..`max_match` tokens; empty when none is that long."""
    n = len(ids)
    if n <= min_match:
        return ids[:0]
    starts = np.flatnonzero(ids[: n - 1] == ids[-1])  # candidate ends of an occurrence
    length = 1
    while starts.size and length < max_match:
        back = starts - length
        ok = back >= 0
        ok[ok] = ids[back[ok]] == ids[n - 1 - length]
        if not ok.any():
            break
        starts, length = starts[ok], length + 1
    if length < min_match or not starts.size:
        return ids[:0]
    after = int(starts[-1]) + 1
    return ids[after : after + tokens]


class CopyDraft(LlamaDraftModel):  # type: ignore[misc]
    """Drafts up to `tokens` tokens by following the longest earlier match of the
    context's last tokens (at least `min_match`, looked for up to `max_match`)."""

    def __init__(self, tokens: int, min_match: int = 6, max_match: int = 16) -> None:
        self.tokens, self.min_match, self.max_match = tokens, min_match, max_match

    def __call__(self, input_ids: Any, /, **kwargs: Any) -> np.ndarray:
        ids = np.asarray(input_ids)
        return follow(ids, self.tokens, self.min_match, self.max_match).astype(np.intc)
