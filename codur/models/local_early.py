"""The embedded model loaded on a thread while the run opens: while it probes the
project's Python, runs the first check and the repair search (codur.run)."""

from __future__ import annotations

import os
import threading

from codur.config.schema import LLMProfile
from codur.models import local_llama
from codur.models.weights import PACKAGED, assembled


def load_early(profile: LLMProfile) -> threading.Thread | None:
    """Start loading `profile`'s model on a thread (local_llama.load_early) when it is a
    local profile with `load_early` whose file is ready: `model_file` exists, or the
    packaged weights are assembled. Returns the loading thread; None when there is none
    (the model is loaded already, or not ready: the first call then builds it as before,
    joining the weights' parts or saying what is wrong)."""
    if profile.provider != "local" or not profile.load_early:
        return None
    if profile.model_file:
        path = os.path.expanduser(profile.model_file)
        ready = path if os.path.isfile(path) else None
    else:
        found = assembled(profile.weights) if profile.weights in PACKAGED else None
        ready = str(found) if found else None
    if ready is None:
        return None
    n_threads = profile.n_threads or os.cpu_count() or 1
    return local_llama.load_early(ready, profile.n_ctx, n_threads, profile.seed)
