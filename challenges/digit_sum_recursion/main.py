"""Print the digit sums and digital roots of some numbers."""


def digit_sum(n):
    return n % 10 + digit_sum(n // 10)


def digital_root(n):
    total = digit_sum(n)
    if total < 10:
        return total
    return digital_root(total)


for number in [7, 38, 493193, 99999999, 1000000]:
    print(f"{number}: digit sum {digit_sum(number)}, digital root {digital_root(number)}")
