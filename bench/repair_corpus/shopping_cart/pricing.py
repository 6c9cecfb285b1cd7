TAX_RATE = 0.08


def line_total(price_cents, quantity, bulk_threshold):
    total = price_cents * quantity
    if quantity >= bulk_threshold:
        total -= total // 10
    return total


def coupon_discount(subtotal, code):
    if code == "SAVE5" and subtotal >= 5000:
        return 500
    if code == "HALFSHIP":
        return 0
    if code.startswith("PCT"):
        return subtotal * int(code[3:]) // 100
    return 0


def format_cents(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100}.{cents % 100:02d}"
