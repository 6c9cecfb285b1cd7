"""What a call's target, as the call graph records it (`codur.search.calls.Call.callee`),
names: a qualified name (`pkg.mod.Class.method`), a method of an object of unknown type
(`*.attr`), or a method of what a call returns (`pkg.parse().attr`)."""

from __future__ import annotations


def matches(qualname: str, query: str) -> bool:
    """Whether `qualname` is what `query` names: the same, or its dotted tail
    (`load`, `Loader.load`, `pkg.mod.Loader.load`)."""
    query = query.strip().rstrip("()")
    return qualname == query or qualname.endswith("." + query)


def uncertain(callee: str) -> bool:
    """A call on an object whose class the call itself does not say (`*.attr`, or a
    method of what a call returns, `parse().attr`)."""
    return callee.startswith("*.") or "()." in callee


def callee_matches(callee: str, query: str) -> bool:
    """Whether a call's target is `query`; an uncertain one (`*.attr`, `f().attr`)
    matches any query whose last part is `attr`."""
    if uncertain(callee):
        return callee.rsplit(".", 1)[-1] == query.strip().rstrip("()").split(".")[-1]
    return matches(callee, query)
