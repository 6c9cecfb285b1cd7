"""The words the reading of a task's requests relies on (codur.scope.request): closed
classes (pronouns, determiners, auxiliaries, negations) and the verbs that ask for a
change, each list with what it does to the reading."""

from __future__ import annotations


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


CHANGE_VERBS = _set(
    "update change edit modify rewrite regenerate regen replace adjust amend alter patch "
    "refresh overwrite recreate redo revise tweak rename delete remove weaken relax loosen "
    "correct fix repair resolve debug add append insert write create extend reword"
)
"""Base forms of the verbs that ask for a change to their object."""
SYMPTOM_VERBS = _set("fix repair correct resolve debug")
"""Verbs whose object may be a symptom ("fix the failing test"), not the thing to change."""
OUTCOMES = _set(
    "test tests testcase testcases failure failures failing failed fails fail broken error "
    "errors red pass passes passing"
)
"""Words that make a symptom verb's object an outcome ("fix the failing test in X")."""
SUCCESS = _set("pass passes passing passed succeed succeeds green work works")
"""After a symptom verb's file, these make the file the goal ("fix X so it passes")."""
NEGATIONS = _set(
    "not no never nothing none neither nor without avoid avoiding refrain instead rather "
    "except dont cannot forbid forbids forbade forbidden forbidding prohibit prohibits "
    "prohibited disallow disallowed banned off-limits"
)
"""Anywhere before the file in its paragraph, or after it in its sentence (unless another
file follows: "not main.py"), these make it no request."""
LEADERS = _set(
    "please kindly also then and now just so simply finally next first lastly but or yet "
    "additionally afterwards"
)
"""Words an imperative clause may open with before its verb ("please update X")."""
SUBJECTS = _set(
    "i you we they he she it one someone somebody anyone anybody nobody everyone everybody "
    "this that these those there here its it's you're we're i'm they're my your our their "
    "his her the a an to"
)
"""Pronouns and determiners (closed classes): a clause opening with one has a subject, so
its verb is no imperative ("you may update X", "it is wrong to edit X")."""
ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "viz"})
"""Abbreviations whose full stop ends no sentence ("do not cheat, e.g. edit X")."""
CONDITIONS = _set("if unless whether when whenever")
"""A condition or a doubt before the verb: no request ("if needed, update X")."""
OTHER_VERBS = _set(
    "make let get run rerun execute see read keep leave preserve respect follow match "
    "satisfy meet consult compare open produce verify ensure trust obey say show expect "
    "describe mention touch pass fail"
)
"""Verbs that name the file as something to use, run, keep or match (and are seldom
nouns: "update the check in X" keeps its noun)."""
BLOCKERS = _set(
    # goals, references, subordinate and relative clauses
    "so until till because since once after before than as like per against according via "
    "using with by from for about then but or yet also that which who whom whose where what "
    # irregular participles, auxiliaries and modals: the verb before them is another clause's
    "said shown given written seen known made done found built ran "
    "is are was were be been being do does did must will would can could may might shall has "
    "have had"
)
"""Words between a verb and the file that stop the verb from reaching it (besides the
forms of OTHER_VERBS and the inflected forms of CHANGE_VERBS)."""
SUBJECT_VERBS = _set(
    "is are was were am be been being isnt arent wasnt must should will would can could may "
    "might shall ought need needs needed has have had does did stays stayed remains "
    "remained keeps kept holds held says shows matches contains defines specifies describes "
    "lists passes fails works looks seems serves reflects gets belongs means represents "
    "changes verifies asserts expects"
)
"""After a file (in its clause), these make it the subject of a new clause ("... and
expected.txt must not change"): auxiliaries, modals and verbs a file is the subject of."""
SUBJECT_NEGATIONS = _set("not never cannot dont doesnt wont")
"""After a file, these negate a clause it is the subject of ("... and X never changes")."""
FILLERS = _set("still also itself only too just already always ever really alone")
"""Adverbs between a file and the verb it is the subject of ("X must still pass")."""
SUBJECT_GAP = 4
"""Most words between a file and the verb it is the subject of ("X's last line is ...")."""
DETERMINERS = _set("the a an its their this these those every all each both")
KEEP_ED = frozenset({"expected", "hardcoded", "hard-coded", "nested"})
"""Words ending in -ed that are adjectives here ("the expected output"), not verbs."""
MAX_GAP = 6
"""Most words between the verb and the file ("update the expected output line in X")."""
COORDINATORS = _set("and but then also so or yet")
"""A comma before one of these ends a clause ("fix X, and update Y")."""
