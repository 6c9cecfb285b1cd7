"""Print an order total after a percentage discount."""


def apply_discount(price, percent):
    return price - price * percent


items = [("notebook", 12.50, 3), ("pen", 1.20, 10), ("stapler", 8.99, 1)]
subtotal = sum(price * qty for _, price, qty in items)
print(f"subtotal: {subtotal:.2f}")
print(f"after 15% off: {apply_discount(subtotal, 15):.2f}")
