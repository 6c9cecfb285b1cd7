"""Print which stock items to reorder and how many units to order."""

from inventory.stock import Item, needs_reorder, order_quantity, stock_value

ITEMS = [
    Item("A100", "bolts", 120, 150, 100),
    Item("A200", "nuts", 400, 300, 250),
    Item("B310", "washers", 75, 75, 60),
    Item("C020", "hinges", 12, 20, 24),
    Item("D001", "brackets", 33, 40, 10),
]
WEEKLY_USE = {"A100": 40, "A200": 90, "B310": 35, "C020": 7, "D001": 12}
PRICES = {"A100": 0.05, "A200": 0.03, "B310": 0.02, "C020": 1.80, "D001": 0.95}

print("reorder report (2 weeks cover)")
units = 0
for item in ITEMS:
    if needs_reorder(item):
        qty = order_quantity(item, 2, WEEKLY_USE[item.sku])
        units += qty
        print(f"  {item.sku} {item.name:<9} on hand {item.on_hand:>4}  order {qty:>4}")
    else:
        print(f"  {item.sku} {item.name:<9} on hand {item.on_hand:>4}  ok")
print(f"units to order: {units}")
print(f"stock value: {stock_value(ITEMS, PRICES):.2f}")
