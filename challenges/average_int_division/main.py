"""Print the average temperature of each city."""

READINGS = {
    "oslo": [3, 5, 4, 6],
    "rome": [18, 21, 19],
    "cairo": [30, 33, 31, 35, 32],
}


def mean(values):
    return sum(values) // len(values)


for city in sorted(READINGS):
    print(f"{city}: {mean(READINGS[city]):.2f}")
