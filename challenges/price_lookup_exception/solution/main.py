"""Price a shopping order; unknown items cost the default price."""

CATALOG = {"apple": 0.40, "bread": 2.10, "cheese": 5.75, "eggs": 3.20}
DEFAULT_PRICE = 2.50

ORDER = [
    "apple x6",
    "bread x1",
    "truffle x2",
    "eggs xtwo",
    "cheese x1",
    "kiwi x3",
]


def parse_line(line):
    name, sep, qty = line.rpartition(" x")
    if not sep:
        raise ValueError(f"no quantity in {line!r}")
    return name.strip(), int(qty)


def unit_price(name):
    try:
        return CATALOG[name], True
    except KeyError:
        return DEFAULT_PRICE, False


total = 0.0
unknown = []
for line in ORDER:
    try:
        name, qty = parse_line(line)
    except ValueError:
        print(f"skipped: {line}")
        continue
    price, known = unit_price(name)
    if not known:
        unknown.append(name)
    total += price * qty
    print(f"{name}: {qty} x {price:.2f} = {price * qty:.2f}")
print(f"total: {total:.2f}")
print(f"priced by default: {', '.join(unknown)}")
