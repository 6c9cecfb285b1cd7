"""Print revenue per region, highest first."""

SALES = [
    # region, product, units, unit price
    ("north", "lamp", 12, 24.0),
    ("south", "lamp", 30, 24.0),
    ("north", "desk", 3, 180.0),
    ("east", "chair", 20, 45.0),
    ("south", "chair", 4, 45.0),
    ("east", "lamp", 5, 24.0),
    ("north", "chair", 6, 45.0),
]

revenue = {}
units_sold = {}
for region, product, units, price in SALES:
    amount = units * price
    revenue[region] = revenue.get(region, 0.0) + amount
    units_sold[region] = units_sold.get(region, 0) + units

ranking = sorted(revenue, key=lambda r: (-revenue[r], r))
for rank, region in enumerate(ranking, start=1):
    print(f"{rank}. {region:<6} {revenue[region]:>9.2f} ({units_sold[region]} units)")
print(f"all regions: {sum(revenue.values()):.2f}")
