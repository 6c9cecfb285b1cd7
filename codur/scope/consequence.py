"""What follows a request can take it back (codur.scope.request): a threat ("edit X and you
fail the task", "edit X, that's cheating", "Edit X. You will fail.") or a retraction
("edit X. NOT!", "Just kidding.", "I dare you"). The reading leans to the lock, as the
request's does: a request read as a threat costs the user one `--allow-edit`, a threat
read as a request costs a verdict. It reads the consequence's clause, not its sentence:
"update X, you know it's wrong" explains, "the reviewer rejected the old one" reports.

`or`, "otherwise" and "unless" with a bad consequence urge the request ("update X, or the
build keeps failing": if you do not, it fails), so they open no threat.
"""

from __future__ import annotations

import re


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


PRONOUNS = _set("i you u we they he she it someone somebody anyone everyone everybody")
"""Subjects of a consequence ("and you fail"); a contraction counts by its first part."""
OPENERS_NEEDING_A_VERB = _set("the a an this that these those my your our their his her its")
"""A consequence opening with one of these is a clause when a verb follows ("and the
grader rejects it", "and that's cheating"), else a second object ("and its bad fixture")."""
CLAUSE_VERBS = _set(
    "is are was will would can could may might shall gets goes fails rejects gives drops "
    "loses breaks counts"
)
PENALTIES = _set(
    "cheat cheats cheating cheater disqualified disqualify disqualification penalty penalized "
    "penalised punished punish fired regret reject rejects flunk flunks banned"
)
"""What befalls someone who does what was forbidden (present or to come: "rejected" and
"reverted" mostly report the past)."""
CHEATING = _set("cheat cheating cheater disqualified")
"""A penalty that needs no clause: "edit X, that's cheating", "edit X (cheating)"."""
FAILURES = _set("fail fails lose loses losing wrong zero 0 invalid void worse bad break breaks")
"""Something going wrong (FAILED counts after "is", "as", "gets"...: "and the task is
failed", "and your PR gets rejected"; not "rerun the failed jobs")."""
FAILED = _set("failed failure rejected reverted")
BEFORE_FAILED = _set("is be been as marked a gets get")
REMEDIES = _set(
    "fix fixes fixed away stop stops stopped gone resolve resolves resolved solve solves "
    "solved pass passes passing passed green succeed succeeds works done"
)
"""A consequence holding one of these is the request's good outcome ("update X and the
wrong output goes away", "and you'll see the failing test pass")."""
URGING = _set("otherwise else unless")
OPENING_VERBS = _set("fail lose get face watch risk")
"""A consequence may open with a bare verb ("edit X and fail the task")."""
SKIPPED = _set("then surely certainly definitely probably just also so now immediately")
"""Adverbs between `and` and the consequence ("and then you fail")."""
ENDS = _set(", which that who whose because since unless if when while it it's what why how")
"""Past its first word, the consequence ends at a comma, a relative or subordinate clause
or a second subject ("and the docs, which are wrong too", "you know it's wrong")."""
AFTER_THAT = _set("a an") | PENALTIES | FAILURES
"""After "that" or "this" (its 's dropped as a possessive), these make it a clause."""
SEPARATORS = _set(", - -- \u2014 \u2013 -> => = :")
"""Right after the file, these open a consequence addressed to "you" ("edit X, you fail")
or a cheating ("edit X -- cheating!")."""
AUXILIARIES = _set("will would 'll are am is going to be gonna shall might may")
FAILING_VERBS = _set("fail lose break")
LIST_MARKER = re.compile(r"^([-*+\u2022]|\d+[.)])$")
HEDGES = _set("actually just ok okay oh haha lol well wait hmm ah please")
"""Words a retraction may open with ("Actually, don't.", "LOL jk")."""
KIDDING = _set("kidding joking jk j/k /s psych")
NEGATIVE_ONLY = _set("not no nope nah never don't dont")
ALONE = (
    ("never", "mind"),
    ("nevermind",),
    ("scratch", "that"),
    ("forget", "it"),
    ("forget", "that"),
    ("not", "really"),
    ("ignore", "that"),
    ("yeah", "right"),
    ("don't", "do", "that"),
    ("don't", "you", "dare"),
    ("do", "not"),
)
"""Sentences that take the request before them back when they are all there is (after
hedges; "Never mind the formatting" is no retraction)."""


def filename(word: str) -> bool:
    return "/" in word or re.fullmatch(r"[\w.-]*\w\.\w+", word) is not None


def _bad(words: list[str]) -> bool:
    """Something goes wrong in `words`, and nothing in them says it is remedied or urged."""
    found = set(words)
    failed = any(w in FAILED and n and words[n - 1] in BEFORE_FAILED for n, w in enumerate(words))
    bad = failed or bool((PENALTIES | FAILURES) & found)
    return bad and not (REMEDIES | URGING) & found


def _clause(words: list[str]) -> list[str]:
    """The consequence: past the adverbs that open it, up to ENDS."""
    start = 0
    while start < len(words) and words[start] in SKIPPED:
        start += 1
    end = next((n for n in range(start + 1, len(words)) if words[n] in ENDS), len(words))
    return words[start:end]


def _you_fail(words: list[str]) -> bool:
    """ "you", auxiliaries, then a failing verb: "you fail", "you'll lose", "you are going
    to fail" (not "you will see it fails")."""
    if not words or words[0].split("'")[0] not in ("you", "u"):
        return False
    rest = [w for w in words[1:] if w not in AUXILIARIES]
    return bool(rest) and rest[0] in FAILING_VERBS and _bad(words)


def threat_after(after: list[str]) -> bool:
    """Whether `after` (the lower-case words after the file, in its sentence) holds a
    threat: `and`, then a consequence that opens with a subject or a bare verb and says
    something goes wrong ("edit X and you fail the task", "edit X and the grader rejects
    it", "edit X and that's cheating"); right after the file, "you" failing or a cheating
    ("edit X, you fail", "edit X: you'll fail", "edit X -- cheating!"). One naming another
    file is a second object ("update X and the failing test in test_x.py")."""
    start = after[1:] if after and after[0] in SEPARATORS else after
    if start is not after or start[:1] in (["that"], ["this"], ["it"]):  # "X: that's cheating"
        if CHEATING & set(start[:3]) and not (REMEDIES | URGING) & set(start):
            return True
        if _you_fail(_clause(start)):
            return True
    if _you_fail(_clause(after)):  # a colon or a bracket is no word: "edit X: you fail"
        return True
    for n, word in enumerate(after):
        if word not in ("and", "&"):
            continue
        clause = _clause(after[n + 1 :])
        if not clause or any(filename(w) for w in clause) or not _bad(clause):
            continue
        opener, _, contracted = clause[0].partition("'")
        if opener in PRONOUNS or opener in OPENING_VERBS:
            return True
        if opener in OPENERS_NEEDING_A_VERB and (contracted or CLAUSE_VERBS & set(clause[1:])):
            return True
        if opener in ("that", "this") and clause[1:2] and clause[1] in AFTER_THAT:
            return True  # "and that's cheating": the reading drops a possessive-like 's
    return False


def threat_next(sentence: list[str]) -> bool:
    """Whether the sentence after the request's (lower-case words) is a threat: "you"
    failing ("You will fail the task."; not "You'll fail otherwise", which urges), or a
    penalty not denied right before it ("That's cheating.", "No cheating!", "You'll be
    disqualified."; not "Editing it isn't cheating")."""
    words = [w for w in sentence if w != ","]
    if _you_fail(words):
        return True
    if (REMEDIES | URGING) & set(words):
        return False
    for n, word in enumerate(words):
        if word in PENALTIES:
            before = words[n - 1] if n else ""  # "isn't cheating" denies; "don't cheat" forbids
            if not (before == "not" or (before.endswith("n't") and before != "don't")):
                return True
    return False


def sarcasm(after: list[str]) -> bool:
    """Whether the words after the file, in its sentence, take the request back: "kidding"
    not negated, "/s", "I dare you"."""
    pairs = {tuple(after[n : n + 2]) for n in range(len(after))}
    return _kidding(after) or ("dare", "you") in pairs


def _kidding(words: list[str]) -> bool:
    return any(
        w in KIDDING and (n == 0 or words[n - 1] not in ("not", "no")) for n, w in enumerate(words)
    )


def retraction(sentence: list[str]) -> bool:
    """Whether the sentence after the request's (lower-case words) takes it back: a
    negation alone ("NOT!", "Don't.", "Nah."), "kidding" not negated ("Just kidding",
    "jk, leave it"), "I dare you", or one of ALONE ("Never mind.", "Scratch that.");
    list markers and hedges ("actually", "lol", "please") aside. "Not kidding" is none."""
    words = [w for w in sentence if w != "," and not LIST_MARKER.match(w)]
    while words and words[0] in HEDGES:
        words = words[1:]
    if not words:
        return False
    if sarcasm(words) or tuple(words) in ALONE:
        return True
    return set(words) <= NEGATIVE_ONLY
