"""Keeping the model's right answers: function-only replies are merged, cut replies are
never applied, repeated replies are dropped (then stuck), every retry carries the
failure, and sampled candidates are tried in scratch copies (whole-graph runs, a
scripted model, real files and processes)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, WRONG, whole_file
from test_graph import PLAN, Run

from codur.litter import portable

DOC = '''"""Digit sums.

A long module docstring the model does not repeat.
"""


def digit_sum(n):
    # add the last digit, then the rest
    return n % 10 + digit_sum(n // 10)


for number in [7, 38, 493193]:
    print(number, digit_sum(number))
'''
DOC_FIXED = DOC.replace(
    "    # add the last", "    if n < 10:\n        return n\n    # add the last"
)
FUNCTION_ONLY = (
    "def digit_sum(n):\n    if n < 10:\n        return n\n"
    "    # add the last digit, then the rest\n    return n % 10 + digit_sum(n // 10)\n"
)
DOC_EXPECTED = "7 7\n38 11\n493193 29\n"
NO_SAMPLING = ["sampling.candidates=0"]


def doc_run(tmp_path: Path, replies: list, overrides: list[str] = NO_SAMPLING) -> Run:
    files = {"main.py": DOC, "expected.txt": DOC_EXPECTED}
    return Run(tmp_path, [PLAN, *replies], files=files, overrides=overrides)


def test_a_function_only_reply_is_merged_and_verified(tmp_path: Path) -> None:
    run = doc_run(tmp_path, [whole_file("main.py", FUNCTION_ONLY)])
    assert run.result.status == "verified" and run.result.model_calls == 2
    assert (run.root / "main.py").read_text() == DOC_FIXED


def test_a_cut_reply_is_not_applied_and_the_retry_asks_for_functions(tmp_path: Path) -> None:
    cut = {"content": whole_file("main.py", DOC_FIXED)[:120], "finish_reason": "length"}
    run = doc_run(tmp_path, [cut, whole_file("main.py", FUNCTION_ONLY)])
    assert run.result.status == "verified" and run.result.iterations == 2
    assert [w["by"] for w in run.kinds("file.write")] == ["coder"]  # only the second reply
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "ONLY the functions" in retry
    assert "cut off at the length limit" in retry
    assert "Actual output:" in retry  # the failure is in every prompt


def test_a_repeated_reply_is_dropped_and_repeats_end_the_run_as_stuck(tmp_path: Path) -> None:
    wrong = whole_file("main.py", WRONG)
    run = Run(tmp_path, [PLAN, wrong, wrong, wrong], overrides=NO_SAMPLING)
    assert run.result.status == "stuck" and "repeated earlier replies 2 times" in run.result.message
    assert [w["by"] for w in run.kinds("file.write")] == ["coder"]  # the copies were dropped
    assert run.result.model_calls == 4


def test_the_same_rejected_reply_twice_is_stuck(tmp_path: Path) -> None:
    nothing = whole_file("main.py", "def unrelated():\n    return 1\n")
    run = Run(tmp_path, [PLAN, nothing, nothing], overrides=NO_SAMPLING)
    assert (
        run.result.status == "stuck" and "repeated a reply that was rejected" in run.result.message
    )
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "rejected: the block for main.py defines unrelated()" in retry
    assert "Expected output:\n```\n10\n```" in retry and "Actual output:\n```\n6\n```" in retry


def test_sampled_candidates_are_tried_in_scratch_and_the_smallest_passing_is_kept(
    tmp_path: Path,
) -> None:
    bigger = FIXED.replace("    s = 0\n", "    s = 0\n    # count every item\n")
    other = WRONG.replace("- 2)", "- 3)")
    replies = [
        whole_file("main.py", WRONG),  # the first (greedy) attempt fails
        whole_file("main.py", other),  # candidate 1 fails in its scratch copy
        whole_file("main.py", bigger),  # candidate 2 passes, with more changed lines
        whole_file("main.py", FIXED),  # candidate 3 passes, smaller
    ]
    run = Run(tmp_path, [PLAN, *replies], overrides=["sampling.candidates=3"])
    assert run.result.status == "verified"
    assert (run.root / "main.py").read_text() == FIXED
    statuses = [c["status"] for c in run.kinds("sample.candidate")]
    assert statuses[0] == "failed" and statuses.count("passed") >= 1
    graph_nodes = [n for n in run.nodes if n not in ("agent", "tools")]  # candidates' loops
    assert graph_nodes[-3:] == ["sample", "verify", "review"]
    assert [w["by"] for w in run.kinds("file.write")] == ["coder", "coder"]


def test_a_sampling_round_where_nothing_new_fails_is_stuck(tmp_path: Path) -> None:
    wrong = whole_file("main.py", WRONG)
    same_failure = whole_file(
        "main.py", WRONG.replace("range(len(xs) - 2)", "range(0, len(xs) - 2)")
    )
    run = Run(tmp_path, [PLAN, wrong, same_failure, wrong], overrides=["sampling.candidates=2"])
    assert run.result.status == "stuck"
    assert "every sampled candidate failed in a way seen before" in run.result.message
    assert (run.root / "main.py").read_text() == WRONG  # no failing candidate was written
    assert [c["status"] for c in run.kinds("sample.candidate")] == ["failed", "duplicate"]


def test_a_sampling_round_where_no_reply_applies_is_stuck(tmp_path: Path) -> None:
    """The first reply was cut, so no failure of the model's was ever checked: a round
    of sampled replies none of which could be applied ends the run (it looped to the
    iteration limit, 39 calls on a real package)."""
    cut = {"content": whole_file("main.py", FIXED)[:60], "finish_reason": "length"}
    prose = "The function looks right to me; I would change nothing."
    run = Run(tmp_path, [PLAN, cut, prose, prose + " Really."], overrides=["sampling.candidates=2"])
    assert run.result.status == "stuck"
    assert "no sampled reply could be applied and checked" in run.result.message
    assert run.result.model_calls == 4
    candidates = run.kinds("sample.candidate")
    assert [c["status"] for c in candidates] == ["rejected", "rejected"]
    assert candidates[0]["why"] == "no edit: nothing in it read as a change to a file"
    assert (run.root / "main.py").read_text() == BUGGY


def test_a_sampling_round_the_call_budget_stops_ends_at_the_limit(tmp_path: Path) -> None:
    cut = {"content": whole_file("main.py", FIXED)[:60], "finish_reason": "length"}
    overrides = ["sampling.candidates=2", "runtime.max_llm_calls=3"]
    run = Run(tmp_path, [PLAN, cut, cut], overrides=overrides)
    assert run.result.status == "limit" and run.result.model_calls == 3
    assert "LLM call limit reached (3 calls)" in run.result.message


def test_unchanged_file_text_is_not_an_edit(tmp_path: Path) -> None:
    run = Run(
        tmp_path,
        [PLAN, whole_file("main.py", BUGGY), whole_file("main.py", FIXED)],
        overrides=NO_SAMPLING,
    )
    assert run.result.status == "verified"
    second = run.kinds("model.request")[2]
    assert "the reply changed no file" in second["messages"][-1]["content"]


@pytest.mark.slow
def test_every_second_candidate_starts_from_the_files_as_the_run_found_them(
    tmp_path: Path,
) -> None:
    """A wrong first attempt anchors every revision of it: candidate 2 is drawn from the
    file as it was (and how the check failed on it), and its function-only reply is
    merged into that file, not into the wrong attempt."""
    still_wrong = WRONG.replace("- 2)", "- 3)")
    function_only = FIXED.split("\n\nprint")[0] + "\n"
    replies = [
        whole_file("main.py", WRONG),  # the first attempt: wrong (prints 3)
        whole_file("main.py", still_wrong),  # candidate 1 revises it: still wrong
        whole_file("main.py", function_only),  # candidate 2, fresh: the fix
    ]
    run = Run(tmp_path, [PLAN, *replies], overrides=["sampling.candidates=2"])
    assert run.result.status == "verified", run.result.message
    assert (run.root / "main.py").read_text() == FIXED
    sampled = [c for c in run.kinds("sample.candidate")]
    assert [(c["fresh"], c["status"]) for c in sampled] == [(False, "failed"), (True, "passed")]
    revise, fresh = (r["messages"][-1]["content"] for r in run.kinds("model.request")[2:4])
    assert "range(len(xs) - 2)" in revise and "range(len(xs) - 1)" not in revise
    assert "range(len(xs) - 1)" in fresh and "range(len(xs) - 2)" not in fresh
    assert "Actual output:\n```\n6\n```" in fresh  # the first check, on the file as found
    assert "Actual output:\n```\n3\n```" in revise

    (tmp_path / "off").mkdir()
    off = Run(
        tmp_path / "off",
        [PLAN, *replies],
        overrides=["sampling.candidates=2", "sampling.fresh_starts=false"],
    )
    assert [c["fresh"] for c in off.kinds("sample.candidate")] == [False, False]


def test_the_prompt_does_not_say_where_the_folder_is(tmp_path: Path) -> None:
    """A traceback's paths are relative to the workspace: the same prompt (and, sampled
    greedily, the same reply) wherever the folder is."""
    crash = "def inverse(n):\n    return 1 // n\n\n\nprint(inverse(0))\n"
    fixed = "def inverse(n):\n    return 1 // n if n else 1\n\n\nprint(inverse(0))\n"
    files = {"main.py": crash, "expected.txt": "1\n"}
    run = Run(tmp_path, [PLAN, whole_file("main.py", fixed)], files=files, overrides=NO_SAMPLING)
    assert run.result.status == "verified"
    prompt = run.kinds("model.request")[1]["messages"][-1]["content"]
    assert 'File "main.py", line 5' in prompt and "ZeroDivisionError" in prompt
    assert str(tmp_path) not in prompt


def test_portable_paths_start_where_a_path_starts_and_take_linear_time() -> None:
    """The workspace is taken off paths that start with it (`/usr/src/app` is not in
    `/src`); Codur's temporary folders go by kind under the temporary folder or by `../`;
    a long line of slashes comes back as it was (the pattern before this was quadratic in
    it: 16 000 slashes took 6.3 s, so a program's 200 KB line would hold a run for
    minutes)."""
    tmp = tempfile.gettempdir()
    text = (
        'File "/usr/src/app/x.py", line 1\nFile "/src/pkg/x.py", line 2\n'
        f"{tmp}/codur-12-scratch-a1b2/main.py ../codur-12-derived-x_9/test_codur_doctest.py"
    )
    assert portable(text, Path("/src")) == (
        'File "/usr/src/app/x.py", line 1\nFile "pkg/x.py", line 2\n'
        "codur-scratch/main.py codur-derived/test_codur_doctest.py"
    )
    assert portable("a/b /c", Path("/")) == "a/b /c"
    long_line = "/" * 20_000 + "a/" * 10_000
    assert portable(long_line, Path("/src")) == long_line
