#!/usr/bin/env python3
"""Token counts of the coder's first prompt for every challenge in challenges/: the
embedded model's exact count (ModelClient.count_tokens), the prompt tokens llama.cpp
reports for the same call, and the tokenizer-free estimate (codur.models.base); prints
the errors.

.venv/bin/python bench/local_tokens.py [--no-check]   (--no-check: skip the model calls)
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from codur.agents.fit import Prompt
from codur.agents.prompting import task_message
from codur.agents.registry import AgentRequest
from codur.challenges.spec import discover
from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.base import estimate_tokens
from codur.models.client import ModelClient
from codur.promptbook import PromptBook

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-check", action="store_true")
    check = not parser.parse_args().no_check
    profile = LLMProfile(provider="local", weights="qwen2.5-coder-1.5b", n_ctx=8192)
    client = ModelClient("local", profile, EventBus())
    exact_errors, estimate_errors = [], []
    for challenge in discover([ROOT / "challenges"]):
        files = {
            p.name: p.read_text(encoding="utf-8")
            for p in sorted(challenge.folder.glob("*.py"))
            if p.name in challenge.prompt
        }
        request = AgentRequest(task=challenge.prompt, files=files)
        messages = [
            SystemMessage(PromptBook().render("coder")),
            HumanMessage(
                task_message(request.task, Prompt(files=request.files), "whole_file", PromptBook())
            ),
        ]
        counted = client.count_tokens(messages)
        estimate = estimate_tokens(messages)
        reported = counted
        if check:
            usage = client.invoke(messages, max_tokens=1).usage_metadata or {}
            reported = int(usage.get("input_tokens", 0))
            exact_errors.append(counted - reported)
        estimate_errors.append((estimate - reported) / reported)
        print(
            f"{challenge.name:28} reported {reported:5}  count_tokens {counted:5}  "
            f"estimate {estimate:5} ({estimate_errors[-1]:+.0%})"
        )
    if exact_errors:
        print(f"count_tokens - reported: max |error| {max(map(abs, exact_errors))} tokens")
    print(
        f"estimate vs reported: mean {statistics.mean(estimate_errors):+.1%}, "
        f"range {min(estimate_errors):+.0%} .. {max(estimate_errors):+.0%}"
    )


if __name__ == "__main__":
    main()
