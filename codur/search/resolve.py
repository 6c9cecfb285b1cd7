"""What a call of the static call graph (`codur.search.calls`) may run: the definitions
its target names, looked up once per index in tables by qualified name and by last name.

A target is resolved as itself; as a method of a class (`Cart.add`, `shop.Cart.__len__`),
defined there or inherited from a base class in the code; as a name a package re-exports
(`pkg.f` defined in `pkg.mod.f`); a method of what a call returns (`pkg.parse().dump`)
as a method of the class the called function is annotated to return (or of the class
called); and, for a call on an object of unknown type (`*.name`, or a call's result of
unknown class) or a method no class in the code defines, as the few methods of that
name."""

from __future__ import annotations

from functools import cache

from codur.search.calls import Definition
from codur.search.index import CodeIndex

AMBIGUOUS = 3
"""A call on an object of unknown type (`x.rate()`) is followed only to at most this many
methods of that name."""
MRO_DEPTH = 8
"""Base classes followed from a class when looking up a method it inherits."""


class Resolver:
    """Resolves call targets over one state of `index`."""

    def __init__(self, index: CodeIndex) -> None:
        self.by_name: dict[str, list[Definition]] = {}
        self.by_tail: dict[str, list[Definition]] = {}
        for entry in index.files.values():
            for d in entry.defs:
                self.by_name.setdefault(d.qualname, []).append(d)
                self.by_tail.setdefault(d.qualname.rsplit(".", 1)[-1], []).append(d)
        self.targets = cache(self._targets)
        self.classes = cache(self._classes)

    def _targets(self, callee: str) -> list[Definition]:
        if callee.startswith("*."):
            return self.methods_named(callee[2:])
        if "()." in callee:  # a method of what a call returns
            made, _, attr = callee.rpartition("().")
            found = self.method(self.returned(made), attr)
            dunder = attr.startswith("__")  # len(rows) of any class: no guess
            return found or ([] if dunder else self.methods_named(attr))
        found = self.exact(callee)
        owner, _, attr = callee.rpartition(".")
        if not found and owner and (classes := self.classes(owner)):
            return self.method(classes, attr) or self.methods_named(attr)
        if not found and "." in callee:
            found = self.reexported(callee)
        return found

    def returned(self, callee: str) -> list[Definition]:
        """The classes of what calling `callee` returns: the class itself, or the class
        a function's return annotation names."""
        out = []
        for d in self.targets(callee):
            out += [d] if d.kind == "class" else self.classes(d.returns) if d.returns else []
        return list({d.qualname: d for d in out}.values())

    def exact(self, name: str) -> list[Definition]:
        """`name` itself; `src.pkg.f` (a package imported as `src.pkg`) as `pkg.f`."""
        return self.by_name.get(name) or self.by_name.get(name.removeprefix("src."), [])

    def reexported(self, name: str) -> list[Definition]:
        """`pkg.f` as a definition of `f` anywhere in package `pkg`."""
        package, short = name.split(".", 1)[0], name.rsplit(".", 1)[-1]
        return [d for d in self.by_tail.get(short, []) if d.qualname.startswith(package + ".")]

    def methods_named(self, attr: str) -> list[Definition]:
        """The methods named `attr`, if at most AMBIGUOUS classes define one."""
        found = [d for d in self.by_tail.get(attr, []) if "." in d.qualname]
        return found if len(found) <= AMBIGUOUS else []

    def _classes(self, name: str) -> list[Definition]:
        """The classes `name` may be: itself, re-exported, or (a name with no module, as
        a star import leaves it) the few classes of that name."""
        found = self.exact(name)
        if not found:
            found = self.reexported(name) if "." in name else self.by_tail.get(name, [])
        found = [d for d in found if d.kind == "class"]
        return found if len(found) <= AMBIGUOUS else []

    def method(self, classes: list[Definition], attr: str) -> list[Definition]:
        """`attr` as the classes define it or inherit it from their bases in the code,
        each class visited once (a base outside the code, `dict`, defines nothing)."""
        out: list[Definition] = []
        seen: set[str] = set()
        level = classes
        for _ in range(MRO_DEPTH):
            bases: list[Definition] = []
            for cls in level:
                if cls.qualname in seen:
                    continue
                seen.add(cls.qualname)
                own = self.by_name.get(f"{cls.qualname}.{attr}", [])
                out += own
                bases += [] if own else [b for n in cls.bases for b in self.classes(n)]
            if out or not bases:
                break
            level = bases
        return out
