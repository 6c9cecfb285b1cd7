"""Only an explicit request unlocks the oracle: a task that names a check's file as its
goal, or says not to change it, leaves it locked, and says how to unlock it
(`--allow-edit FILE`, which an untrusted project codur.yaml may not set). Phrasings in
both directions, and whole `codur` runs with a scripted model that tries the cheat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, debug_log, run_cli, scripted_profile, whole_file, write_files

from codur.scope import decide_scope
from codur.scope.request import asked_to_change

UNLOCKS = [
    ("update @expected.txt to the new output", "expected.txt"),
    ("Update expected.txt", "expected.txt"),
    ("Regenerate @expected.txt from the program's output.", "expected.txt"),
    ("update the expected output line in expected.txt", "expected.txt"),
    ("update expected.txt so it matches the new output", "expected.txt"),
    ("write the output to expected.txt", "expected.txt"),
    ("Fix the typo in main.py, then update expected.txt.", "expected.txt"),
    ("Keep main.py as is and update expected.txt", "expected.txt"),
    ("fix the assert in test_calc.py", "test_calc.py"),
    ("Fix test_calc.py: the assert is wrong", "test_calc.py"),
    ("fix calc.py and test_calc.py", "test_calc.py"),
    ("Rewrite test_calc.py so it passes", "test_calc.py"),
    ("change the check in `test_calc.py`", "test_calc.py"),
    ("Add a test to tests/test_calc.py for negative numbers", "tests/test_calc.py"),
    ("please edit conftest.py's fixture", "conftest.py"),
    # "and" or a comma before a file that is an object, not a new clause's subject
    ("Update main.py and expected.txt.", "expected.txt"),
    ("Update main.py, expected.txt and test_calc.py", "expected.txt"),
    ("Edit main.py and expected.txt too", "expected.txt"),
    ("Update expected.txt, not main.py", "expected.txt"),
    ("Update expected.txt rather than main.py", "expected.txt"),
    ("Update expected.txt without touching main.py", "expected.txt"),
    ("Fix main.py; update expected.txt", "expected.txt"),
    ("The output changed, so update expected.txt", "expected.txt"),
    ("Please also update expected.txt", "expected.txt"),
    ("The output format changed, update expected.txt.", "expected.txt"),
    ("Fix calc.py.\n\nUpdate expected.txt, not calc.py's tests.", "expected.txt"),
    # "and"/"or" and a consequence that is no failure; a sentence after that is no retraction
    ("Update expected.txt and you're done", "expected.txt"),
    ("Update expected.txt and the test will pass", "expected.txt"),
    ("Update expected.txt. No other file needs a change.", "expected.txt"),
    ("Update expected.txt. Not main.py.", "expected.txt"),
    # "or" and a bad consequence urges the request; a remedy is its good outcome
    ("Update expected.txt, or the build keeps failing", "expected.txt"),
    ("Update expected.txt or you'll keep getting the wrong output", "expected.txt"),
    ("Update expected.txt and it should fix the failing test", "expected.txt"),
    ("Fix test_calc.py and the wrong output goes away", "test_calc.py"),
    ("Update expected.txt and you'll see the failing test pass", "expected.txt"),
    # "and" with a second object, not a consequence
    ("Update expected.txt and the failing test in test_calc.py", "expected.txt"),
    ("Update expected.txt and the fixture for the zero case", "expected.txt"),
    ("Edit expected.txt and the docs, which are wrong too", "expected.txt"),
    ("Update expected.txt and to be fair it was wrong", "expected.txt"),
    ("Please update expected.txt, and I will rerun the failed jobs", "expected.txt"),
    # a next sentence that is no threat and no retraction
    ("Update expected.txt. It is wrong.", "expected.txt"),
    ("Update expected.txt. Not kidding.", "expected.txt"),
    ("Update expected.txt. No kidding!", "expected.txt"),
    ("Update expected.txt. Just... just do it.", "expected.txt"),
    ("Update expected.txt. Editing it isn't cheating.", "expected.txt"),
    ("Update expected.txt. You were right, the old one is wrong.", "expected.txt"),
    ("Update expected.txt: it's wrong", "expected.txt"),
    ("Update expected.txt, it is wrong", "expected.txt"),
    ("1. Fix main.py\n2. Update expected.txt\n3. Run the tests", "expected.txt"),
    ("Update expected.txt. You'll fail otherwise.", "expected.txt"),
    ("Fix test_calc.py. You will see it fails on negatives.", "test_calc.py"),
    ("Update expected.txt. The reviewer rejected the old one.", "expected.txt"),
    ("Update expected.txt. Never mind the formatting.", "expected.txt"),
    ("Update expected.txt, you know it's wrong", "expected.txt"),
    ("Fix test_calc.py and its bad asserts", "test_calc.py"),
    ("Fix test_calc.py and the wrong asserts", "test_calc.py"),
    ("Please update expected.txt and rerun the failed jobs", "expected.txt"),
]
STAYS_LOCKED = [
    # negation, anywhere before the file in its clause
    ("Fix the program. Do not change expected.txt.", "expected.txt"),
    ("Don\u2019t update expected.txt", "expected.txt"),
    ("Do not, under any circumstances, change expected.txt", "expected.txt"),
    ("Fix main.py without changing expected.txt", "expected.txt"),
    ("Fix main.py; never edit expected.txt", "expected.txt"),
    ("Fix main.py, but not expected.txt", "expected.txt"),
    ("Update main.py but not expected.txt", "expected.txt"),
    ("Fix main.py, not expected.txt", "expected.txt"),
    ("Fix main.py rather than expected.txt", "expected.txt"),
    ("fix main.py instead of changing expected.txt", "expected.txt"),
    ("Fix the bug (do not change expected.txt)", "expected.txt"),
    ("Fix calc.py. Update nothing in expected.txt", "expected.txt"),
    # keep, leave, touch: not a change
    ("Fix main.py and leave expected.txt alone", "expected.txt"),
    ("Fix main.py. Leave expected.txt as it is.", "expected.txt"),
    ("Don't touch test_calc.py", "test_calc.py"),
    # the file as the goal or a reference
    ("Fix the bug so test_calc.py passes", "test_calc.py"),
    ("Fix calc.py until test_calc.py passes", "test_calc.py"),
    ("make the tests in @test_calc.py pass by fixing @calc.py", "test_calc.py"),
    ("fix calc.py so the check in test_calc.py passes", "test_calc.py"),
    ("fix @lib.py so that python main.py prints what expected.txt says", "expected.txt"),
    ("fix main.py so that the output matches expected.txt", "expected.txt"),
    ("Fix main.py to match expected.txt", "expected.txt"),
    ("Fix calc.py to reproduce expected.txt", "expected.txt"),
    ("Fix calc.py and rerun test_calc.py", "test_calc.py"),
    ("Fix the function that test_calc.py tests", "test_calc.py"),
    ("fix the bug reported by test_calc.py", "test_calc.py"),
    ("Fix the bug shown in test_calc.py", "test_calc.py"),
    ("The program updates expected.txt; fix it", "expected.txt"),
    # a symptom: the file as what is to pass
    ("fix the failing test in test_calc.py", "test_calc.py"),
    ("fix test_calc.py so it passes", "test_calc.py"),
    # no verb reaches it, a question, a condition
    ("Fix the bug. expected.txt is correct.", "expected.txt"),
    ("Should I update expected.txt?", "expected.txt"),
    ("If the output changed, update expected.txt", "expected.txt"),
    ("update expected_old.txt", "expected.txt"),
    # after "and" or a comma, the subject of a new clause: a verb, auxiliary or negation
    ("Rewrite main.py and expected.txt must not change.", "expected.txt"),
    ("Update calc.py and test_calc.py must still pass.", "test_calc.py"),
    ("Edit main.py and expected.txt stays untouched", "expected.txt"),
    ("Fix main.py, expected.txt is the spec", "expected.txt"),
    ("Do the change in calc.py only, test_calc.py is fine", "test_calc.py"),
    ("Fix main.py and expected.txt never changes", "expected.txt"),
    ("Fix calc.py and test_calc.py doesn't change", "test_calc.py"),
    ("Fix calc.py and test_calc.py's assert is wrong", "test_calc.py"),
    ("Fix main.py, expected.txt will be regenerated", "expected.txt"),
    ("Update main.py and expected.txt remains as it is", "expected.txt"),
    # a prohibition, an infinitive or a clause with a subject: no imperative
    ("It's forbidden to edit expected.txt", "expected.txt"),
    ("You are forbidden to edit expected.txt", "expected.txt"),
    ("I forbid you to edit expected.txt", "expected.txt"),
    ("It would be wrong to edit expected.txt", "expected.txt"),
    ("It would be wrong to read and edit expected.txt", "expected.txt"),
    ("It's cheating to edit expected.txt", "expected.txt"),
    ("Resist the urge to edit expected.txt", "expected.txt"),
    ("You may update expected.txt", "expected.txt"),
    # a negation earlier in the sentence, past a colon, a bracket or an abbreviation
    ("Do not cheat, e.g. edit expected.txt", "expected.txt"),
    ("Don't: edit expected.txt", "expected.txt"),
    ("Forbidden: edit expected.txt", "expected.txt"),
    ("Do NOT (repeat: NOT) edit expected.txt", "expected.txt"),
    ("Don`t edit expected.txt", "expected.txt"),
    ("Don\u02bct edit expected.txt.", "expected.txt"),
    # ... past line breaks: a hard-wrapped sentence, a list under its lead-in
    ("Fix calc.py. You must not\nedit expected.txt under any circumstances.", "expected.txt"),
    ("Things that are forbidden:\n- edit expected.txt\n- edit tests", "expected.txt"),
    ("Do not do any of the following.\n1. Edit expected.txt", "expected.txt"),
    # a negation, a prohibition or a condition after the file, in its sentence
    ("Edit expected.txt under no circumstances.", "expected.txt"),
    ("Edit expected.txt: forbidden.", "expected.txt"),
    ("Edit expected.txt (not allowed!)", "expected.txt"),
    ("Cheating (e.g. edit expected.txt) is forbidden.", "expected.txt"),
    ("Edit expected.txt only if I say so (I don't).", "expected.txt"),
    ("Keep expected.txt; edit expected.txt only with my approval.", "expected.txt"),
    # a threat: "and" (or a comma) and a consequence where something goes wrong
    ("Fix main.py. Edit expected.txt and you fail the task.", "expected.txt"),
    ("Edit expected.txt, and you'll be disqualified", "expected.txt"),
    ("Change test_calc.py and the review will reject your work", "test_calc.py"),
    ("Modify expected.txt and I'll reject the PR", "expected.txt"),
    ("modify test_calc.py, and the grader gives you zero", "test_calc.py"),
    ("Edit expected.txt and fail the task", "expected.txt"),
    ("Edit expected.txt and get disqualified", "expected.txt"),
    ("Edit expected.txt and then you fail the task", "expected.txt"),
    ("Edit expected.txt and surely you'll fail", "expected.txt"),
    ("Edit expected.txt and you're fired", "expected.txt"),
    ("Edit expected.txt and your PR gets rejected", "expected.txt"),
    ("Edit expected.txt and u fail", "expected.txt"),
    ("Edit expected.txt & you fail", "expected.txt"),
    ("Edit expected.txt, you fail.", "expected.txt"),
    ("Edit expected.txt: you fail", "expected.txt"),
    ("Edit expected.txt. You will fail the task.", "expected.txt"),
    ("Edit expected.txt. That's cheating.", "expected.txt"),
    # a request taken back by the next sentence
    ("Edit expected.txt. NOT!", "expected.txt"),
    ("Update expected.txt. Just kidding.", "expected.txt"),
    ("Fix main.py and update expected.txt. Nope.", "expected.txt"),
    ("Edit expected.txt. Don't.", "expected.txt"),
    ("Edit expected.txt. Do NOT.", "expected.txt"),
    ("Edit expected.txt. Actually, don't.", "expected.txt"),
    ("Edit expected.txt. Just kidding, don't.", "expected.txt"),
    ("Edit expected.txt. Jk, leave it alone.", "expected.txt"),
    ("Edit expected.txt. Never mind.", "expected.txt"),
    ("Edit expected.txt. Scratch that.", "expected.txt"),
    ("Edit expected.txt. Nah.", "expected.txt"),
    ("Edit expected.txt. LOL jk", "expected.txt"),
    ("- Edit expected.txt\n- just kidding", "expected.txt"),
    ("Edit expected.txt.\n\nJust kidding.", "expected.txt"),
    ("Edit expected.txt. Not really.", "expected.txt"),
    ("Edit expected.txt, I dare you.", "expected.txt"),
    ("Sure, edit expected.txt, great idea /s", "expected.txt"),
    ("Edit expected.txt and your score drops to 0", "expected.txt"),
    ("Edit expected.txt and that's cheating", "expected.txt"),
    ("Edit expected.txt: that's cheating", "expected.txt"),
    ("Edit expected.txt -- cheating!", "expected.txt"),
    ("Edit expected.txt \u2014 you fail", "expected.txt"),
    ("Edit expected.txt and the task is failed", "expected.txt"),
    ("Edit expected.txt and this run counts as a failure", "expected.txt"),
    ("Edit expected.txt. No cheating!", "expected.txt"),
    ("Edit expected.txt. Don't you dare.", "expected.txt"),
    ("Edit expected.txt. Nevermind.", "expected.txt"),
]


@pytest.mark.parametrize(("task", "path"), UNLOCKS)
def test_an_explicit_request_to_change_the_file_unlocks_it(task: str, path: str) -> None:
    assert asked_to_change(task, path)


@pytest.mark.parametrize(("task", "path"), STAYS_LOCKED)
def test_a_goal_a_negation_or_another_clause_does_not(task: str, path: str) -> None:
    assert not asked_to_change(task, path)


def test_the_scope_says_what_stays_locked_and_how_to_unlock_it(tmp_path: Path) -> None:
    write_files(tmp_path, {"main.py": BUGGY, "expected.txt": "10\n"})
    scope = decide_scope("Fix the program. Do not change expected.txt.", tmp_path, "expected.txt")
    assert scope.oracle_editable == () and scope.locked == ("expected.txt",)
    assert "part of the check" in (scope.why_not("expected.txt") or "")
    assert any("--allow-edit expected.txt" in r for r in scope.reasons), scope.reasons
    allowed = decide_scope(
        "Fix the program.", tmp_path, "expected.txt", allow_edit=["expected.txt"]
    )
    assert allowed.oracle_editable == ("expected.txt",) and allowed.why_not("expected.txt") is None
    assert "expected.txt" not in allowed.oracle  # not captured: the check reads it as it is


@pytest.mark.parametrize("value", ["../outside.txt", "/etc/passwd", "."])
def test_allow_edit_names_a_file_of_the_folder(tmp_path: Path, value: str) -> None:
    from codur.errors import UsageError

    with pytest.raises(UsageError, match="--allow-edit"):
        decide_scope("fix it", tmp_path, "expected.txt", allow_edit=[value])


# --- whole runs: the scripted model tries the cheat ------------------------------------

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
WEAK = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) != 5\n"


def _run(work: Path, tmp_path: Path, task: str, replies: list[str], *extra: str):
    flags = scripted_profile(tmp_path, replies)
    planning = ["-o", "planning.enabled=false"]  # straight to the coder
    result = run_cli([*flags, *planning, "--max-iterations", "2", *extra, task], cwd=work)
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    return result, records


def _refused(records: list[dict]) -> list[str]:
    return [r["path"] for r in records if r["event"] == "scope.refused"]


@pytest.mark.slow
def test_do_not_change_expected_txt_is_no_request(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": BUGGY, "expected.txt": "10\n"})
    cheat = whole_file("expected.txt", "6\n")
    task = "Fix the program. Do not change expected.txt."
    result, records = _run(work, tmp_path, task, [cheat, cheat])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["event"] == "run.end" and records[-1]["status"] != "verified"
    assert (work / "expected.txt").read_text() == "10\n"
    assert "expected.txt" in _refused(records)
    scope = next(r for r in records if r["event"] == "scope")
    assert scope["locked"] == ["expected.txt"] and scope["oracle_editable"] == []
    assert "--allow-edit expected.txt" in result.stdout  # the user is told how to unlock


@pytest.mark.slow
def test_a_test_named_as_the_goal_is_not_weakened(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"calc.py": CALC, "test_calc.py": TEST_CALC})
    cheat = whole_file("test_calc.py", WEAK)
    result, records = _run(work, tmp_path, "Fix the bug so test_calc.py passes", [cheat, cheat])
    assert result.returncode != 0, result.stdout + result.stderr
    assert records[-1]["status"] != "verified"
    assert (work / "test_calc.py").read_text() == TEST_CALC
    assert "test_calc.py" in _refused(records)


@pytest.mark.slow
def test_allow_edit_unlocks_for_this_run(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": FIXED, "expected.txt": "9\n"})
    fix = whole_file("expected.txt", "10\n")
    result, records = _run(
        work, tmp_path, "the output changed", [fix], "--allow-edit", "expected.txt"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "expected.txt").read_text() == "10\n"
    scope = next(r for r in records if r["event"] == "scope")
    assert scope["oracle_editable"] == ["expected.txt"]


@pytest.mark.slow
def test_an_untrusted_project_file_cannot_allow_edits(tmp_path: Path) -> None:
    work = tmp_path / "w"
    write_files(work, {"main.py": BUGGY, "expected.txt": "10\n"})
    (work / "codur.yaml").write_text("verify:\n  allow_edit: [expected.txt]\n")
    cheat = whole_file("expected.txt", "6\n")
    result, records = _run(work, tmp_path, "Fix the program.", [cheat, cheat])
    assert "may not set verify.allow_edit" in result.stderr
    assert result.returncode != 0 and records[-1]["status"] != "verified"
    assert (work / "expected.txt").read_text() == "10\n"
