"""Print a shop receipt with aligned columns."""

CART = [
    ("coffee beans", 2, 11.5),
    ("milk", 3, 1.09),
    ("croissant", 4, 1.75),
    ("jam", 1, 3.2),
]
TAX_RATE = 0.08

print(f"{'item':<14}{'qty':>4}{'amount':>10}")
subtotal = 0.0
for name, qty, price in CART:
    amount = qty * price
    subtotal += amount
    print(f"{name:<14}{qty:>4}{amount:>10.2}")
tax = subtotal * TAX_RATE
print("-" * 28)
print(f"{'subtotal':<18}{subtotal:>10.2f}")
print(f"{'tax':<18}{tax:>10.2f}")
print(f"{'total':<18}{subtotal + tax:>10.2f}")
