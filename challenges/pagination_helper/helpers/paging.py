"""Split a list into numbered pages."""


def page_count(total, size):
    """Number of pages needed for `total` items, `size` per page."""
    return total // size


def get_page(items, number, size):
    """Items on page `number` (counted from 1)."""
    start = (number - 1) * size
    return items[start:start + size]
