"""YAML read within bounds. An alias (`*a`) repeats a node by reference, so a few lines
(a "billion laughs") stand for billions of values, which any walk over the document (the
config's merge, its key lines, a tool's JSON result) then visits one by one; an alias
inside its own anchor never ends; deep nesting exhausts Python's recursion. Each of these
is a YAMLError here, found on the composed nodes (each visited once) before anything
walks the values."""

from __future__ import annotations

from typing import Any

import yaml

MAX_VALUES = 10_000
"""The most values (mappings, sequences, scalars, keys) a document may expand to: a
config file has a few hundred."""


class YamlTooLarge(yaml.YAMLError):
    """A document past the bounds: its message says which."""


def compose(text: str) -> yaml.Node | None:
    """The document's node tree, or YamlTooLarge (or another YAMLError)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is not None:
            _size(node, {}, set())
    except RecursionError:
        raise YamlTooLarge("it is nested too deep") from None
    return node


def safe_load(text: str) -> Any:
    """`yaml.safe_load(text)` for a document within the bounds; else YamlTooLarge. The
    values are built from the checked node tree, so the text is parsed once."""
    node = compose(text)
    if node is None:
        return None
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except RecursionError:
        raise YamlTooLarge("it is nested too deep") from None
    finally:
        loader.dispose()


def _size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """How many values `node` expands to (each node counted once per place it appears,
    computed once)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        raise YamlTooLarge("an alias refers to a node that holds it")
    open_nodes.add(key)
    if isinstance(node, yaml.MappingNode):
        children = [part for pair in node.value for part in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = node.value
    else:
        children = []
    total = 1 + sum(_size(child, sizes, open_nodes) for child in children)
    if total > MAX_VALUES:
        raise YamlTooLarge(
            f"it expands to more than {MAX_VALUES:,} values (aliases repeat what they name)"
        )
    open_nodes.discard(key)
    sizes[key] = total
    return total
