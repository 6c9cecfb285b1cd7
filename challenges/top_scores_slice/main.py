"""Print the top three players of a tournament, best first."""

SCORES = {
    "ana": 1840,
    "bo": 2210,
    "chen": 1975,
    "dee": 2105,
    "eli": 1660,
    "fay": 2030,
    "gus": 1720,
}


def top_players(table, n):
    ranked = sorted(table.items(), key=lambda kv: kv[1], reverse=True)
    return ranked[:n - 1]


podium = top_players(SCORES, 3)
for place, (name, score) in enumerate(podium, start=1):
    print(f"{place}. {name} ({score})")
print(f"cut-off score: {podium[-1][1]}")
