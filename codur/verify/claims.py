"""Claims about calls, in a task or a docstring: `CALL CONNECTIVE VALUE`, where CALL calls
a function defined in the folder with literal arguments and VALUE is a Python literal
(`ast.literal_eval`); both are parsed with `ast`. Only explicit claims count.

- Requirement connectives: `should|must return|be|be equal to|equal|give`, `==`, `==>`,
  `=>`, `->`, `➞`, `→`, `=`. Always claims. Any connective may follow a `#` (a comment
  after a call written as code: `f("a.txt") # => 'Yes'`, `f(15)  # returns "db1111db"`).
- Indicative connectives: `returns`, `gives`, `equals`, `is`. They describe what the code
  does now as often as what it should do. A `should|must return|be V` later in the same
  sentence or in the next one, before any other call, corrects it (`f(1) returns 14 but
  should return 15`, `f(1) returns 14. It should return 15.`: f(1) should return 15).
  Otherwise it counts only when the value ends its sentence and the next sentence holds no
  `should`/`must`.
- The value is the longest literal the text starts with; it must not be followed by an
  operator (`1 + 14` is an expression, not a value) and a sentence's final `.` is not part
  of it (`returns 15.` is 15), nor a comma (`-> 10, then ...` is 10). Lowercase
  `true`/`false` claim a true or false value. A single value in parentheses (`("Venus")`:
  a one-tuple without its comma?) or one holding `...` (`[0, 1, 1, ...]`) is no claim.
- After a `#` the value must end the comment (or a remark in brackets follows it).
- Markdown code spans are read through: `` `f(1)` should return `15` `` claims f(1) == 15
  (a value in backticks is the whole span).
- `is` with True, False or None compares by identity; everything else by `==`.
- Claims giving one call different values: the requirement ones win; if those disagree
  too, none is kept.
Calls of methods (`obj.f(1)`), with non-literal arguments, or of names the folder does not
define are not claims.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

TASK = "stated in the task"


@dataclass(frozen=True)
class CallClaim:
    """`call` (in the module at `path`) should give `expected`, compared by `op`."""

    path: str
    call: str
    expected: str
    op: Literal["==", "is", "truthy"]
    """truthy: prose's lowercase `true`/`false` (`nonempty([1]) should be true`)."""
    origin: str = TASK
    """Where the claim was stated, for messages."""

    @property
    def description(self) -> str:
        if self.op == "truthy":
            return f"{self.call} should return a {self.expected.lower()} value"
        return f"{self.call} should return {self.expected}"


_CONNECTIVE = re.compile(
    r"[ \t]*(?:\#[ \t]*)?(?:(?P<req>==>|==|=>|->|➞|→|=(?!=)"
    r"|\b(?:should|must)\s+(?:return|be(?:\s+equal\s+to)?|equal|give)\b)"
    r"|(?P<ind>\b(?:returns|gives|equals|is)\b))[ \t]*",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:should|must)\b", re.IGNORECASE)
_OPERATOR_NEXT = re.compile(r"[ \t]*[-+*/%<>=&|^@]")
_ENDS_SENTENCE = re.compile(r"[ \t]*(?:[.;!?](?:\s|$)|$)", re.MULTILINE)
MAX_VALUE = 500
"""Characters of a line tried as a claim's value."""


def _closing(text: str, start: int) -> int | None:
    """Index just past the bracket closing the one at `start` (quotes respected)."""
    depth, quote, i = 0, "", start
    while i < len(text) and text[i] != "\n":
        ch = text[i]
        if quote:
            i += 2 if ch == "\\" else 1
            quote = "" if ch == quote else quote
            continue
        if ch in "'\"":
            quote = ch
        depth += (ch in "([{") - (ch in ")]}")
        i += 1
        if depth == 0:
            return i
    return None


def is_literal(node: ast.AST) -> bool:
    """A literal with no `...` in it (`[0, 1, 1, 2, ...]` is prose for "and so on")."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return not any(isinstance(n, ast.Constant) and n.value is Ellipsis for n in ast.walk(node))


def leading_literal(text: str) -> str | None:
    """The longest start of `text` (one line) that is a Python literal, unless an operator
    follows it (then it is part of an expression we cannot evaluate without the code)."""
    line = text.split("\n", 1)[0][:MAX_VALUE]
    for end in range(len(line), 0, -1):
        candidate, rest = line[:end].strip(), line[end:]
        if not candidate or _inside_token(rest):
            continue
        if candidate.endswith(".") and (not rest or rest[0].isspace()):
            continue  # a sentence's period: `returns 1.` is 1
        if candidate.endswith(","):
            continue  # a sentence's comma: `-> 10, then` is 10, not (10,)
        try:
            tree = ast.parse(candidate, mode="eval")
        except SyntaxError:
            continue
        if is_literal(tree.body):
            return None if _OPERATOR_NEXT.match(line, end) else candidate
    return None


def _inside_token(rest: str) -> bool:
    """Whether a value ending where `rest` starts would cut a word, number or string."""
    if not rest:
        return False
    return rest[0].isalnum() or rest[0] in "_'\"" or (rest[:1] == "." and rest[1:2].isalnum())


def _claims_in(
    text: str, defined: dict[str, str], origin: str, skip: list[range]
) -> Iterator[tuple[CallClaim, bool]]:
    """(claim, requirement?) for each claim in `text` outside the `skip` spans."""
    named = sorted((n for n in defined if n in text), key=len, reverse=True)  # spelled
    if not named:
        return
    names = "|".join(re.escape(n) for n in named)
    calls = re.compile(rf"(?<![\w.])({names})\(")
    for match in calls.finditer(text):
        if any(match.start() in span for span in skip):
            continue
        end = _closing(text, match.end() - 1)
        quoted = (
            end is not None
            and text[match.start() - 1 : match.start()] == "`" == text[end : end + 1]
        )
        link = _CONNECTIVE.match(text, end + quoted) if end else None  # `f(1)` should ...
        if end is None or link is None:
            continue
        call = text[match.start() : end]
        tree = ast.parse(call, mode="eval").body if _parses(call) else None
        if not isinstance(tree, ast.Call) or tree.args and not all(map(is_literal, tree.args)):
            continue
        if any(k.arg is None or not is_literal(k.value) for k in tree.keywords):
            continue
        value, after, truthy = _value(text, link.end())
        commented = link.group(0).strip().startswith("#")
        if value is None or loose_tuple(value) or commented and not _ends_comment(text, after):
            continue
        path = defined[match.group(1)]
        if link["ind"]:
            if corrected := _correction(text[after:], calls):
                yield CallClaim(path, call, corrected, "==", origin), True
                continue
            if not _indicative_stands(text, after):
                continue
        singleton = value in ("True", "False", "None")
        word = link.group(0).strip(" \t#")
        op: Literal["==", "is", "truthy"] = "is" if word == "is" and singleton else "=="
        op = "truthy" if truthy else op
        yield CallClaim(path, call, value, op, origin), bool(link["req"])


_LOWER_BOOL = re.compile(r"(true|false)\b(?![(\[]|\.\w|[ \t]*[-+*/%<>=&|^@])")


def _value(text: str, start: int) -> tuple[str | None, int, bool]:
    """The value a claim states at `start`, where it ends, and whether it is prose's
    lowercase `true`/`false` (`is_simple_power(1, 4) => true`: True or False, or in prose
    any true or false value)."""
    if text.startswith("`", start):  # `15`: markdown's code span, the whole of it
        close = text.find("`", start + 1)
        inner, after = text[start + 1 : close], close + 1
        value, end, truthy = (
            _value(inner, 0) if close > start and "\n" not in inner else (None, 0, False)
        )
        return (value, after, truthy) if value and not inner[end:].strip() else (None, start, False)
    if lower := _LOWER_BOOL.match(text, start):
        return lower[1].capitalize(), lower.end(), True
    value = leading_literal(text[start:])
    return value, (text.find(value, start) + len(value) if value else start), False


def _ends_comment(text: str, after: int) -> bool:
    """A value after `# =>` ends the comment, or a remark in brackets or a period follows
    (`# => 'No' (it starts with a digit)`); not `# -> 3 attempts, then raises`."""
    rest = text[after:].split("\n", 1)[0].strip()
    return rest in ("", ".") or rest.startswith("(")


def loose_tuple(value: str) -> bool:
    """A single value in parentheses (`("Venus")`, HumanEval/148): a one-tuple missing its
    comma, or a value in needless brackets? Unsure, so no claim."""
    tree = ast.parse(value, mode="eval").body
    return value.startswith("(") and not isinstance(tree, ast.Tuple)


def _parses(source: str) -> bool:
    try:
        ast.parse(source, mode="eval")
        return True
    except SyntaxError:
        return False


_REQUIRED = re.compile(
    r"\b(?:should|must)\s+(?:return|be(?:\s+equal\s+to)?|equal|give)\b[ \t]*", re.IGNORECASE
)


def _correction(rest: str, calls: re.Pattern[str]) -> str | None:
    """The value a `should return V` gives in the rest of a description's sentence or in
    the next sentence (`f(1) returns 14 but should return 15`, `f(1) returns 14. It
    should return 15.`), when no other call comes before it."""
    scope = " ".join(re.split(r"(?<=[.;!?])\s+|\n", rest, maxsplit=2)[:2])
    required = _REQUIRED.search(scope)
    if required is None or calls.search(scope, 0, required.start()):
        return None
    return leading_literal(scope[required.end() :])


def _indicative_stands(text: str, after: int) -> bool:
    """The value ends its sentence and no `should`/`must` follows in the next one."""
    end = _ENDS_SENTENCE.match(text, after)
    if end is None:
        return False
    following = re.split(r"(?<=[.;!?])\s|\n", text[end.end() :].lstrip(), maxsplit=1)[0]
    return not _MODAL.search(following)


def _settle(found: list[tuple[CallClaim, bool]]) -> list[CallClaim]:
    """One claim per call; requirements win over descriptions; disagreement drops it."""
    by_call: dict[str, list[tuple[CallClaim, bool]]] = {}
    for claim, required in found:
        key = f"{claim.path}:{ast.dump(ast.parse(claim.call, mode='eval'))}"
        by_call.setdefault(key, []).append((claim, required))
    kept: list[CallClaim] = []
    for claims in by_call.values():
        strong = [c for c, required in claims if required] or [c for c, _ in claims]
        values = {ast.dump(ast.parse(c.expected, mode="eval")) for c in strong}
        if len(values) == 1:
            kept.append(strong[0])
    return kept


def find_claims(
    text: str, defined: dict[str, str], origin: str, skip: list[range] | None = None
) -> list[CallClaim]:
    """The claims in `text` (outside the `skip` spans) about calls of `defined` (function
    name -> the file defining it), one per call."""
    return _settle(list(_claims_in(text, defined, origin, skip or [])))
