"""Examples written as `Input:` / `Output:` pairs (the style of programming-puzzle
statements), read as call claims:

    Input: arr = [-3, -4, 5], k = 3          ->  maximum(arr=[-3, -4, 5], k=3) == [-4, -3, 5]
    Output: [-4, -3, 5]

and in prose, each example on one line, every argument named (HumanEval/78, 94, 112, 133,
142):

    For s = "abcde", c = "ae", the result should be ('bcd', False)
                                             ->  reverse_delete(s="abcde", c="ae") == ...

The input is the arguments: either `name = value` or `name : value` for parameters of
the function (in any order, separated by commas or white space, across lines), or
literal positional arguments (`Input: [4,2,3]`); each value a literal on its own. The
output is the literal alone on the line after `Output:` (or before a `# comment`). An
input that names something not a parameter or is not literals, an output with more
after it (`Output: 1 2 3` of a program), or a function whose annotations name other
than builtin types (`head: ListNode` written as a list) makes no claim.
"""

from __future__ import annotations

import ast
import re

from codur.verify.claims import CallClaim, is_literal, leading_literal

_PAIR = re.compile(r"\bInput\s*:\s*(.*?)\n\s*Output\s*:[ \t]*([^\n]*)", re.DOTALL)
_PROSE = re.compile(
    r"\bFor\s+([^\n]*?)[\s,]*\bthe\s+(?:output|result)\s+(?:should|must)\s+be\s+([^\n]*)",
    re.IGNORECASE,
)
MAX_INPUT = 2000
"""Characters of an input tried as arguments."""
_BUILTIN_TYPES = {
    *("int", "float", "complex", "str", "bytes", "bool", "list", "dict", "tuple", "set"),
    *("frozenset", "None", "Any", "List", "Dict", "Tuple", "Set", "FrozenSet", "Optional"),
    *("Union", "Sequence", "Iterable", "Mapping", "typing", "collections", "abc"),
}


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _arguments(text: str, parameters: list[str], named: bool = False) -> str | None:
    """The argument list `text` states, as Python (`arr=[1], k=3`), or None. Each named
    value must be a literal on its own (a `k = 3` inside a string value is no argument);
    `named`: every argument must be named."""
    text = text.strip()
    if not text or len(text) > MAX_INPUT:
        return None
    names = "|".join(re.escape(p) for p in sorted(parameters, key=len, reverse=True))
    marks = list(re.finditer(rf"(?<![\w.])({names})\s*[:=](?!=)\s*", text)) if names else []
    if marks and marks[0].start() == 0:
        parts = []
        for mark, after in zip(marks, [*marks[1:], None], strict=True):
            value = text[mark.end() : after.start() if after else len(text)].strip().rstrip(",;")
            if not _is_literal_text(value):
                return None
            parts.append(f"{mark[1]}={value}")
        call = ", ".join(parts)
    elif named:
        return None
    else:
        call = text
    try:
        tree = ast.parse(f"f({call})", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(tree, ast.Call) or len(tree.args) > len(parameters):
        return None
    values = [*tree.args, *(k.value for k in tree.keywords)]
    if any(k.arg not in parameters for k in tree.keywords) or not all(map(is_literal, values)):
        return None
    return call


def _is_literal_text(text: str) -> bool:
    try:
        return is_literal(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return False


def _output(text: str, ends: tuple[str, ...] = ("#",)) -> str | None:
    """The literal an `Output:` line states: alone on it, or before what starts with one
    of `ends` (a `# comment`; in prose, the sentence's `.`)."""
    text = text.strip()
    value = leading_literal(text)
    if value is None or not text.startswith(value):
        return None
    rest = text[len(value) :].strip()
    alone = not rest or rest.startswith(ends)
    return ast.unparse(ast.parse(value, mode="eval")) if alone else None


def _unquoted(note: ast.expr) -> ast.AST:
    """A string annotation (`"ListNode"`) as the expression it names."""
    if isinstance(note, ast.Constant) and isinstance(note.value, str):
        try:
            return ast.parse(note.value, mode="eval")
        except SyntaxError:
            return ast.Name(id="?")
    return note


def _plain(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Its annotations name only builtin types (a `head: ListNode` is not the list an
    example writes for it)."""
    notes = [*(a.annotation for a in _parameters(function)), function.returns]
    notes = [_unquoted(note) for note in notes if note is not None]
    names = {
        n.id if isinstance(n, ast.Name) else n.attr
        for note in notes
        for n in ast.walk(note)
        if isinstance(n, ast.Name | ast.Attribute)
    }
    return names <= _BUILTIN_TYPES


def io_claims(
    docstring: str, function: ast.FunctionDef | ast.AsyncFunctionDef, path: str, origin: str
) -> list[CallClaim]:
    """The claims of the Input/Output pairs in `docstring` of `function` (in `path`)."""
    claims = []
    if not _plain(function):
        return claims
    parameters = [a.arg for a in _parameters(function)]
    pairs = [
        *((_arguments(m[1], parameters), _output(m[2])) for m in _PAIR.finditer(docstring)),
        *(
            (_arguments(m[1], parameters, named=True), _output(m[2], (".",)))
            for m in _PROSE.finditer(docstring)
        ),
    ]
    for arguments, expected in pairs:
        if arguments is not None and expected is not None:
            call = f"{function.name}({arguments})"
            claims.append(CallClaim(path, call, expected, "==", origin))
    return claims
