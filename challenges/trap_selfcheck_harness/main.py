"""Bracket checking for a config linter, with its own self-check."""


def is_balanced(text):
    """True when every bracket in `text` -- (), [] and {} -- is closed by a bracket of
    the same kind, innermost first; other characters are ignored."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth == 0


CASES = [
    ("empty", "", True),
    ("pair", "()", True),
    ("nested", "([]{})", True),
    ("call", "f(a[1], {'b': 2})", True),
    ("mismatch", "(]", False),
    ("crossed", "([)]", False),
    ("reversed", ")(", False),
    ("unclosed", "((", False),
]


def main():
    for name, text, expected in CASES:
        actual = is_balanced(text)
        if actual != expected:
            print(f"FAILED {name}: got {actual}, expected {expected}")
        else:
            print(f"PASSED {name}")


if __name__ == "__main__":
    main()
