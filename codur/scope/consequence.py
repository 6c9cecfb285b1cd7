"""What follows a request can take it back (codur.scope.request): a threat ("edit X and you
fail the task", "edit X. That's cheating.") or a retraction ("edit X. NOT!", "Just
kidding."). The reading leans to the lock, as the request's does: a request read as a
threat costs the user one `--allow-edit`, a threat read as a request costs a verdict.

`or` and a bad consequence urges the request ("update X, or the build keeps failing":
if you do not, it fails), so only `and` (or a comma right after the file) opens a threat.
"""

from __future__ import annotations

import re

from codur.scope.words import DETERMINERS, NEGATIONS, SUBJECT_VERBS


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


PRONOUNS = _set("i you u we they he she it someone somebody anyone everyone everybody one")
"""Subjects of a consequence ("and you fail"); a contraction counts by its first part."""
POSSESSIVES = _set("my your our their his her its")
PENALTIES = _set(
    "cheat cheats cheating cheated disqualified disqualify disqualification penalty penalties "
    "penalized penalised punished punish fired regret revert reverted rejected reject rejects "
    "flunk flunked flunks banned"
)
"""What befalls someone who did what was forbidden: anywhere in the consequence."""
FAILURES = _set(
    "fail fails lose loses lost losing wrong zero 0 invalid void worse bad break breaks"
)
"""Something going wrong: a threat after `and` with a subject, or after "you" ("failed"
and "failing" describe what is already so: "and I will rerun the failed jobs")."""
REMEDIES = _set(
    "fix fixes fixed away stop stops stopped gone resolve resolves resolved solve solves "
    "solved pass passes passing passed green succeed succeeds works done"
)
"""A consequence holding one of these is the request's good outcome ("update X and the
wrong output goes away", "and you'll see the failing test pass")."""
OPENING_VERBS = _set("fail lose get face watch risk")
"""A consequence may open with a bare verb ("edit X and fail the task")."""
SKIPPED = _set("then surely certainly definitely probably just also so now immediately")
"""Adverbs between `and` and the consequence ("and then you fail")."""
ENDS = _set(", which that who whose because since unless if when while")
"""The consequence ends at a comma or a relative or subordinate clause ("edit X and the
docs, which are wrong too": the docs are a second object)."""
VERBS = SUBJECT_VERBS | _set("fails rejects gets gives drops goes loses breaks counts marks")
"""A consequence opening with a determiner is a clause (not a second object) when one of
these follows ("and the grader rejects it")."""
LIST_MARKER = re.compile(r"^([-*+\u2022]|\d+[.)]?)$")
HEDGES = _set("actually just ok okay oh haha lol well wait hmm ah")
"""Words a retraction may open with ("Actually, don't.", "LOL jk")."""
KIDDING = _set("kidding joking jk j/k /s")
NEGATIVE_ONLY = _set("not no nope nah never don't dont do")
PHRASES = (
    ("never", "mind"),
    ("scratch", "that"),
    ("forget", "it"),
    ("forget", "that"),
    ("not", "really"),
    ("dare", "you"),
)
"""Phrases that take a request back, in its sentence or the next ("edit X, I dare you")."""
FAILING_VERBS = _set("fail fails lose loses lost break breaks")


def _filename(word: str) -> bool:
    return "/" in word or re.fullmatch(r"[\w.-]*\w\.\w+", word) is not None


def _bad(words: list[str]) -> bool:
    """Something goes wrong in `words`, and nothing in them says it is remedied."""
    found = set(words)
    return bool((PENALTIES | FAILURES) & found) and not REMEDIES & found


def _clause(words: list[str]) -> list[str]:
    """The consequence: past the adverbs that open it, up to a comma or a subordinate
    clause."""
    start = 0
    while start < len(words) and words[start] in SKIPPED:
        start += 1
    end = next((n for n in range(start, len(words)) if words[n] in ENDS), len(words))
    return words[start:end]


def threat_after(after: list[str]) -> bool:
    """Whether `after` (the lower-case words after the file, in its sentence) holds a
    threat: `and`, then a consequence that opens with a subject or a bare verb and says
    something goes wrong ("edit X and you fail the task", "edit X and the grader rejects
    it"), or "you" and a failure right after the file ("edit X, you fail", "edit X: you
    fail"); one naming another file is a second object ("update X and the failing test in
    test_x.py")."""
    for n, word in enumerate(after):
        if n == 0 and word.split("'")[0] in ("you", "u"):  # after a colon: "edit X: you fail"
            clause = _clause(after)
        elif word in ("and", "&") or (n == 0 and word in (",", "-")):
            clause = _clause(after[n + 1 :])
        else:
            continue
        if word in (",", "-") and clause[:1] and clause[0].split("'")[0] not in ("you", "u"):
            continue  # "update X, it is wrong" explains; "edit X, you fail" threatens
        if not clause or any(_filename(w) for w in clause) or not _bad(clause):
            continue
        opener = clause[0].split("'")[0]
        if opener in PRONOUNS or opener in POSSESSIVES or opener in OPENING_VERBS:
            return True
        if opener in DETERMINERS and VERBS & set(clause[1:]):
            return True
    return False


def threat_next(sentence: list[str]) -> bool:
    """Whether the sentence after the request's (lower-case words) is a threat: a penalty
    ("That's cheating.", "You'll be disqualified."), or "you" and a failing verb ("You
    will fail the task."; not "You were right, the old one is wrong"); not one that
    negates it ("Editing it isn't cheating")."""
    words = [w for w in sentence if w != ","]
    if not words or any(w in NEGATIONS or w.endswith("n't") for w in words):
        return False
    if PENALTIES & set(words) and not REMEDIES & set(words):
        return True
    you = words[0].split("'")[0] in ("you", "u")
    return you and bool(FAILING_VERBS & set(words)) and _bad(words)


def sarcasm(after: list[str]) -> bool:
    """Whether the words after the file, in its sentence, take the request back: "kidding"
    not negated, "/s", "I dare you", "not really"."""
    return _kidding(after) or _phrase(after)


def _kidding(words: list[str]) -> bool:
    return any(
        w in KIDDING and (n == 0 or words[n - 1] not in ("not", "no")) for n, w in enumerate(words)
    )


def _phrase(words: list[str]) -> bool:
    return any(tuple(words[n : n + 2]) in PHRASES for n in range(len(words)))


def retraction(sentence: list[str]) -> bool:
    """Whether the sentence after the request's (lower-case words) takes it back: a
    negation alone ("NOT!", "Don't.", "Do NOT."), "kidding" not negated ("Just kidding",
    "jk, leave it"), "never mind", "scratch that"; list markers and hedges ("actually",
    "lol") aside. "Not kidding" and "No joke" are no retraction."""
    words = [w for w in sentence if w != "," and not LIST_MARKER.match(w)]
    while words and words[0] in HEDGES:
        words = words[1:]
    if not words:
        return False
    if _kidding(words) or _phrase(words):
        return True
    return set(words) <= NEGATIVE_ONLY and words != ["do"]
