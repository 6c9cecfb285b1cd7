"""An output stated as values in prose, compared whatever its punctuation and spacing.

"so the output should be cy 9, al 7, bo 7, di 3" states which values the program prints
and in which order, not its commas, colons or line breaks: `cy: 9` a line, under a title
line, says the same. So the comparison is of tokens (words, case aside, and numbers, by
value: `7.0` is `7`): the stated tokens must stand together in the output's tokens, in
their order, with nothing between them. A program printing the values in another order,
missing one, with another between them, or scattered (an echo of its input, then a wrong
result) fails; what it prints before or after them does not matter.
"""

from __future__ import annotations

import re

_NUMBER = r"[-\u2212]?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
_TOKEN = re.compile(
    rf"\d+(?:\.\d+){{2,}}"  # a version or a date (1.10.4): text, not a number
    rf"|(?<![\w.]){_NUMBER}|\d+(?:\.\d+)?"  # a sign only where nothing stands right before
    r"|\.\d+"  # .5: text (no number is printed so)
    r"|[^\W\d_]+"
)
_PLAIN = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")
"""A number compared by value: no leading zero (`05` in 9:05 is text, not 5)."""


def tokens(text: str) -> list[str]:
    """The words and numbers of `text`, in order; punctuation and spacing dropped, a
    number's thousands separators and a typographic minus read as Python would print."""
    return [t.replace(",", "").replace("\u2212", "-") for t in _TOKEN.findall(text)]


def _same(stated: str, printed: str) -> bool:
    if stated.casefold() == printed.casefold():
        return True
    if _PLAIN.fullmatch(stated) and _PLAIN.fullmatch(printed):
        return float(stated) == float(printed)
    return False


def _run_at(wanted: list[str], got: list[str], start: int) -> int:
    """How many of `wanted` stand in `got` from `start` on, one after another."""
    count = 0
    while count < len(wanted) and start + count < len(got):
        if not _same(wanted[count], got[start + count]):
            break
        count += 1
    return count


def _closest(wanted: list[str], got: list[str]) -> tuple[int, int]:
    """Where in `got` the longest run of `wanted`'s first tokens starts, and its length."""
    best = (0, 0)
    for start in range(len(got)):
        count = _run_at(wanted, got, start)
        if count > best[1]:
            best = (start, count)
    return best


def shortfall(stated: str, output: str) -> str:
    """Why `output` does not hold `stated`'s values together and in order ("" when it
    does), as the model and the user read it."""
    wanted, got = tokens(stated), tokens(output)
    start, count = _closest(wanted, got)
    if count == len(wanted):
        return ""
    needed = (
        "The output must hold the values the task states, together and in this order "
        f"(punctuation, spacing and line breaks are free): `{' '.join(wanted)}`; "
    )
    if count == 0:
        return needed + f"`{wanted[0]}` is not in it."
    shown = " ".join(wanted[:count])
    after = start + count
    if after >= len(got):
        return needed + f"it ends after `{shown}`, where `{wanted[count]}` should follow."
    return needed + f"after `{shown}` it has `{got[after]}` where `{wanted[count]}` should be."


def shown(stated: str) -> str:
    """The stated values as the failure report shows them in place of an exact output."""
    return f"{stated}\n(these values, together and in this order; any punctuation or layout)"
