"""When the repair search runs: a short first budget before the first model call, the rest
after a model attempt fails, and never twice on the same code (codur/graph/repairs.py).
In-process runs with a scripted model on real git repositories; the checks and the
search's candidates are real subprocesses."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from helpers import BUGGY, FIXED, WRONG, run_in_process, whole_file

HELLO = "import os\nimport sys\n\nprint('Hello, ' + 'Wrold')\nprint(os.getpid(), file=sys.stderr)\n"
"""A bug no mutation fixes, and a failure that reads differently every run (its pid)."""


def repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository at `root` holding `files`, committed."""
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *command], cwd=root, check=True
        )
    return root


def run(root: Path, replies: list[Any], *overrides: str) -> tuple[Any, list[Any]]:
    result, events, _ = run_in_process(root, replies, overrides=["repair.enabled=true", *overrides])
    return result, events


def kinds(events: list[Any], *names: str) -> list[tuple[str, dict[str, Any]]]:
    """The events of these kinds in order, leaving out the verification agent's own."""
    return [(e.kind, e.data) for e in events if e.kind in names and e.data.get("by") != "verify"]


def test_the_search_gets_only_the_first_budget_before_the_first_model_call(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path / "w", {"main.py": BUGGY, "expected.txt": "10\n"})
    budgets = ["repair.first_budget_s=0.001", "repair.time_budget_s=60"]
    result, events = run(root, [whole_file("main.py", FIXED)], *budgets)
    assert result.status == "verified" and result.model_calls == 1
    order = kinds(events, "repair.start", "repair.end", "model.request")
    assert [k for k, _ in order][:3] == ["repair.start", "repair.end", "model.request"]
    assert order[0][1]["budget_s"] == 0.001 and order[1][1]["reason"] == "budget"
    assert [w["by"] for _, w in kinds(events, "file.write")] == ["coder"]


def test_a_fix_the_search_finds_within_the_first_budget_needs_no_model(tmp_path: Path) -> None:
    root = repo(tmp_path / "w", {"main.py": BUGGY, "expected.txt": "10\n"})
    budgets = ["repair.first_budget_s=60", "repair.time_budget_s=120"]
    result, events = run(root, [], *budgets)
    assert result.status == "verified" and result.model_calls == 0
    assert (root / "main.py").read_text() == FIXED
    (start,) = [d for _, d in kinds(events, "repair.start")]
    assert start["budget_s"] == 60


def test_the_rest_of_the_search_runs_after_a_failed_model_edit(tmp_path: Path) -> None:
    root = repo(tmp_path / "w", {"main.py": BUGGY, "expected.txt": "10\n"})
    budgets = ["repair.first_budget_s=0.001", "repair.time_budget_s=60"]
    result, events = run(root, [whole_file("main.py", WRONG)], *budgets)
    assert result.status == "verified" and result.model_calls == 1
    assert (root / "main.py").read_text() == FIXED
    order = kinds(events, "repair.end", "model.request")
    assert [k for k, _ in order] == ["repair.end", "model.request", "repair.end"]
    assert [d["reason"] for _, d in order if "reason" in d] == ["budget", "repaired"]
    assert [w["by"] for _, w in kinds(events, "file.write")] == ["coder", "repair"]


def test_a_search_cut_short_resumes_where_it_stopped(tmp_path: Path) -> None:
    """The model's reply changes nothing: the same code, so the search goes on with what
    is left of its budget instead of starting again."""
    root = repo(tmp_path / "w", {"main.py": BUGGY, "expected.txt": "10\n"})
    budgets = ["repair.first_budget_s=0.001", "repair.time_budget_s=60"]
    result, events = run(root, [whole_file("main.py", BUGGY, "No change needed.")], *budgets)
    assert result.status == "verified" and (root / "main.py").read_text() == FIXED
    first, rest = [d for _, d in kinds(events, "repair.start")]
    cut = kinds(events, "repair.end")[0][1]
    assert first["budget_s"] == 0.001 and cut["reason"] == "budget"
    # what is left of the 60 s after the first search (its whole duration counts)
    assert abs(rest["budget_s"] - (60 - cut["duration_s"])) < 0.002


def test_the_search_is_not_repeated_on_unchanged_code(tmp_path: Path) -> None:
    """Each failed attempt fails differently (a pid on stderr) but leaves the code as it
    was: the search ran to its end on that code (single edits before the first model
    call, pairs after it), and is not run again."""
    root = repo(tmp_path / "w", {"main.py": HELLO, "expected.txt": "Hello, World\n"})
    replies = [whole_file("main.py", HELLO, f"Attempt {n}: this should do.") for n in range(3)]
    result, events = run(root, replies, "runtime.max_iterations=3")
    assert result.status == "unverified" and result.model_calls == 3
    ends = [d for _, d in kinds(events, "repair.end")]
    assert [e["reason"] for e in ends] == ["pairs deferred", "exhausted"]
    assert ends[1]["tried"] == 0  # its two single edits overlap: no pair to try


MANY = "low = 1\nhigh = 3\nif low < high:\n    print('Hello, ' + 'Wrold')\n"
"""A bug no mutation fixes, in code with several places to mutate (so pairs exist)."""


def test_pairs_wait_until_a_model_attempt_failed(tmp_path: Path) -> None:
    """Before the first model call the search tries single edits only; after the model's
    attempt left the same code, the pairs run (the singles are not tried again), and
    then the code is searched to its end and never again."""
    root = repo(tmp_path / "w", {"main.py": MANY, "expected.txt": "Hello, World\n"})
    replies = [whole_file("main.py", MANY, f"Attempt {n}: this should do.") for n in range(3)]
    result, events = run(root, replies, "runtime.max_iterations=3")
    assert result.status == "unverified" and result.model_calls == 3
    order = kinds(events, "repair.candidate", "repair.end", "model.request")
    first = order.index(next(o for o in order if o[0] == "repair.end"))
    assert order[first][1]["reason"] == "pairs deferred" and order[first + 1][0] == "model.request"
    singles = [d for k, d in order[:first] if k == "repair.candidate"]
    assert singles and all(len(d["operators"]) == 1 for d in singles)
    second = [k for k, _ in order].index("repair.end", first + 1)
    pairs = [d for k, d in order[first + 1 : second] if k == "repair.candidate"]
    assert pairs and all(len(d["operators"]) == 2 for d in pairs)
    assert order[second][1]["reason"] == "exhausted"
    assert [k for k, _ in order[second + 1 :]] == ["model.request", "model.request"]
