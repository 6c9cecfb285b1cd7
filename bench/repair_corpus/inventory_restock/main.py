from stock import load

ROWS = [
    ("bolt", 40, 50, 25),
    ("nut", 150, 60, 50),
    ("washer", 60, 60, 100),
    ("screw", 5, 30, 12),
    ("hinge", 0, 4, 6),
]

SALES = [("bolt", 15), ("nut", 70), ("gear", 3), ("screw", 9), ("hinge", 2), ("nut", 1)]


def apply_sales(items, sales):
    missed = []
    for sku, amount in sales:
        try:
            item = items[sku]
        except KeyError:
            missed.append(sku)
            continue
        sold = min(amount, item.quantity)
        item.quantity -= sold
        if sold < amount:
            missed.append(f"{sku}:{amount - sold}")
    return missed


def plan_restock(items, target_factor):
    orders = {}
    for sku, item in items.items():
        if not item.needs_restock():
            continue
        packs = item.packs_to_order(item.reorder_level * target_factor)
        if packs:
            orders[sku] = packs
    return orders


items = load(ROWS)
missed = apply_sales(items, SALES)
print(f"missed sales: {', '.join(missed)}")
for sku in sorted(items):
    item = items[sku]
    flag = "LOW" if item.needs_restock() else "ok"
    print(f"{sku:<8}{item.quantity:>5}  {flag}")
orders = plan_restock(items, 2)
total_units = 0
for sku, packs in sorted(orders.items()):
    units = packs * items[sku].pack_size
    total_units += units
    print(f"order {sku}: {packs} pack(s) = {units} units")
print(f"total units ordered: {total_units}")
