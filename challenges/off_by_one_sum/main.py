"""Print the running totals of a week of step counts."""


def running_totals(values):
    totals = []
    current = 0
    for i in range(len(values) - 1):
        current += values[i]
        totals.append(current)
    return totals


steps = [4200, 6100, 3900, 8800, 7000, 5300, 9100]
for day, total in enumerate(running_totals(steps), start=1):
    print(f"day {day}: {total}")
