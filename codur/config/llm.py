"""Model profiles in config: `llm.profiles.NAME` (provider, model, endpoint, sampling,
limits) and the choice among them (default, fallback order)."""

from __future__ import annotations

import os
from typing import Literal

from pydantic import Field

from codur.config.sections import _Section
from codur.errors import MissingKey


class LLMProfile(_Section):
    provider: Literal["openai", "ollama", "anthropic", "local", "scripted"]
    """Which provider serves this profile: openai (any OpenAI-compatible endpoint),
    ollama, anthropic (the Messages API; the `anthropic` extra), local (embedded
    llama.cpp) or scripted (replays a file, for tests/demos)."""
    model: str = ""
    """Model name as the provider knows it (e.g. gpt-4o-mini, qwen2.5-coder:1.5b)."""
    base_url: str | None = None
    """Endpoint URL for openai/ollama/anthropic (e.g. http://127.0.0.1:8080/v1)."""
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (the key itself never goes
    in config files or logs); sent as the provider's key header (a bearer token for
    `openai` and `ollama`, a server behind an authenticating proxy too; `x-api-key` for
    `anthropic`)."""
    temperature: float = Field(0.2, ge=0, le=2)
    """Sampling temperature."""
    max_tokens: int = Field(2048, gt=0)
    """Upper bound on tokens generated per model call."""
    timeout_s: float = Field(120.0, gt=0)
    """Seconds one model request may take as a whole, however its answer trickles in
    (openai, ollama, anthropic); then it counts as a transient failure and is retried."""
    retry_temperature: float = Field(0.8, ge=0, le=2)
    """Temperature for a new attempt after a failed one (with a different seed), so the
    model samples a different fix instead of repeating the one that failed."""
    max_retries: int = Field(2, ge=0)
    """Retries (with exponential backoff) after a transient failure: connection error,
    timeout, HTTP 429 or 5xx."""
    retry_backoff_s: float = Field(1.0, ge=0)
    """First backoff delay in seconds; doubles after each retry. A server's `Retry-After`
    (429, 503) is waited for instead when longer, up to 60 s."""
    native_tools: bool = True
    """Use the provider's native tool calling (bind_tools). When false, tools are described
    in the prompt and calls are read from the reply text."""
    agent_tools: bool = True
    """Offer tools to agents running on this profile. Small embedded models do better
    with the relevant files given up front and no tool list to read."""
    edit_format: Literal["whole_file", "search_replace", "functions"] = "whole_file"
    """How this model is asked to edit files: the complete file (whole_file), SEARCH/REPLACE
    blocks (search_replace), or only the changed functions/classes, merged into the file by
    name (functions). Any of these shapes in a reply is applied, whichever was asked for.
    Small models do best with whole files or functions."""
    model_file: str | None = None
    """local: path to a GGUF file. Unset means the packaged weights named by `weights`."""
    weights: str | None = None
    """local: which packaged weights to use (a key of codur.models.weights.PACKAGED)."""
    n_ctx: int = Field(8192, gt=0)
    """local: context window in tokens."""
    n_threads: int | None = Field(None, gt=0)
    """local: CPU threads for inference (unset: the number of cores)."""
    draft: Literal["none", "prompt_lookup", "copy"] = "copy"
    """local: speculative decoding: draft the next tokens from the context, then check
    the whole draft in one decode and keep the tokens the model picks anyway. An edit
    copies most of its reply from the file in the prompt, so it comes several tokens a
    decode. prompt_lookup: llama-cpp-python's (what followed the first occurrence of the
    reply's last two tokens, or last one); copy: what followed the longest latest
    occurrence of the last 6-16 tokens, no draft when none is 6 long (codur.models.draft).
    Not exact: a batch's logits differ slightly from one token's, so a greedy reply can
    differ where two tokens nearly tie (bench/prompt_lookup.py: copy 1.68x the plain
    generation rate on edit replies, 18 of 20 greedy replies the same). A call with tools
    bound (its reply under a JSON grammar) drafts nothing."""
    draft_tokens: int = Field(15, gt=0, le=64)
    """local: tokens drafted at a time: more gains more when the draft holds, and costs
    more when it does not. 15 makes a decode of 16 tokens, which llama.cpp's CPU kernels
    run in 8-token blocks: 16 tokens cost less than 15 or 17 (bench/decode_cost.py)."""
    repeat_stop: int = Field(3, ge=0)
    """local: a reply that ends in the same block of 24-256 tokens this many times in a
    row is caught in a loop: it stops there and counts as cut at its output cap. 0: never
    (a reply runs to max_tokens)."""
    prefix_cache_mb: int = Field(512, ge=0)
    """local: disk space (MB, in the user cache folder) for the KV states of recent
    prompts, kept across runs: a call whose prompt starts like a saved one loads that
    state instead of evaluating the shared tokens again. 0 turns it off."""
    load_early: bool = True
    """local: start loading the model on a thread as the run opens (its ~1 s of one core
    then overlaps the run's first check and repair search): the README demo waited ~0.4 s
    less. A run the repair search fixes alone loads it for nothing (~0.4 s more there):
    false loads it at the first call instead."""
    seed: int = 0
    """Sampling seed, so runs are reproducible; attempt k after a failed one uses seed + k
    (local and ollama; OpenAI-compatible servers get it too, some ignore it)."""
    context_window: int | None = Field(None, gt=0)
    """openai/ollama/scripted: the model's context window in tokens (prompt plus reply),
    for fitting prompts into it; unset means unknown. Ollama also gets it as `num_ctx`, so
    the server loads the model with that window instead of its small default, which
    silently drops the start of longer prompts. local: `n_ctx` is the window."""
    script: str | None = None
    """scripted: path to a YAML/JSON file of responses to replay in order."""
    token_delay_s: float = Field(0.0, ge=0)
    """scripted: seconds before each streamed word of a reply (a slow model, to see the
    live progress)."""


class LLMConfig(_Section):
    default_profile: str = "local"
    """The profile used when an agent or command names none (`--profile` overrides); one
    that does not exist is a config error at load."""
    profiles: dict[str, LLMProfile] = {}
    """Named model profiles, referenced as `llm:NAME`."""
    max_context_tokens: int | None = Field(None, gt=0)
    """The most tokens any model call may take, its prompt (messages and tool schemas)
    plus the reply budget, whatever the profile: the coder's prompt is fitted into it,
    and any call still over it has its reply budget lowered, its oldest turns left out
    and its longest text cut in the middle before it is sent (codur.models.context;
    logged as `model.trimmed`). Counted by the provider's estimate where it has no
    tokenizer (openai, ollama, anthropic). Unset: the profile's context_window alone."""
    fallback_order: list[str] = []
    """Profiles tried, in this order, when a profile's model cannot be reached or
    loaded (connection refused after retries, the embedded model's file missing, the
    provider refusing the request): the first one not yet found unreachable in this run
    answers instead, and the switch is logged (`model.fallback`). Empty: the run ends
    (exit code 3)."""


def require_key(name: str, profile: LLMProfile) -> None:
    """MissingKey (a ConfigError) when the variable profile `name` names for its key is
    unset, or holds what no HTTP header may carry (a newline, a space at an end, a
    character that is not printable ASCII): the request would fail with the key in its
    error, as a connection error retried three times."""
    if not profile.api_key_env:
        return
    value = os.environ.get(profile.api_key_env)
    if not value:
        raise MissingKey(f"profile '{name}': environment variable {profile.api_key_env} is not set")
    if value != value.strip() or not (value.isascii() and value.isprintable()):
        raise MissingKey(
            f"profile '{name}': the value of {profile.api_key_env} holds a newline, a space "
            "at an end or a character that is not printable ASCII, which an HTTP header "
            "cannot carry: set it again without it"
        )
