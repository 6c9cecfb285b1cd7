#!/usr/bin/env python3
"""Would a reply that began to copy a file shown in part have fixed the bug, had it not
been stopped? Each coder call of a run.py journal's Codur runs that ended at the
copied-view stop (`agent.copied_view`) is asked again, same messages, temperature and
seed, with no stop sequence and a bigger budget; a row a call: seconds, reply tokens,
why it ended, and whether the reply holds the bug's fixed lines and none of its buggy
ones (the bug's patch, a string check: a reply that passes it may still not apply).

    .venv/bin/python bench/realrepo/replay_copies.py --out DIR [--budget 2048]

The debug logs must hold whole prompts (run.py with `-o log.max_field_chars=100000`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))


def patch_lines(patch: str, sign: str) -> list[str]:
    """The stripped non-empty lines the patch adds (`+`: the bug) or removes (`-`)."""
    heads = ("+++", "---")
    return [
        line[1:].strip()
        for line in patch.splitlines()
        if line.startswith(sign) and not line.startswith(heads) and line[1:].strip()
    ]


def stopped_calls(log: Path) -> list[dict]:
    """The model.request events whose reply was stopped as a copied view."""
    request, found = None, []
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("event") == "model.request":
            request = event
        elif event.get("event") == "agent.copied_view" and request is not None:
            found.append(request)
    return found


def main() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    from codur.config.schema import LLMProfile
    from codur.events import EventBus
    from codur.models.client import ModelClient

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="a run.py output folder")
    parser.add_argument("--budget", type=int, default=2048)
    args = parser.parse_args()
    bugs = {bug["id"]: bug for bug in yaml.safe_load((HERE / "bugs.yaml").read_text())["bugs"]}
    for log in sorted(args.out.glob("runs/*.codur.*/codur_debug.log")):
        bug = bugs[log.parent.name.split(".codur.")[0]]
        fixed, buggy = patch_lines(bug["patch"], "-"), patch_lines(bug["patch"], "+")
        for request in stopped_calls(log):
            messages = [
                SystemMessage(m["content"]) if m["role"] == "system" else HumanMessage(m["content"])
                for m in request["messages"]
            ]
            profile = LLMProfile(
                provider="local", weights="qwen2.5-coder-1.5b", n_ctx=8192,
                temperature=request["temperature"], max_tokens=args.budget,
                seed=request.get("seed") or 1,
            )  # fmt: skip
            start = time.perf_counter()
            reply = ModelClient("local", profile, EventBus()).invoke(messages)
            text = str(reply.content)
            row = {
                "bug": bug["id"],
                "call": request["call"],
                "seconds": round(time.perf_counter() - start, 1),
                "tokens": (reply.usage_metadata or {}).get("output_tokens"),
                "finish": reply.response_metadata.get("finish_reason"),
                "fixed_lines": all(line in text for line in fixed),
                "buggy_lines": any(line in text for line in buggy),
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
