"""bench/latency.py on real runs: `codur challenges run` (real `python -m codur` runs with a
scripted model; no real model is loaded) on two challenges, one the model fixes on its
second reply and one the repair search fixes alone; the figures are checked against the
runs' debug logs, and --analyze re-reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import ROOT, whole_file

LATENCY = ROOT / "bench" / "latency.py"
BUGGY_SUM = (
    "def total(xs):\n    s = 0\n    for i in range(len(xs) - 1):\n        s += xs[i]\n"
    "    return s\n\nprint(total([1, 2, 3, 4]))\n"
)
"""An off-by-one the repair search fixes with no model call."""


def challenge(root: Path, name: str, main: str, expected: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(main)
    (folder / "expected.txt").write_text(expected)
    (folder / "prompt.txt").write_text("fix @main.py\n")
    spec = "entry: [python, main.py]\nexpected: expected.txt\ntimeout_s: 120\ntags: [test]\n"
    (folder / "challenge.yaml").write_text(spec)


def latency(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LATENCY), *args], capture_output=True, text=True, timeout=900
    )


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def spans(found: list[dict[str, Any]], opening: str, closing: str, **match: str) -> float:
    """Seconds from each `opening` event to the next `closing` one, both with `match`."""
    total, start = 0.0, None
    for e in found:
        if any(e.get(k) != v for k, v in match.items()):
            continue
        if e["event"] == opening:
            start = e["ts"]
        elif e["event"] == closing and start is not None:
            total, start = total + e["ts"] - start, None
    return total


@pytest.mark.slow
def test_the_figures_follow_from_the_debug_logs(tmp_path: Path) -> None:
    root = tmp_path / "challenges"
    # a string the repair search cannot make: the model's first reply is wrong, its second right
    challenge(root, "by_model", 'print("nine")\n', "ten\n")
    challenge(root, "by_repair", BUGGY_SUM, "10\n")
    script = tmp_path / "script.yaml"
    replies = [whole_file("main.py", 'print("eight")\n'), whole_file("main.py", 'print("ten")\n')]
    script.write_text(yaml.safe_dump(replies))
    out = tmp_path / "out"
    profile = ["-o", "llm.profiles.s.provider=scripted", "-o", f"llm.profiles.s.script={script}"]
    args = ["--sets", "challenges", "--challenges", str(root), "--out", str(out)]
    flags = [*profile, "--profile", "s", "-o", "sampling.candidates=0", "--timeout", "300"]
    flags += ["-o", "repair.first_budget_s=60"]  # by_repair is fixed first, on a busy machine

    done = latency(*args, *flags)

    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((out / "latency.json").read_text())
    rates = report["rates"]
    assert rates["prompt"] > 0 and rates["generation"] > 0  # timed on the scripted model
    assert f"prompt {rates['prompt']} tokens/s" in done.stdout
    runs = {r["name"]: r for r in report["sets"]["challenges"]["runs"]}
    assert set(runs) == {"by_model s1", "by_repair s1"}
    judged = {json.loads(line)["name"]: json.loads(line) for line in
              (out / "challenges" / "runs.jsonl").read_text().splitlines()}  # fmt: skip
    for name, run in runs.items():
        record = judged[name.split()[0]]
        assert run["solved"] is record["passed"] is True
        assert run["wall_s"] == record["wall_s"]
        assert abs(sum(run["phases"].values()) - run["wall_s"]) < 0.01
        assert min(run["phases"].values()) >= 0
        log = events(Path(record["log"]))
        repair = spans(log, "node.start", "node.end", node="repair")
        checks = spans(log, "tool.call", "tool.result", by="verify")
        called = spans(log, "model.request", "model.response")
        assert abs(run["phases"]["repair"] - repair) < 0.005
        assert abs(run["phases"]["checks"] - checks) < 0.005
        # the scripted model reports no timings: its calls are all "the rest of the call"
        assert run["phases"]["prompt"] == run["phases"]["generate"] == 0
        assert abs(run["phases"]["model_other"] - called) < 0.005
        responses = [e for e in log if e["event"] == "model.response"]
        assert [c["call"] for c in run["calls"]] == [e["call"] for e in responses]
        floor = sum(
            (e["prompt_tokens"] - e["cached_tokens"]) / rates["prompt"]
            + e["completion_tokens"] / rates["generation"]
            for e in responses
        )
        assert abs(run["floor_s"] - floor) < 0.005
        start = next(e["ts"] for e in log if e["event"] == "run.start")
        asked = [e["ts"] - start for e in log if e["event"] == "model.request"]
        assert run["first_call_s"] == (round(asked[0], 3) if asked else None)

    model, repair = runs["by_model s1"], runs["by_repair s1"]
    # the first reply was written, failed its check and was replaced: only the second is kept
    assert [(c["call"], c["kept"]) for c in model["calls"]] == [(1, False), (2, True)]
    second = model["calls"][1]
    fresh = second["prompt_tokens"] - second["cached_tokens"]
    useful = fresh / rates["prompt"] + second["completion_tokens"] / rates["generation"]
    assert model["useful_floor_s"] == round(useful, 3)
    assert model["useful_floor_s"] < model["floor_s"]
    assert repair["calls"] == [] and repair["floor_s"] == 0
    summary = report["sets"]["challenges"]["summary"]
    assert summary["solved"] == 2 and summary["solved_with_model"] == 1
    assert summary["solved_without_model"] == {"by_repair s1": repair["wall_s"]}
    assert summary["calls_per_solved"] == 1.0
    spent = sum(c["completion_tokens"] for r in runs.values() for c in r["calls"])
    assert summary["completion_per_solved"] == round(spent / 2, 1) > 0
    assert f"completion tokens per solved task {round(spent / 2, 1)}" in done.stdout
    assert summary["wall_to_useful_floor"]["median"] == round(
        model["wall_s"] / model["useful_floor_s"], 2
    )
    assert "solved with no model call: by_repair s1" in done.stdout
    # time to the first model call: over the runs that called one (the repair's did not)
    assert repair["first_call_s"] is None and model["first_call_s"] > 0
    assert summary["first_call_s"]["median"] == model["first_call_s"]
    assert f"first model call after {model['first_call_s']} s median" in done.stdout

    again = latency("--analyze", str(out))

    assert again.returncode == 0, again.stderr
    table = done.stdout[done.stdout.index("rates on this machine") :]
    assert again.stdout == table
    assert json.loads((out / "latency.json").read_text()) == report


def test_analyze_needs_an_output_of_the_script(tmp_path: Path) -> None:
    done = latency("--analyze", str(tmp_path))
    assert done.returncode == 2
    assert f"latency: {tmp_path}: no settings.json: not an output of this script" in done.stdout
