"""Prompt states kept across calls and runs: the embedded model's KV cache after a call,
saved in the user cache folder, so that a later call (in this run or the next) whose
prompt starts the same way loads it instead of evaluating those tokens again.

llama-cpp-python keeps only the last call's state in memory, so two prompts that take
turns (the planner's and the coder's), or a new run on the same files, evaluate their
whole prompt each time. Its LlamaRAMCache keeps more, but copies up to 512 rows of
logits per state (bench/prompt_cache.py); a sequence state file holds the KV cells only
(~28 KB a token for the packaged 1.5B model) and loads in milliseconds.

An entry is two files named by the hash of its tokens: `<hash>.kv` (llama.cpp's
sequence state) and `<hash>.tokens` (the tokens, as int32), written in that order, each
atomically, so an entry whose `.tokens` exists is whole. Entries live under a folder
per model file (path, size and time) and context size; the oldest go past the budget.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MIN_GAIN = 64
"""Tokens a state must spare beyond what the KV cache already holds to be worth loading,
and tokens a call must have evaluated to be worth saving."""


def store_folder(model_path: str, n_ctx: int) -> Path:
    """`<user cache>/codur/kv/<key>`: the key names the model file and the context size."""
    from platformdirs import user_cache_dir

    stat = os.stat(model_path)
    ident = f"{os.path.abspath(model_path)}|{stat.st_size}|{stat.st_mtime_ns}|{n_ctx}"
    key = hashlib.sha256(ident.encode()).hexdigest()[:16]
    return Path(user_cache_dir("codur")) / "kv" / key


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """How many leading tokens `a` and `b` share."""
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


@dataclass
class PrefixStore:
    """The saved states of one model; `budget_bytes` bounds the folder."""

    folder: Path
    budget_bytes: int

    def entries(self) -> list[tuple[Path, np.ndarray]]:
        """The whole entries: (state file, its tokens)."""
        if not self.folder.is_dir():
            return []
        found = []
        for tokens_file in self.folder.glob("*.tokens"):
            state = tokens_file.with_suffix(".kv")
            try:
                found.append((state, np.fromfile(tokens_file, dtype=np.int32)))
            except OSError:  # removed by another run between glob and read
                continue
        return [(state, tokens) for state, tokens in found if state.is_file()]

    def best(self, prompt: list[int], held: int) -> Path | None:
        """The entry sharing the longest prefix with `prompt`, if it shares MIN_GAIN tokens
        more than the `held` ones the KV cache already has."""
        wanted = np.asarray(prompt, dtype=np.int32)
        shared, state = max(
            ((common_prefix(tokens, wanted), state) for state, tokens in self.entries()),
            default=(0, None),
            key=lambda pair: pair[0],
        )
        return state if state is not None and shared >= held + MIN_GAIN else None

    def restore(self, llama: Any, prompt: list[int]) -> int:
        """Load the best entry for `prompt` into `llama`; returns the tokens loaded (0:
        none). llama-cpp-python's own prefix match then evaluates only the rest."""
        cached = np.asarray(llama.input_ids[: llama.n_tokens], dtype=np.int32)
        state = self.best(prompt, common_prefix(cached, np.asarray(prompt, dtype=np.int32)))
        return load_state(llama, state) if state is not None else 0

    def save(self, llama: Any) -> Path:
        """Save the KV cache's tokens and cells as an entry, drop the entries it extends,
        then the oldest past the budget."""
        import llama_cpp

        n = int(llama.n_tokens)
        tokens = np.asarray(llama.input_ids[:n], dtype=np.int32)
        name = hashlib.sha256(tokens.tobytes()).hexdigest()[:24]
        self.folder.mkdir(parents=True, exist_ok=True)
        state, tokens_file = self.folder / f"{name}.kv", self.folder / f"{name}.tokens"
        part = state.with_name(f".{name}.{os.getpid()}.part")
        array = (llama_cpp.llama_token * n)(*tokens.tolist())
        if not llama_cpp.llama_state_seq_save_file(llama._ctx.ctx, bytes(part), 0, array, n):
            part.unlink(missing_ok=True)
            raise OSError(f"llama.cpp could not write {part}")
        os.replace(part, state)
        tokens.tofile(part)
        os.replace(part, tokens_file)
        for other, other_tokens in self.entries():
            if other != state and common_prefix(other_tokens, tokens) == len(other_tokens):
                drop(other)
        self.trim()
        return state

    def trim(self) -> None:
        """Remove the least recently used entries until the folder fits its budget."""
        states = sorted(
            (s for s, _ in self.entries()), key=lambda s: s.stat().st_mtime, reverse=True
        )
        used = 0
        for state in states:
            used += state.stat().st_size
            if used > self.budget_bytes:
                drop(state)


def load_state(llama: Any, state: Path) -> int:
    """Replace the KV cache with the entry's cells and tokens; returns their count."""
    import llama_cpp

    capacity = int(llama.n_ctx())
    tokens = (llama_cpp.llama_token * capacity)()
    count = ctypes.c_size_t(0)
    llama._ctx.kv_cache_seq_rm(-1, 0, -1)
    llama.n_tokens = 0
    read = llama_cpp.llama_state_seq_load_file(
        llama._ctx.ctx, bytes(state), 0, tokens, capacity, ctypes.byref(count)
    )
    if not read:
        llama._ctx.kv_cache_seq_rm(-1, 0, -1)
        drop(state)
        raise OSError(f"llama.cpp could not load {state}; removed it")
    n = int(count.value)
    llama.input_ids[:n] = np.frombuffer(tokens, dtype=np.int32, count=n)
    llama.n_tokens = n
    llama._requires_eval = True  # the logits are not restored: the next decode makes them
    os.utime(state)  # recently used
    return n


def drop(state: Path) -> None:
    """Remove an entry (its tokens first, so a reader never sees a half entry)."""
    state.with_suffix(".tokens").unlink(missing_ok=True)
    state.unlink(missing_ok=True)
