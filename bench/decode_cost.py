#!/usr/bin/env python3
"""What one llama.cpp decode of k tokens costs on this machine: the price of checking a
draft of k-1 tokens in one batch (speculative decoding, `llm.profiles.*.draft`).

Loads the embedded model, evaluates an 800-token context, then times a decode of k
tokens after it (every token's logits, as a draft's check asks) and removes them again;
prints the median of `--repeats` per k, and the milliseconds per token. On this repo's
2-core machine a decode of 16 tokens cost less than one of 15 or 17 (the CPU kernels
work in blocks of 8 tokens), hence `draft_tokens: 15`.

nice -n 19 .venv/bin/python bench/decode_cost.py [--threads N] [--sizes 1,2,4,8,15,16,17]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from llama_cpp import Llama

from codur.models.weights import ensure_weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=None, help="default: the cores")
    parser.add_argument("--sizes", default="1,2,4,7,8,9,15,16,17,24,32")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--weights", default="qwen2.5-coder-1.5b")
    args = parser.parse_args()
    llama = Llama(
        str(ensure_weights(args.weights)),
        n_ctx=2048,
        n_threads=args.threads or os.cpu_count(),  # llama-cpp-python's default: half
        logits_all=True,
        verbose=False,
    )
    tokens = llama.tokenize(b"def f(x):\n    return x + 1\n" * 80)
    llama.eval(tokens[:800])
    base = llama.n_tokens
    one = 0.0
    for k in (int(x) for x in args.sizes.split(",")):
        times = []
        for _ in range(args.repeats):
            started = time.perf_counter()
            llama.eval(tokens[:k])
            times.append(time.perf_counter() - started)
            llama.n_tokens = base
            llama._ctx.kv_cache_seq_rm(-1, base, -1)
        ms = statistics.median(times) * 1000
        one = one or ms
        print(f"{k:3} tokens {ms:7.1f} ms  {ms / k:6.1f} ms a token  {ms / one:5.2f}x one")


if __name__ == "__main__":
    main()
