"""Assign letter grades to exam scores."""

BOUNDS = [(90, "A"), (80, "B"), (70, "C"), (60, "D")]


def letter(score):
    for bound, grade in BOUNDS:
        if score > bound:
            return grade
    return "F"


exam = [("iris", 90), ("jon", 79), ("kai", 80), ("lea", 59), ("max", 70), ("noa", 100), ("oli", 60)]
tally = {}
for name, score in exam:
    grade = letter(score)
    tally[grade] = tally.get(grade, 0) + 1
    print(f"{name}: {score} -> {grade}")
print("summary: " + ", ".join(f"{g}={tally[g]}" for g in sorted(tally)))
