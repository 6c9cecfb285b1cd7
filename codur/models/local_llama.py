"""The embedded model's llama.cpp side: each model loaded once per process, one generation
at a time, and what Codur measures on it: the exact prompt tokens of a chat request and
what a generation decoded (`Decoding`: the prompt's prefix already in the KV cache, as
llama-cpp-python keeps the longest common prefix with the previous call, and the reply's
tokens). A generation stops before its next decode when the run is cancelled, and may
draft its tokens by prompt lookup (`generating`).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from codur.errors import Cancelled, ModelUnreachable
from codur.models.local_decoding import Decoding

_Key = tuple[str, int, int]
_LLAMAS: dict[_Key, Any] = {}
_FAILED: dict[_Key, ModelUnreachable] = {}  # an early load's failure, for the next load
_LOCK = threading.Lock()  # guards _LLAMAS and _FAILED; held while a model loads


GENERATE_LOCK = threading.Lock()
"""A llama.cpp context runs one generation at a time (and its `Decoding` record is that
generation's)."""


def load_llama(path: str, n_ctx: int, n_threads: int, seed: int) -> Any:
    """The process-wide llama.cpp model for (path, n_ctx, n_threads), loaded once (or
    the ModelUnreachable of an early load that failed). A load under way on another
    thread (`load_early`) is waited for."""
    key = (path, n_ctx, n_threads)
    with _LOCK:
        if key in _FAILED:
            raise _FAILED.pop(key)
        return _LLAMAS[key] if key in _LLAMAS else _load(key, seed)


def load_early(path: str, n_ctx: int, n_threads: int, seed: int) -> threading.Thread | None:
    """Start loading the model on a thread, for a run that will probably call it: the
    load is one core's work (~0.9 s for the 1.5B model, most of it repacking the weights
    for the CPU kernels), which overlaps the run's first steps on the other core. A failure
    is kept for the next `load_llama`, which raises it. Returns the thread (None: the
    model is loaded already)."""
    key = (path, n_ctx, n_threads)
    if key in _LLAMAS:
        return None

    def load() -> None:
        with _LOCK:
            if key in _LLAMAS or key in _FAILED:
                return
            try:
                _load(key, seed)
            except ModelUnreachable as exc:
                _FAILED[key] = exc

    thread = threading.Thread(target=load, name="codur-model-load", daemon=True)
    thread.start()
    return thread


def _load(key: _Key, seed: int) -> Any:
    """Load the model of `key` (called with _LOCK held)."""
    path, n_ctx, n_threads = key
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        raise ModelUnreachable(
            "the embedded model needs the local extra: pip install 'codur[local]'"
        ) from None
    from codur.models.local_cancel import CancellableLlama

    _quiet_llama_cpp()
    try:
        llama = CancellableLlama(
            model_path=path,
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelUnreachable(f"cannot load model {path}: {exc}") from exc
    _LLAMAS[key] = llama
    return llama


def _quiet_llama_cpp() -> None:
    """Silence llama.cpp without touching the process's file descriptors.
    llama-cpp-python quiets a load by pointing descriptors 1 and 2 at /dev/null for its
    duration (`suppress_stdout_stderr`), which would swallow what the rest of Codur
    prints meanwhile from another thread (`load_early`). Instead llama.cpp's log goes to
    a callback that drops it, and that swap is turned off (the two modules that load a
    text model: `llama`, `_internals`)."""
    import llama_cpp
    import llama_cpp._internals
    import llama_cpp.llama

    global _DROP_LOG
    if _DROP_LOG is not None:
        return
    _DROP_LOG = llama_cpp.llama_log_callback(lambda level, text, data: None)
    llama_cpp.llama_log_set(_DROP_LOG, None)
    for module in (llama_cpp.llama, llama_cpp._internals):  # called as (disable=verbose)
        module.suppress_stdout_stderr = lambda disable=True: nullcontext()  # type: ignore[attr-defined]


_DROP_LOG: Any = None
"""The log callback given to llama.cpp (kept alive here: llama.cpp holds only a pointer)."""


LOCK_POLL_SECONDS = 0.1
"""How often a call waiting for another run's generation looks at its own cancel event."""


@contextmanager
def generating(
    llama: Any,
    cancel: threading.Event | None,
    draft: Any = None,
    on_decode: Callable[[Any], None] | None = None,
    repeats: int = 0,
) -> Iterator[None]:
    """Hold `llama` for one generation (GENERATE_LOCK); while it runs, `cancel` set stops
    it before its next decode with Cancelled, `draft` (a llama-cpp-python draft model, or
    None) drafts its tokens, `on_decode` is called after each decode, and a reply ending
    in the same block `repeats` times stops (codur.models.local_cancel). A call still
    waiting for another run's generation is
    cancelled while it waits."""
    while not GENERATE_LOCK.acquire(timeout=LOCK_POLL_SECONDS):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
    try:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        llama.cancel, llama.draft_model, llama.on_decode = cancel, draft, on_decode
        llama.decoding, llama.repeats = Decoding(), repeats
        try:
            yield
        finally:
            llama.cancel, llama.draft_model, llama.on_decode = None, None, None
            llama.repeats = 0
    finally:
        GENERATE_LOCK.release()


def draft_model(kind: str, draft_tokens: int) -> Any:
    """The draft model of `LLMProfile.draft` (None for none): llama-cpp-python's prompt
    lookup (the `draft_tokens` tokens that followed the reply's last two tokens where
    they first occur in the context), or Codur's copy draft (codur.models.draft)."""
    if kind == "copy":
        from codur.models.draft import CopyDraft

        return CopyDraft(draft_tokens)
    if kind == "prompt_lookup":
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        return LlamaPromptLookupDecoding(max_ngram_size=2, num_pred_tokens=draft_tokens)
    return None


def close_all() -> None:
    """Free the loaded models while llama.cpp is still whole (its own finaliser fails when
    it runs during interpreter shutdown, after the library's globals are gone); a load
    under way on another thread is waited for (it holds the lock). Run at exit; nothing
    to do when the CLI ends the process by `os._exit` (codur.exiting): no finaliser runs
    then, and an early load that no run used need not be waited for."""
    from codur.exiting import immediate

    if immediate():
        return
    with _LOCK:
        for llama in _LLAMAS.values():
            llama.close()
        _LLAMAS.clear()


atexit.register(close_all)


class _PromptReady(Exception):
    """Raised by `_Probe` with the prompt tokens a chat handler built."""

    def __init__(self, tokens: list[int]) -> None:
        super().__init__(f"{len(tokens)} prompt tokens")
        self.tokens = tokens


class _Probe:
    """Stands in for the Llama inside its chat handler: formats and tokenizes exactly as a
    real call would, then stops where generation would start."""

    def __init__(self, llama: Any) -> None:
        self._llama = llama

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, prompt: list[int], **kwargs: Any) -> Any:
        raise _PromptReady(list(prompt))


def chat_handler(llama: Any) -> Callable[..., Any]:
    """The chat handler `create_chat_completion` uses (same lookup order)."""
    from llama_cpp import llama_chat_format

    return (
        llama.chat_handler
        or llama._chat_handlers.get(llama.chat_format)
        or llama_chat_format.get_chat_completion_handler(llama.chat_format)
    )


def prompt_tokens(llama: Any, messages: list[dict[str, Any]]) -> list[int]:
    """The prompt tokens `llama.create_chat_completion(messages=messages)` evaluates: the
    model's chat template rendered and tokenized by llama-cpp-python's own handler."""
    try:
        chat_handler(llama)(llama=_Probe(llama), messages=messages)
    except _PromptReady as ready:
        return ready.tokens
    raise RuntimeError(f"chat format {llama.chat_format!r} did not build a completion prompt")
