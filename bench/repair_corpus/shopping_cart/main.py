from pricing import TAX_RATE, coupon_discount, format_cents, line_total


class Cart:
    def __init__(self):
        self.lines = {}

    def add(self, name, price_cents, quantity=1):
        if name in self.lines:
            old_price, old_qty = self.lines[name]
            self.lines[name] = (old_price, old_qty + quantity)
        else:
            self.lines[name] = (price_cents, quantity)

    def remove(self, name, quantity):
        price, qty = self.lines[name]
        if quantity >= qty:
            del self.lines[name]
        else:
            self.lines[name] = (price, qty - quantity)

    def subtotal(self, bulk_threshold):
        return sum(line_total(p, q, bulk_threshold) for p, q in self.lines.values())


def checkout(cart, code, shipping_cents):
    subtotal = cart.subtotal(5)
    discount = coupon_discount(subtotal, code)
    if subtotal - discount > 9000 or code == "HALFSHIP":
        shipping_cents = shipping_cents // 2
    tax = round((subtotal - discount) * TAX_RATE)
    return subtotal, discount, shipping_cents, tax


cart = Cart()
cart.add("pencil", 125, 6)
cart.add("notebook", 2899, 3)
cart.add("stapler", 1450)
cart.add("pencil", 125, 2)
cart.add("eraser", 75, 4)
cart.remove("eraser", 1)
cart.remove("stapler", 3)
for name, (price, qty) in sorted(cart.lines.items()):
    amount = line_total(price, qty, 5)
    print(f"{name:<10}{qty:>3} x {format_cents(price):>7} = {format_cents(amount)}")
for code in ["NONE", "SAVE5", "PCT15", "HALFSHIP"]:
    subtotal, discount, shipping, tax = checkout(cart, code, 999)
    total = subtotal - discount + shipping + tax
    print(
        f"{code:<9} sub={format_cents(subtotal)} disc={format_cents(-discount)} "
        f"ship={format_cents(shipping)} tax={format_cents(tax)} total={format_cents(total)}"
    )
