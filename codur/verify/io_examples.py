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
after it (`Output: 1 2 3` of a program) or in parentheses alone (`("Venus")`), a function
whose annotations name other than builtin types (`head: ListNode` written as a list), and
one that returns nothing (a generator, or code with no `return` of a value: it prints,
or sorts its argument in place; a stub to be written may be either) makes no claim.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from codur.verify.claims import CallClaim, is_literal, leading_literal, loose_tuple

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


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _parameters(function: Function) -> list[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _arguments(text: str, function: Function, named: bool = False) -> str | None:
    """The argument list `text` states for `function`, as Python (`arr=[1], k=3`), or
    None. Each named value must be a literal on its own (a `k = 3` inside a string value
    is no argument) and name a parameter that can be named (not a positional-only one);
    `named`: every argument must be named."""
    args = function.args
    parameters = [a.arg for a in (*args.args, *args.kwonlyargs)]
    positional = len(args.posonlyargs) + len(args.args)
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
    if not isinstance(tree, ast.Call) or len(tree.args) > positional:
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
    if value is None or not text.startswith(value) or loose_tuple(value):
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


def _returns(function: Function) -> bool:
    """It returns a value, or is a stub (a docstring, `pass`, `...`, a raise): not a
    generator, nor code that only prints or changes its arguments in place."""
    body = function.body
    if ast.get_docstring(function, clean=False) is not None:
        body = body[1:]
    stub = all(
        isinstance(n, ast.Pass | ast.Raise)
        or isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Constant)
        for n in body
    )
    own = list(_own_nodes(body))
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own):
        return False
    return stub or any(isinstance(n, ast.Return) and n.value is not None for n in own)


_NESTED = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of `body`, not those of the functions, lambdas and classes it defines."""
    todo: list[ast.AST] = [n for n in body if not isinstance(n, _NESTED)]
    while todo:
        node = todo.pop()
        yield node
        todo += [c for c in ast.iter_child_nodes(node) if not isinstance(c, _NESTED)]


def io_claims(docstring: str, function: Function, path: str, origin: str) -> list[CallClaim]:
    """The claims of the Input/Output pairs in `docstring` of `function` (in `path`)."""
    claims = []
    if not _plain(function) or not _returns(function):
        return claims
    pairs = [
        *((_arguments(m[1], function), _output(m[2])) for m in _PAIR.finditer(docstring)),
        *(
            (_arguments(m[1], function, named=True), _output(m[2], (".",)))
            for m in _PROSE.finditer(docstring)
        ),
    ]
    for arguments, expected in pairs:
        if arguments is not None and expected is not None:
            call = f"{function.name}({arguments})"
            claims.append(CallClaim(path, call, expected, "==", origin))
    return claims
