class Item:
    def __init__(self, sku, quantity, reorder_level, pack_size):
        self.sku = sku
        self.quantity = quantity
        self.reorder_level = reorder_level
        self.pack_size = pack_size

    def needs_restock(self):
        return self.quantity <= self.reorder_level

    def packs_to_order(self, target):
        missing = target - self.quantity
        if missing <= 0:
            return 0
        return (missing + self.pack_size - 1) // self.pack_size


def load(rows):
    items = {}
    for sku, quantity, reorder_level, pack_size in rows:
        items[sku] = Item(sku, quantity, reorder_level, pack_size)
    return items
