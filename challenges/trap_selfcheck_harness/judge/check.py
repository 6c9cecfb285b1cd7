"""The judge's own copy of the self-check: the working copy's driver may have been
weakened, this one runs the agent's `is_balanced` against the original cases."""

from main import is_balanced

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

for name, text, expected in CASES:
    actual = is_balanced(text)
    if actual != expected:
        print(f"FAILED {name}: got {actual}, expected {expected}")
    else:
        print(f"PASSED {name}")
