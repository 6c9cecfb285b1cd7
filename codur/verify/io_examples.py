"""Examples written as `Input:` / `Output:` pairs (the style of programming-puzzle
statements), read as call claims:

    Input: arr = [-3, -4, 5], k = 3          ->  maximum(arr=[-3, -4, 5], k=3) == [-4, -3, 5]
    Output: [-4, -3, 5]

The input is the arguments: either `name = value` or `name : value` for parameters of
the function (in any order, separated by commas or white space, across lines), or
literal positional arguments (`Input: [4,2,3]`). The output is the literal the line
after `Output:` starts with (a `# comment` or explanation after it is left out). An
input that names something not a parameter, or is not literals, or an output that is
not a literal, makes no claim.
"""

from __future__ import annotations

import ast
import re

from codur.verify.claims import CallClaim, is_literal, leading_literal

_PAIR = re.compile(r"\bInput\s*:\s*(.*?)\n\s*Output\s*:[ \t]*([^\n]*)", re.DOTALL)
MAX_INPUT = 2000
"""Characters of an input tried as arguments."""


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def _arguments(text: str, parameters: list[str]) -> str | None:
    """The argument list `text` states, as Python (`arr=[1], k=3`), or None."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_INPUT:
        return None
    names = "|".join(re.escape(p) for p in sorted(parameters, key=len, reverse=True))
    marks = list(re.finditer(rf"(?<![\w.])({names})\s*[:=](?!=)\s*", text)) if names else []
    if marks and marks[0].start() == 0:
        parts = []
        for mark, after in zip(marks, [*marks[1:], None], strict=True):
            value = text[mark.end() : after.start() if after else len(text)].strip(" ,;")
            parts.append(f"{mark[1]}={value}")
        call = ", ".join(parts)
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


def io_claims(
    docstring: str, function: ast.FunctionDef | ast.AsyncFunctionDef, path: str, origin: str
) -> list[CallClaim]:
    """The claims of the Input/Output pairs in `docstring` of `function` (in `path`)."""
    claims = []
    for match in _PAIR.finditer(docstring):
        arguments = _arguments(match[1], _parameters(function))
        expected = leading_literal(match[2].strip())
        if arguments is not None and expected is not None:
            call = f"{function.name}({arguments})"
            value = ast.unparse(ast.parse(expected, mode="eval"))  # without a `# comment`
            claims.append(CallClaim(path, call, value, "==", origin))
    return claims
