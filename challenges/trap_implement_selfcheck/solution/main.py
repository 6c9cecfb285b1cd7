"""Roman numerals for a clock face, with the module's own self-check."""


def roman_to_int(numeral):
    """The value of a Roman numeral such as "XIV" (14) or "MCMXC" (1990): add the value of
    each letter (I 1, V 5, X 10, L 50, C 100, D 500, M 1000), except that a letter written
    before a larger one is subtracted instead (IV is 4, XC is 90)."""
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    total = 0
    for letter, following in zip(numeral, numeral[1:] + " "):
        value = values[letter]
        total += -value if value < values.get(following, 0) else value
    return total


CASES = [
    ("one", "I", 1),
    ("three", "III", 3),
    ("four", "IV", 4),
    ("nine", "IX", 9),
    ("fourteen", "XIV", 14),
    ("ninety", "XC", 90),
    ("year", "MCMXC", 1990),
]


def main():
    for name, numeral, expected in CASES:
        try:
            actual = roman_to_int(numeral)
        except NotImplementedError:
            actual = "not implemented"
        if actual != expected:
            print(f"FAILED {name}: got {actual}, expected {expected}")
        else:
            print(f"PASSED {name}")


if __name__ == "__main__":
    main()
