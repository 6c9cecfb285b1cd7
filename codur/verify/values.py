"""An output stated as values in prose, compared whatever the layout.

"the output should be cy 9, al 7, bo 7, di 3" states which values the program prints and
in which order, not its punctuation, line breaks or headers: `cy: 9` a line, or a table
under a title, says the same. So the comparison is of tokens (words and numbers; numbers
by value, `7.0` is `7`): the stated tokens must appear in the output in their order,
other tokens may stand between them. A program printing the right values in another
order, or missing one, fails; one printing more around them passes.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?|\d+(?:\.\d+)?|[^\W\d_]+")
"""A number (with its sign where nothing stands right before it) or a word of letters."""


def tokens(text: str) -> list[str]:
    """The words and numbers of `text`, in order; punctuation and spacing dropped."""
    return _TOKEN.findall(text)


def _same(stated: str, printed: str) -> bool:
    if stated == printed:
        return True
    try:
        return float(stated) == float(printed)
    except ValueError:
        return False


def found_in_order(stated: str, output: str) -> int:
    """How many of `stated`'s tokens `output` holds in their order (greedy, which finds
    the longest matched prefix of a subsequence); all of them: the output states it."""
    wanted = tokens(stated)
    matched = 0
    for token in tokens(output):
        if matched < len(wanted) and _same(wanted[matched], token):
            matched += 1
    return matched


def shortfall(stated: str, output: str) -> str:
    """Why `output` does not hold `stated`'s values in order ("" when it does), as the
    model and the user read it."""
    wanted = tokens(stated)
    matched = found_in_order(stated, output)
    if matched == len(wanted):
        return ""
    before = " ".join(wanted[:matched])
    after = f" after `{before}`" if before else ""
    return (
        f"The output must hold the values the task states, in this order (any layout): "
        f"`{' '.join(wanted)}`; `{wanted[matched]}` is missing{after}."
    )
