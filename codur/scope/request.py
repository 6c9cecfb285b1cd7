"""Does a task ask to change a file? Only when the file is the object of a change verb in
an affirmative clause: "update expected.txt", "fix the assert in test_calc.py",
"regenerate @expected.txt". Everything else is no request, and the file stays locked:

- a goal or a reference: "so test_calc.py passes", "until X passes", "to match
  expected.txt", "make the tests in X pass", "run X", "what expected.txt says";
- a negation or a prohibition anywhere before the file in its paragraph (past line
  breaks: a hard-wrapped sentence, a list under "Forbidden:"), or after it in its
  sentence unless another file follows it ("edit X under no circumstances", "edit X:
  forbidden", but "update X, not Y" asks); a condition ("if needed, update X", "edit X
  only if I say so"), or a question ("should I update X?");
- a verb that is no imperative: an infinitive ("it is forbidden to edit X", "resist the
  urge to edit X", "remember to update X") or a clause with a subject ("you may update
  X", "it would be wrong to read and edit X"): the clause must open with a verb, after
  words like "please", "then" or "and";
- a verb in another clause or sentence: in "Fix the program. Update nothing else in
  expected.txt" or "Fix calc.py; expected.txt is right" no verb reaches the file;
- the file as the subject of a new clause: a file followed in its clause by a verb, an
  auxiliary or a negation is no object of the verb before it, even after `and` or a
  comma ("Rewrite main.py and expected.txt must not change", "Fix main.py, expected.txt
  is the spec");
- "fix"/"repair" of a symptom: "fix the failing test in X", "fix X so it passes" name X
  as what is to pass, not as what is wrong;
- a threat or a retraction after it (codur.scope.consequence): "edit X and you fail the
  task", "edit X. That's cheating.", "edit X. NOT!", "Update X. Just kidding.".

The reading is deliberately narrow: a lock the user did not want costs one flag
(`--allow-edit FILE`), an unlock the user did not ask for costs a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from codur.scope.consequence import (
    LIST_MARKER,
    filename,
    retraction,
    sarcasm,
    threat_after,
    threat_next,
)
from codur.scope.words import (
    ABBREVIATIONS,
    BLOCKERS,
    CHANGE_VERBS,
    CONDITIONS,
    COORDINATORS,
    DETERMINERS,
    FILLERS,
    KEEP_ED,
    LEADERS,
    MAX_GAP,
    NEGATIONS,
    OTHER_VERBS,
    OUTCOMES,
    SUBJECT_GAP,
    SUBJECT_NEGATIONS,
    SUBJECT_VERBS,
    SUBJECTS,
    SUCCESS,
    SYMPTOM_VERBS,
)


def _forms(verb: str) -> set[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    return {verb, verb + "s", verb + "es", verb + "d", verb + "ed", stem + "ing", verb + "ing"}


_OTHER_FORMS = frozenset(f for verb in OTHER_VERBS for f in _forms(verb))
_CHANGE_FORMS = frozenset(f for verb in CHANGE_VERBS for f in _forms(verb)) - CHANGE_VERBS
_TOKEN = re.compile(r"[^\s,;:!?()]+|[,;:!?()]")
_BOUNDARY = frozenset(";:!?()")
_QUOTES = "'\"`*"
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])[`\u00b4\u02bc\u2032\uff07](?=[A-Za-z])")
"""A backtick, an acute accent, a modifier letter apostrophe, a prime or a fullwidth
apostrophe typed for an apostrophe ("Don`t")."""


def _word(raw: str) -> tuple[str, bool]:
    """A token without quotes, `@` and a possessive; whether it ended a sentence."""
    text = raw.strip(_QUOTES)
    ends = False
    while text.endswith(".") and len(text) > 1:
        text = text[:-1].rstrip(_QUOTES)
        ends = ends or text.lower() not in ABBREVIATIONS
    text = text.lstrip("@").removesuffix("'s")
    return text, ends


@dataclass(frozen=True)
class Clause:
    words: list[str]
    question: bool
    """It ends with `?`: a question asks for nothing."""
    sentence: int
    """Which sentence (or line) of the task it is in."""
    span: int = 0
    """Which sentence, whatever its line breaks (a hard-wrapped sentence, a list under its
    lead-in): it ends at `. ! ? ;` or a blank line."""
    paragraph: int = 0
    """Which paragraph (blank lines part them)."""


def clauses(task: str) -> list[Clause]:
    """The task's clauses; a clause ends at a sentence's or a line's end, at `; : ! ? ( )`,
    and at a comma before `and`, `but`, `then`, `so`..."""
    text = task.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    text = _APOSTROPHE.sub("'", text.replace("\u201d", '"'))
    found: list[Clause] = []
    sentence = span = paragraph = 0
    for line in text.splitlines():
        if not line.strip():
            span, paragraph = span + 1, paragraph + 1
            continue
        words: list[str] = []
        tokens = _TOKEN.findall(line)
        if found and LIST_MARKER.match(tokens[0]):  # a list's item is a sentence of its own
            span += found[-1].span == span
        for n, raw in enumerate(tokens):
            nxt = tokens[n + 1].lower() if n + 1 < len(tokens) else ""
            if raw in _BOUNDARY or (raw == "," and nxt in COORDINATORS):
                if words:
                    found.append(Clause(words, raw == "?", sentence, span, paragraph))
                sentence += raw in ";!?"
                span += raw in ";!?"
                words = []
                continue
            word, ends = _word(raw)
            if word:
                words.append(word)
            if ends and words:
                found.append(Clause(words, False, sentence, span, paragraph))
                sentence, span, words = sentence + 1, span + 1, []
        if words:
            found.append(Clause(words, False, sentence, span, paragraph))
        sentence += 1
    return found


def _names(word: str, path: str) -> bool:
    """Whether `word` names `path`: its name, or a trailing part of its path."""
    if "/" in word:
        clean = word.removeprefix("./")
        return path == clean or path.endswith("/" + clean)
    return word == PurePosixPath(path).name


def _negated(word: str) -> bool:
    return word in NEGATIONS or word.endswith("n't")


def _blocks(words: list[str], at: int) -> bool:
    """Whether the word at `at`, between a verb and the file, stops the verb."""
    word = words[at]
    if word in KEEP_ED:
        return False
    if word in BLOCKERS or word in _OTHER_FORMS or word in _CHANGE_FORMS or _negated(word):
        return True
    if word.endswith("ed"):
        return True  # a participle: another verb ("the bug shown in X", "updated")
    if word in ("and", ",", "to"):  # a list ("fix a.py and b.py"), a place ("to X")
        after = words[at + 1]  # ... or a new verb ("and rerun X", "to reproduce X")
        return not (after in DETERMINERS or filename(after) or after.isdigit())
    return False


def _subject(words: list[str], at: int) -> bool:
    """Whether the file at `words[at]` is the subject of a clause of its own: a verb, an
    auxiliary or a negation follows it before a comma, a conjunction or a preposition."""
    for word in words[at + 1 : at + 1 + SUBJECT_GAP]:
        if word in SUBJECT_VERBS or word in SUBJECT_NEGATIONS or word.endswith("n't"):
            return True
        if word in FILLERS:
            continue
        if word in (",", "to") or word in COORDINATORS or word in BLOCKERS:
            return False
        if _negated(word) or filename(word):
            return False  # "rather than X", "instead of X", "X Y": another phrase
    return False


def _imperative(lower: list[str], verb: int) -> bool:
    """Whether the verb at `verb` is an imperative: no infinitive, and its clause opens
    with a verb (after LEADERS), not with a subject; a verb right after a comma opens a
    clause of its own ("the output changed, update X")."""
    if verb > 0 and lower[verb - 1] == "to":
        return False
    if verb > 0 and lower[verb - 1] == ",":
        return True
    head = next((w for w in lower[:verb] if w not in LEADERS and w != ","), lower[verb])
    return head not in SUBJECTS


def _forbidden_after(after: list[str]) -> bool:
    """Whether a negation or a condition after the file, in its sentence, takes its
    request back ("edit X under no circumstances", "edit X: forbidden", "edit X only if
    I say so"); one that another file follows is about that file ("update X, not Y",
    "rather than Y", "without touching Y")."""
    for n, word in enumerate(after):
        if word in CONDITIONS or word == "only":  # "only if I say so", "only with my approval"
            return True
        if _negated(word) and not any(filename(w) for w in after[n + 1 : n + 4]):
            return True
    return False


def _requested(words: list[str], at: int, rest: list[str], before: list[str]) -> bool:
    """Whether the file named at `words[at]` is the object of an affirmative change verb;
    `rest`: the words of its sentence after it (line breaks aside), `before`: those of
    its paragraph before its clause."""
    lower = [w.lower() for w in words]
    if any(_negated(w.lower()) for w in before) or any(_negated(w) for w in lower[:at]):
        return False
    after = [w.lower() for w in rest]
    if _subject(lower, at) or _forbidden_after(after) or threat_after(after) or sarcasm(after):
        return False
    verb = at - 1
    while verb >= 0 and lower[verb] not in CHANGE_VERBS:
        if _blocks(lower, verb) or at - verb > MAX_GAP:
            return False
        verb -= 1
    if verb < 0 or any(w in CONDITIONS for w in lower[:verb]) or not _imperative(lower, verb):
        return False
    symptom = lower[verb] in SYMPTOM_VERBS  # "fix the failing test in X", "fix X so it passes"
    outcome = OUTCOMES & set(lower[verb + 1 : at]) or SUCCESS & {w.lower() for w in rest}
    return not (symptom and outcome)


@dataclass
class _Reading:
    """A task read once, however many files are asked about: its clauses, and where each
    file name is written, by its last path part: bare (`expected.txt`, any file of that
    name) or with folders (`sub/expected.txt`)."""

    parts: list[Clause]
    bare: dict[str, list[tuple[int, int]]]
    with_folders: dict[str, list[tuple[int, int]]]
    answers: dict[str, bool]
    """Whether some bare mention of a name asks to change it."""


@lru_cache(maxsize=4)
def _read(task: str) -> _Reading:
    parts = clauses(task)
    bare: dict[str, list[tuple[int, int]]] = {}
    with_folders: dict[str, list[tuple[int, int]]] = {}
    for index, clause in enumerate(parts):
        for at, word in enumerate(clause.words):
            table = with_folders if "/" in word else bare
            table.setdefault(word.rsplit("/", 1)[-1], []).append((index, at))
    return _Reading(parts, bare, with_folders, {})


def _asks(reading: _Reading, index: int, at: int) -> bool:
    """Whether the file named at word `at` of clause `index` is asked to change."""
    clause, parts = reading.parts[index], reading.parts
    if clause.question:
        return False
    rest = clause.words[at + 1 :] + [
        w for p in parts[index + 1 :] if p.span == clause.span for w in p.words
    ]
    before = [w for p in parts[:index] if p.paragraph == clause.paragraph for w in p.words]
    if not _requested(clause.words, at, rest, before):
        return False
    return not (
        threat_next(_next_sentence(parts, index, False))
        or retraction(_next_sentence(parts, index, True))
    )


def _next_sentence(parts: list[Clause], index: int, paragraphs: bool) -> list[str]:
    """The lower-case words of the sentence after clause `index`'s: in its paragraph, or
    (`paragraphs`) the first of the next one."""
    clause = parts[index]
    later = [p for p in parts[index + 1 :] if p.span > clause.span]
    if not later or later[0].paragraph > clause.paragraph + paragraphs:
        return []
    return [w.lower() for p in later if p.span == later[0].span for w in p.words]


def asked_to_change(task: str, path: str) -> bool:
    """Does the task explicitly ask to change `path`? (See the module's docstring.)"""
    reading = _read(task)
    name = PurePosixPath(path).name
    if name not in reading.answers:
        reading.answers[name] = any(_asks(reading, *p) for p in reading.bare.get(name, []))
    if reading.answers[name]:
        return True
    pathed = reading.with_folders.get(name, [])
    return any(
        _names(reading.parts[i].words[at], path) and _asks(reading, i, at) for i, at in pathed
    )


def mentions(task: str, path: str) -> bool:
    """Whether the task names `path` at all (by its name or a trailing part of its path)."""
    reading = _read(task)
    name = PurePosixPath(path).name
    return name in reading.bare or any(
        _names(reading.parts[i].words[at], path) for i, at in reading.with_folders.get(name, [])
    )
