#!/usr/bin/env python3
"""Prompt lookup decoding on edit replies: the embedded model answers the coder's first
prompt for each challenge in challenges/ (the buggy file and "fix it, reply with the whole
file") at temperature 0, with `draft: none` and each of `--drafts` (llama-cpp-python's
`prompt_lookup`, Codur's `copy`), the KV cache cleared before each call. Prints each
call's generation rate (reply tokens a second after the prompt was evaluated) with the
draft off and on, the ratio overall, and where two replies differ (speculative decoding
is exact under greedy decoding only when a batch's logits are those of one token at a
time). Exit code 1 when a reply differs.

nice -n 19 .venv/bin/python bench/prompt_lookup.py [--calls 20] [--threads 1]
    [--draft-tokens 10] [--max-tokens 512] [--drafts prompt_lookup,copy]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from codur.agents.fit import Prompt
from codur.agents.prompting import task_message
from codur.challenges.spec import discover
from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.models.progress import reporting
from codur.promptbook import PromptBook

ROOT = Path(__file__).resolve().parent.parent


class Stopwatch:
    """Stands in for a call's CallProgress: notes when the prompt was evaluated."""

    def __init__(self) -> None:
        self.prompt_done = time.perf_counter()

    def prompt(self, done: int, total: int) -> None:
        self.prompt_done = time.perf_counter()

    def reply(self, tokens: int, text: Any) -> None:
        """The reply's decodes: nothing to note."""


def prompts(calls: int) -> list[tuple[str, list[BaseMessage]]]:
    """The coder's first prompt for the first `calls` challenges: (name, messages)."""
    book = PromptBook()
    out = []
    for challenge in discover([ROOT / "challenges"])[:calls]:
        files = {
            p.name: p.read_text(encoding="utf-8")
            for p in sorted(challenge.folder.glob("*.py"))
            if p.name in challenge.prompt
        }
        text = task_message(challenge.prompt, Prompt(files=files), "whole_file", book)
        out.append((challenge.name, [SystemMessage(book.render("coder")), HumanMessage(text)]))
    return out


def timed(client: ModelClient, messages: list[BaseMessage]) -> tuple[str, int, float]:
    """One call from an empty KV cache: (reply, reply tokens, seconds generating it)."""
    client.model.llama.reset()  # type: ignore[attr-defined]
    watch = Stopwatch()
    with reporting(watch):  # type: ignore[arg-type]
        reply = client.invoke(messages)
    seconds = time.perf_counter() - watch.prompt_done
    tokens = int((reply.usage_metadata or {}).get("output_tokens", 0))
    return str(reply.content), tokens, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--threads", type=int, default=None, help="default: the cores")
    parser.add_argument("--draft-tokens", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument(
        "--drafts", default="prompt_lookup,copy", help="draft kinds to set against none"
    )
    args = parser.parse_args()
    kinds = ["none", *(k for k in args.drafts.split(",") if k and k != "none")]
    clients = {
        draft: ModelClient(
            f"local-{draft}",
            LLMProfile(
                provider="local",
                weights="qwen2.5-coder-1.5b",
                n_ctx=8192,
                n_threads=args.threads,
                temperature=0.0,
                max_tokens=args.max_tokens,
                draft=draft,
                draft_tokens=args.draft_tokens,
            ),
            EventBus(),
        )
        for draft in kinds
    }
    totals = {draft: [0, 0.0] for draft in clients}
    differ: dict[str, list[str]] = {draft: [] for draft in kinds[1:]}
    asked = prompts(args.calls)
    for name, messages in asked:
        replies = {}
        for draft, client in clients.items():
            text, tokens, seconds = timed(client, messages)
            replies[draft] = text
            totals[draft][0] += tokens
            totals[draft][1] += seconds
            print(f"{name:28} {draft:13} {tokens:4} tokens {tokens / seconds:6.2f} tokens/s")
        off = replies["none"]
        for draft in kinds[1:]:
            on = replies[draft]
            if off == on:
                continue
            differ[draft].append(name)
            at = next((i for i, (a, b) in enumerate(zip(off, on, strict=False)) if a != b), 0)
            at = at or min(len(off), len(on))
            print(f"{name:28} {draft} differs at character {at}:")
            start = max(0, at - 60)
            print(f"  off: {off[start : at + 60]!r}\n  on:  {on[start : at + 60]!r}")
    rate = {d: totals[d][0] / totals[d][1] for d in kinds}
    for draft in kinds[1:]:
        print(
            f"{draft}: generation rate off {rate['none']:.2f} tokens/s, on {rate[draft]:.2f}"
            f" tokens/s, ratio {rate[draft] / rate['none']:.2f};"
            f" identical replies {len(asked) - len(differ[draft])}/{len(asked)}"
        )
    sys.exit(1 if any(differ.values()) else 0)


if __name__ == "__main__":
    main()
