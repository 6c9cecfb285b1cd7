#!/usr/bin/env python3
"""Do new attempts of the embedded model sample different text? For a few prompts, the
number of distinct replies over N seeds at the profile's temperature and at its
retry_temperature (llama-cpp-python's default top_k 40 / top_p 0.95 / min_p 0.05), and
whether seed 1 gives the same reply again: from an empty KV cache both times, and with
the prompt already cached (its last token then evaluated alone); prints figures.

.venv/bin/python bench/sampling.py [--seeds N] [--max-tokens N]
"""

from __future__ import annotations

import argparse
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
SHORT_FIX = (
    "Fix the bug and reply with the whole file.\n\nmain.py\n```python\n"
    "def add(a, b):\n    return a - b\n\nprint(add(2, 3))\n```"
)


def cases() -> dict[str, list[BaseMessage]]:
    challenge = ROOT / "challenges" / "grade_boundary"
    request = AgentRequest(
        task=(challenge / "prompt.txt").read_text().strip(),
        files={"main.py": (challenge / "main.py").read_text()},
    )
    return {
        "haiku": [HumanMessage("Write a haiku about rivers.")],
        "short code fix": [HumanMessage(SHORT_FIX)],
        "coder prompt": [
            SystemMessage(PromptBook().render("coder")),
            HumanMessage(
                task_message(request.task, Prompt(files=request.files), "whole_file", PromptBook())
            ),
        ],
    }


def first_difference(texts: list[str]) -> int | None:
    """Character index where the replies first differ (None: all the same)."""
    for i, chars in enumerate(zip(*texts, strict=False)):
        if len(set(chars)) > 1:
            return i
    return None if len({len(t) for t in texts}) == 1 else min(len(t) for t in texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=24)
    args = parser.parse_args()
    profile = LLMProfile(
        provider="local", weights="qwen2.5-coder-1.5b", n_ctx=4096, temperature=0.1
    )
    client = ModelClient("local", profile, EventBus())
    for name, messages in cases().items():
        for label, temperature in [
            ("profile", profile.temperature),
            ("retry", profile.retry_temperature),
        ]:
            texts = [
                str(
                    client.invoke(
                        messages, temperature=temperature, seed=seed, max_tokens=args.max_tokens
                    ).content
                )
                for seed in range(1, args.seeds + 1)
            ]
            again = []
            for empty_cache in (True, False, True):
                if empty_cache:
                    client.model.llama.reset()  # type: ignore[attr-defined]
                reply = client.invoke(
                    messages, temperature=temperature, seed=1, max_tokens=args.max_tokens
                )
                again.append(reply.content)
            print(
                f"{name:14} {label:7} T={temperature}: {len(set(texts))}/{len(texts)} distinct "
                f"over seeds 1-{args.seeds}, first difference at character "
                f"{first_difference(texts)}; seed 1 again: empty cache both times "
                f"{'same' if again[0] == again[2] else 'DIFFERENT'}, prompt cached "
                f"{'same' if again[0] == again[1] else 'different'}"
            )


if __name__ == "__main__":
    main()
