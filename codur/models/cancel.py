"""The run's cancel event, as a model call in flight sees it.

`ModelClient` holds the run's cancel event (`Session.cancel`) and calls the chat model in
the run's thread. The model itself was built by its provider for a profile and may serve
several runs (a `codur chat` session's, concurrent runs of the Python API), so the event
cannot live on the model: `ModelClient` sets it in a context variable around each call
(`cancelling`), and the code that can cut a call under way reads it there
(`current_cancel`), in the same thread:

- the embedded model (codur.models.local): llama.cpp stops before its next decode, a
  token or a batch of the prompt (codur.models.local_cancel);
- the HTTP providers' request hook (codur.models.deadline): the request's sockets are
  shut, as when its deadline passes.

Threads those parts start get the event from them, not from the variable (a new thread
starts with an empty context).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_CANCEL: ContextVar[threading.Event | None] = ContextVar("codur_model_cancel", default=None)


@contextmanager
def cancelling(event: threading.Event | None) -> Iterator[None]:
    """Model calls made inside (in this thread) are cut when `event` is set."""
    token = _CANCEL.set(event)
    try:
        yield
    finally:
        _CANCEL.reset(token)


def current_cancel() -> threading.Event | None:
    """The cancel event of the model call under way in this thread (None: none can cut it)."""
    return _CANCEL.get()
