#!/usr/bin/env python3
"""How much of each prompt the embedded model evaluates again, when calls repeat a prompt
or alternate between two (a planner prompt and a coder prompt), or come from a new run
(the KV cache empty), with llama-cpp-python's own prefix reuse alone, with a
LlamaRAMCache, and with Codur's saved prompt states (`prefix_cache_mb`,
codur/models/local_prefix.py, here in a temporary cache folder); prints ratios and figures.

.venv/bin/python bench/prompt_cache.py [--rounds N] [--cache-mb MB]

A call's `cache_read` (usage_metadata.input_token_details) is the prompt tokens llama.cpp
did not decode, measured from its perf counters (codur/models/local_llama.py).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from codur.agents.fit import Prompt
from codur.agents.prompting import task_message
from codur.agents.registry import AgentRequest
from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.promptbook import PromptBook

ROOT = Path(__file__).resolve().parent.parent


def prompts() -> dict[str, list[BaseMessage]]:
    challenge = ROOT / "challenges" / "grade_boundary"
    request = AgentRequest(
        task=(challenge / "prompt.txt").read_text().strip(),
        files={"main.py": (challenge / "main.py").read_text()},
    )
    book = PromptBook()
    return {
        "planner": [SystemMessage(book.render("pre_planner")), HumanMessage(request.task)],
        "coder": [
            SystemMessage(book.render("coder")),
            HumanMessage(
                task_message(request.task, Prompt(files=request.files), "whole_file", book)
            ),
        ],
    }


def rss_mb() -> float:
    """This process's resident memory (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(client: ModelClient, order: list[str], cases: dict[str, list[BaseMessage]]) -> None:
    prompt_total = cached_total = 0
    start = time.perf_counter()
    for name in order:
        reply = client.invoke(cases[name], max_tokens=4)
        usage = reply.usage_metadata or {}
        tokens = usage.get("input_tokens", 0)
        cached = (usage.get("input_token_details") or {}).get("cache_read", 0)
        prompt_total, cached_total = prompt_total + tokens, cached_total + cached
        print(
            f"    {name:8} prompt {tokens:5}  cache_read {cached:5}  evaluated {tokens - cached:5}"
        )
    wall = time.perf_counter() - start
    print(
        f"  => evaluated {prompt_total - cached_total} of {prompt_total} prompt tokens "
        f"(cache_read ratio {cached_total / prompt_total:.2f}), {wall:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache-mb", type=int, default=256)
    args = parser.parse_args()
    from llama_cpp import LlamaRAMCache

    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="codur-prompt-cache-")
    profile = LLMProfile(provider="local", weights="qwen2.5-coder-1.5b", n_ctx=8192)
    client = ModelClient("local", profile, EventBus())
    model = client.model
    llama = model.llama
    cases = prompts()
    print("prompt tokens:", {name: client.count_tokens(m) for name, m in cases.items()})
    repeated = ["coder"] * args.rounds
    alternating = ["planner", "coder"] * args.rounds
    setups = [
        ("prefix reuse only", None, 0),
        ("with LlamaRAMCache", args.cache_mb, 0),
        ("with saved prompt states", None, args.cache_mb),
    ]
    for label, ram_mb, disk_mb in setups:
        llama.set_cache(LlamaRAMCache(capacity_bytes=ram_mb << 20) if ram_mb else None)
        model.prefix_cache_mb = disk_mb
        llama.reset()
        print(f"{label}: same prompt {args.rounds} times")
        run(client, repeated, cases)
        llama.reset()
        print(f"{label}: planner and coder alternating, {args.rounds} rounds")
        run(client, alternating, cases)
        llama.reset()
        print(f"{label}: a new run's first call (the KV cache empty)")
        run(client, ["coder"], cases)
        if llama.cache is not None:
            states = list(llama.cache.cache_state.values())
            counted = sum(s.llama_state_size for s in states) / 2**20
            logits = sum(s.scores.nbytes for s in states) / 2**20
            print(
                f"  RAM cache: {len(states)} states, {counted:.1f} MB counted against its "
                f"capacity (KV) + {logits:.1f} MB of logits copies it does not count"
            )
        if disk_mb:
            saved = sorted(Path(os.environ["XDG_CACHE_HOME"]).rglob("*.kv"))
            size = sum(p.stat().st_size for p in saved) / 2**20
            print(f"  saved states: {len(saved)} files, {size:.1f} MB on disk")
        print(f"  process RSS {rss_mb():.0f} MB")
    llama.set_cache(None)


if __name__ == "__main__":
    main()
