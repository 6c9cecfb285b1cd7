"""The folder's functions and classes by name, and which of them code can call from the
words it uses outward (verify/calls.py)."""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable

from codur.verify.calls_index import Module


class CallGraph:
    """The folder's functions and classes by name: who calls what, from words outward."""

    def __init__(self, modules: dict[str, Module], aliases: dict[str, set[str]]) -> None:
        self.modules, self.aliases = modules, aliases
        self.functions: dict[str, list] = {}
        self.classes: dict[str, list] = {}
        for path, module in modules.items():
            for unit in module.functions:
                self.functions.setdefault(unit.name, []).append((path, unit))
            for cls in module.classes:
                self.classes.setdefault(cls.name, []).append((path, cls))

    def called(self, tests: Iterable[str], blocked: Collection[str] = ()) -> set[tuple[str, str]]:
        """(path, qualified name) of every function the tests can call, from the words
        they use (`tests`) outward; `blocked`: names the tests patched (a function or
        class of that name is never entered)."""
        words: set[str] = set()
        queue: deque[str] = deque()
        done: set[tuple[str, str]] = set()
        used_classes: set[tuple[str, str]] = set()

        def use(found: Iterable[str]) -> None:
            for word in found:
                if word not in words:
                    words.add(word)
                    queue.append(word)

        def call(path: str, unit) -> None:
            if (path, unit.qualname) not in done and unit.name not in blocked:
                done.add((path, unit.qualname))
                use(unit.words)

        def instantiate(path: str, cls) -> None:
            if (path, cls.qualname) in used_classes or cls.name in blocked:
                return
            used_classes.add((path, cls.qualname))
            for unit in self.modules[path].functions:
                if unit.owner == cls.qualname and (unit.implicit or unit.name in words):
                    call(path, unit)
            for base in cls.bases:  # a subclass's instances run its bases' methods
                for where, other in self.classes.get(base, ()):
                    instantiate(where, other)

        use(tests)
        for path, module in self.modules.items():
            for unit in module.functions:
                if unit.registered and unit.owner is None:
                    call(path, unit)
            for cls in module.classes:
                if cls.registered:
                    instantiate(path, cls)
        while queue:
            word = queue.popleft()
            use(self.aliases.get(word, ()))
            for path, cls in self.classes.get(word, ()):
                instantiate(path, cls)
            for path, unit in self.functions.get(word, ()):
                if unit.owner is None or (path, unit.owner) in used_classes:
                    call(path, unit)
        return done
