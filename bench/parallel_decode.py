#!/usr/bin/env python3
"""What a decode step of the embedded model costs for 1-4 sequences at once (llama.cpp's
batch of one token a sequence, the prompt's KV cells shared): would drawing several
replies to one prompt in parallel be faster than one after the other? Prints ms a step
and tokens a second for each count.

    .venv/bin/python bench/parallel_decode.py [--threads 2] [--steps 40]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MOST = 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    import llama_cpp
    from llama_cpp import Llama
    from llama_cpp import _internals as internals

    from codur.models.weights import ensure_weights

    make = internals.LlamaContext.__init__

    def with_sequences(self, *, model, params, verbose=True):  # Llama has no such option
        params.n_seq_max, params.kv_unified = MOST, True
        make(self, model=model, params=params, verbose=verbose)

    internals.LlamaContext.__init__ = with_sequences
    path = str(ensure_weights("qwen2.5-coder-1.5b"))
    llm = Llama(model_path=path, n_ctx=4096, n_threads=args.threads, verbose=False)
    prompt = llm.tokenize(b"def fib(n):\n    '''Return the n-th Fibonacci number.'''\n" * 20)
    llm.eval(prompt)
    ctx, past = llm._ctx.ctx, llm.n_tokens
    memory = llama_cpp.llama_get_memory(ctx)
    batch = llama_cpp.llama_batch_init(MOST, 0, MOST)
    for n in range(1, MOST + 1):
        for seq in range(1, n):
            llama_cpp.llama_memory_seq_cp(memory, 0, seq, 0, past)
        start = time.perf_counter()
        for step in range(args.steps):
            batch.n_tokens = n
            for seq in range(n):
                batch.token[seq], batch.pos[seq] = prompt[-1], past + step
                batch.n_seq_id[seq], batch.seq_id[seq][0], batch.logits[seq] = 1, seq, 1
            if llama_cpp.llama_decode(ctx, batch) != 0:
                raise SystemExit("llama_decode failed")
        step_s = (time.perf_counter() - start) / args.steps
        print(f"{n} sequence(s): {step_s * 1000:.1f} ms a step, {n / step_s:.1f} tokens/s")
        for seq in range(n):
            llama_cpp.llama_memory_seq_rm(memory, seq, past, -1)
    llama_cpp.llama_batch_free(batch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
