"""What a task and the folder's docstrings state about the program, read conservatively:
only explicit statements become checks; when unsure, nothing does.

Stated output (`stated_output`): a requirement phrase, then the output.
- Phrases: `the output should|must be`, `expected output is|:`, `should|must|needs to|
  has to|to print|output|display`, `make it print`, `so (that) it prints`. A bare `prints X`
  is not one: it usually describes what the program does now.
- The output: a fenced block after the phrase (multi-line), or a quoted value ('...',
  "...", `...`) ending its sentence, or the rest of the line up to the sentence's end
  (a final `.` is the sentence's, not the output's). Unquoted text counts only when it
  looks like output, not prose: a Python literal, or no word made of letters alone
  (`total(1, 5) == 15`, `Total: 15`, `[1, 2]` do; `the sum of the list` does not).
- Several statements that disagree: None.

Stated values (`stated_values`): unquoted text after the phrase that is prose by the rule
above only because its words are the program's own values, one-word string literals of
its code (case aside), two or more of them among numbers or punctuation (`cy 9, al 7, bo
7` where the program holds "cy", "al" and "bo"; a lone word, `should print pass`, stays
prose), in a clause with no condition before the phrase (`so the output should be`, `it
should print`; not `for an empty list it should print`, `3 should print`). Prose states
values, not layout, so these are compared as values in order (values.py).

Stated calls (`stated_calls`): the claims about calls of the folder's functions
(`total(1, 5) should return 15`, `is_leap(1900) is False`), by the rules of claims.py.
Text inside a stated output is output, not a claim.

Docstring examples (`doctest_examples`): the `>>>` examples (stdlib `doctest` parser) of
the named functions, classes and methods (or all of them in the given sources; an example
doctest cannot parse is left out, not its docstring's others, but for later ones using a
name it may have set); and, in the rest of a
function's docstring, HumanEval-style lines (`f(x) == y`, `f(x) ➞ y`, `f(x) # => y` ...:
the claims of claims.py) whose callee is that function, and Input/Output pairs or
`For x = 3 the output should be 9` lines naming its parameters (io_examples.py). Not
accepted: doctest-like lines without `>>>` (`f(x)` on one line, `y` on the next), other
prose (`for 3 the output should be 9`, `f(x) -> 19 - 5 - 6 = 8`), claims about methods.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import re
from dataclasses import dataclass

from codur.verify.check_helpers import claimed
from codur.verify.claims import TASK, CallClaim, find_claims
from codur.verify.io_examples import io_claims
from codur.verify.values import tokens

__all__ = [
    "CallClaim",
    "DocExample",
    "doctest_examples",
    "stated_calls",
    "stated_output",
    "stated_values",
    "states_output",
]


@dataclass(frozen=True)
class DocExample:
    """The `index`-th `>>>` example of `docstring` (of `function` in `path`), which starts
    at `line` of the file; earlier examples of the docstring are its setup."""

    path: str
    function: str
    docstring: str
    index: int
    line: int
    source: str
    want: str


# --- stated output --------------------------------------------------------------------

_OUTPUT_PHRASE = re.compile(
    r"\b(?:(?:the\s+)?output\s+(?:should|must)\s+be"
    r"|expected\s+output(?:\s+is|\s*(?=:))"
    r"|(?:should|must|needs\s+to|has\s+to|to)\s+(?:print|output|display)"
    r"|make\s+\w+\s+print|so\s+(?:that\s+)?\w+\s+prints)\b[ \t]*:?",
    re.IGNORECASE,
)
_FENCE = re.compile(r"[ \t]*\n?[ \t]*```[\w+-]*[ \t]*\n(.*?)\n[ \t]*```", re.DOTALL)
_FENCED = re.compile(r"```.*?```", re.DOTALL)
_QUOTED = re.compile(r"[ \t]*(```|[`'\"])(.+?)\1(?=[ \t]*(?:[.,;!?)]|$))", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?;](?=\s+\S)|\.?[ \t]*$", re.MULTILINE)


def _output_statements(task: str) -> list[tuple[tuple[int, int], str | None]]:
    """Each output phrase's span (phrase and value) and its value (None: not output)."""
    found: list[tuple[tuple[int, int], str | None]] = []
    code = [range(*m.span()) for m in _FENCED.finditer(task)]
    for phrase in _OUTPUT_PHRASE.finditer(task):
        if any(phrase.start() in block for block in code):
            continue  # a phrase inside a code block is code, not a statement
        at = phrase.end()
        if match := _FENCE.match(task, at) or _QUOTED.match(task, at):
            found.append(((phrase.start(), match.end()), match.group(match.lastindex or 1)))
            continue
        end = _SENTENCE_END.search(task, at)
        stop = end.start() if end else len(task)
        text = task[at:stop].strip()
        found.append(((phrase.start(), stop), text if _looks_like_output(text) else None))
    return found


def _looks_like_output(text: str) -> bool:
    if "\n" in text or not any(ch.isalnum() for ch in text):
        return False
    try:
        ast.literal_eval(text)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return all(not word.isalpha() for word in text.split())


def states_output(task: str) -> bool:
    """Whether `task` has an output phrase at all (what it states may be prose)."""
    return bool(_output_statements(task))


def stated_output(task: str) -> str | None:
    """The program output `task` states explicitly, or None."""
    values = {value for _, value in _output_statements(task)}
    return values.pop() if len(values) == 1 and None not in values else None


_CLAUSE_START = re.compile(r"[.;:!?,\n]")
_PLAIN_SUBJECT = re.compile(
    r"(?:(?:fix|change|update)\s+(?:it|this|that|the\s+(?:program|script|code)|@?[\w./-]+)\s+)?"
    r"(?:(?:so|and|then|now)(?:\s+that)?\s*)?(?:it|the\s+(?:program|script)|@?[\w./-]+\.py)?",
    re.IGNORECASE,
)
"""What may stand before the phrase in its clause for the output stated to be the
program's whole output when it runs: no condition (`for an empty list`, `with --name`,
`3 should print`, `ranking() should output`), only a subject (`it`, `the program`)."""


def stated_values(task: str, code: dict[str, ast.Module]) -> str | None:
    """The output `task` states in the program's own words (`code`: its parsed files),
    to be compared as values in order; None when there is none or statements disagree."""
    texts = set()
    for (start, stop), value in _output_statements(task):
        if value is not None:
            return None  # an exact output is stated_output's
        clause = _CLAUSE_START.split(task[:start])[-1]
        if not _PLAIN_SUBJECT.fullmatch(clause.strip()):
            return None  # "for an empty list it ...", "`main.py name` ...", "3 should ..."
        texts.add(task[start:stop])
    if len(texts) != 1:
        return None
    text = _OUTPUT_PHRASE.sub("", texts.pop(), count=1).strip()
    words = [t for t in tokens(text) if t.isalpha()]
    own = set(words)
    if len(own) < 2 or len(words) == len(text.split()):
        return None  # a lone word or words only: prose
    known = {word.casefold() for word in _one_word_literals(code)}
    return text if {word.casefold() for word in own} <= known else None


def _one_word_literals(code: dict[str, ast.Module]) -> frozenset[str]:
    """The string constants of `code` that are one word of letters (`"cy"`, `'Total'`)."""
    return frozenset(
        node.value.strip()
        for tree in code.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.strip().isalpha()
    )


# --- stated calls and docstring examples ---------------------------------------------


def stated_calls(task: str, defined: dict[str, str]) -> list[CallClaim]:
    """The claims `task` makes about calls of the folder's functions (`defined`: function
    name -> the file defining it)."""
    outputs = [range(*span) for span, _ in _output_statements(task)]
    return find_claims(task, defined, TASK, outputs)


def _documented(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """(qualified name, node) of every function and class, methods included."""
    found: list[tuple[str, ast.AST]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.append((prefix + node.name, node))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


def _docstring(node: ast.AST) -> tuple[str, int] | None:
    """The raw docstring (as doctest reads it) and the line it starts on."""
    body = getattr(node, "body", None)
    first = body[0] if body else None
    value = first.value if isinstance(first, ast.Expr) else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value, value.lineno
    return None


def doctest_examples(
    sources: dict[str, str], names: list[str] | None = None
) -> list[DocExample | CallClaim]:
    """The examples in the docstrings of `names` (qualified or bare names; None: every
    function and class) in `sources` (path -> code)."""
    parser = doctest.DocTestParser()
    found: list[DocExample | CallClaim] = []
    for path, code in sources.items():
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue  # broken code documents nothing we can read; the check run shows it
        for qualname, node in _documented(tree):
            bare = qualname.rsplit(".", 1)[-1]
            doc = _docstring(node)
            if doc is None or (names is not None and not {qualname, bare} & set(names)):
                continue
            text, line = doc
            runnable, examples = _examples(parser, text, f"{path}:{qualname}", tree)
            found += [
                DocExample(path, qualname, runnable, i, line + e.lineno, e.source, claimed(e))
                for i, e in enumerate(examples)
            ]
            if isinstance(node, ast.ClassDef) or "." in qualname:
                continue  # a call `push(1)` is not how a method or class is called
            masked = text.split("\n")
            for e in examples:
                lines = e.source.count("\n") + e.want.count("\n")
                masked[e.lineno : e.lineno + lines] = [""] * lines
            origin = f"example in the docstring of {qualname}, {path}"
            found += find_claims("\n".join(masked), {bare: path}, origin)
            found += io_claims(text, node, path, origin)
    return found


def _examples(
    parser: doctest.DocTestParser, text: str, name: str, module: ast.Module
) -> tuple[str, list[doctest.Example]]:
    """The docstring's examples (their line numbers in `text`) and the text they run from.
    Where doctest refuses the docstring (HumanEval/51: a "\\n" in an example's string
    splits it across two lines), each `>>>` block is parsed alone, and the text to run is
    the blocks it accepts: only the broken examples are left out, and after one, those
    using a name that neither the `module` nor the kept examples define (it may
    have been the broken one's)."""
    try:
        return text, parser.get_examples(text, name)
    except ValueError:
        lines = text.split("\n")
    starts = [i for i, each in enumerate(lines) if _PROMPT.match(each)]
    runnable, examples, defined = [], [], _module_names(module)
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        block = "\n".join(lines[start:end])
        try:
            found = parser.get_examples(block, name)
        except ValueError:
            continue  # doctest cannot run this example, so no check is made of it
        names = _names(found)
        if names is None or not names[0] <= defined:
            continue
        defined |= names[1]
        for example in found:
            example.lineno += start
        runnable.append(block)
        examples += found
    return "\n".join(runnable), examples


_PROMPT = re.compile(r" *>>>")
"""A line starting an example, as doctest reads it (spaces only before `>>>`)."""


def _names(examples: list[doctest.Example]) -> tuple[set[str], set[str]] | None:
    """The names the examples use and those they assign; None if one does not parse."""
    used: set[str] = set()
    assigned: set[str] = set()
    for example in examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (used if isinstance(node.ctx, ast.Load) else assigned).add(node.id)
            elif isinstance(node, ast.arg | ast.alias | ast.FunctionDef | ast.ClassDef):
                bound = getattr(node, "asname", None) or getattr(node, "name", None)
                assigned.add(node.arg if isinstance(node, ast.arg) else bound.split(".")[0])
    return used - assigned, assigned


def _module_names(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level, and the builtins."""
    names = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            stored = (n for n in ast.walk(node) if isinstance(n, ast.Name))
            names |= {n.id for n in stored if isinstance(n.ctx, ast.Store)}
    return names
