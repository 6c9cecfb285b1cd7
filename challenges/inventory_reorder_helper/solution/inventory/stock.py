"""Stock items and reorder rules."""

from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    on_hand: int
    reorder_point: int
    batch: int


def needs_reorder(item):
    """An item is reordered once its stock falls to the reorder point or below."""
    return item.on_hand <= item.reorder_point


def order_quantity(item, weeks, weekly_use):
    """Whole batches covering `weeks` of use on top of the reorder point.

    The order must bring stock to at least reorder_point + weeks * weekly_use,
    so a partial batch is rounded up to a full one.
    """
    shortfall = item.reorder_point + weeks * weekly_use - item.on_hand
    if shortfall <= 0:
        return 0
    batches = -(-shortfall // item.batch)
    return batches * item.batch


def stock_value(items, prices):
    return sum(item.on_hand * prices[item.sku] for item in items)
