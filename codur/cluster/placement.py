"""Where a distributed run's model is served and what each run reserves on Ray.

- The embedded model (provider `local`): each run's own Codur process loads it on the
  node that runs it, from the weight packages installed there (assembled once per node
  into the user cache; llama.cpp maps the file, so the node's page cache holds one copy
  for all its runs). A run reserves as many CPUs as the model has threads: the profile's
  `n_threads`, or 1 when unset (and the run is told so, since unset means every core).
  Not one model per worker process kept across runs: a llama.cpp context carries its
  KV cache from one run to the next, which changes sampled replies (docs/benchmarks.md),
  so a run would no longer give what it gives locally; a load costs ~1.5 s against runs
  of 30-600 s.
- An OpenAI-compatible or Ollama endpoint: every run calls the profile's `base_url`
  (vLLM, a llama.cpp server...); a run reserves 1 CPU (its checks and the agent itself).
- The scripted model (tests): 1 CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codur.config.schema import LLMProfile


@dataclass(frozen=True)
class Placement:
    kind: Literal["embedded", "endpoint", "scripted"]
    cpus: int
    """CPUs one run reserves (Ray's `num_cpus`)."""
    overrides: tuple[str, ...]
    """`-o` overrides every run needs so it uses what it reserved (the model's threads)."""
    text: str
    """One line for the report."""


def placement(name: str, profile: LLMProfile) -> Placement:
    """Placement of the runs of profile `name`."""
    if profile.provider == "local":
        threads = profile.n_threads or 1
        pinned = () if profile.n_threads else (f"llm.profiles.{name}.n_threads=1",)
        text = (
            f"embedded model loaded by each run's Codur process on its node (profile {name}, "
            f"{threads} thread(s), {threads} CPU(s) a run)"
        )
        return Placement("embedded", threads, pinned, text)
    if profile.provider == "scripted":
        return Placement("scripted", 1, (), f"scripted model (profile {name}), 1 CPU a run")
    url = profile.base_url or f"the {profile.provider} provider's default endpoint"
    text = f"shared endpoint {url} (profile {name}, {profile.provider}), 1 CPU a run"
    return Placement("endpoint", 1, (), text)
