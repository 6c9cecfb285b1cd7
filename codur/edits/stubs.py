"""Functions that are not implemented yet: a body of placeholders (a docstring, `pass`,
`...`, `raise NotImplementedError`) other than a lone `pass`; not the methods of a
Protocol, an ABC or a class the file subclasses, nor abstract methods or overloads (there
an empty body is the design). A file of such stubs is a task to implement, not a bug to
fix: the prompt for it asks for the bodies (codur.agents.prompting).
"""

from __future__ import annotations

import ast

from codur.edits.spans import parse


def _is_placeholder(statement: ast.stmt) -> bool:
    """A statement that holds no behaviour: a docstring or other constant, `pass`, or a
    `raise NotImplementedError`."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return True  # a docstring, `...`
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Only placeholders, and one that says "to do": a docstring, `...` or a raise (a
    lone `pass` is as often a deliberate no-op)."""
    if not all(_is_placeholder(s) for s in node.body):
        return False
    return not all(isinstance(s, ast.Pass) for s in node.body)


def _abstract(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Decorated as an abstract method or an overload: an empty body is its meaning."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in {"abstractmethod", "abstractproperty", "overload"}:
            return True
    return False


def _base_names(node: ast.ClassDef) -> set[str]:
    """The names of a class's bases (`Protocol[T]` is Protocol, `abc.ABC` is ABC)."""
    names = set()
    for base in node.bases:
        base = base.value if isinstance(base, ast.Subscript) else base
        names.add(base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", ""))
    return names


def unimplemented(source: str) -> list[str]:
    """Qualified names (`f`, `Class.method`) of the functions in `source` whose body is
    only placeholders, in file order; [] for a source that does not parse."""
    try:
        tree = parse(source)
    except SyntaxError:
        return []
    found: list[str] = []
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    defined = {c.name for c in classes}
    subclassed = {  # a class of the file that another one of it extends
        b.id
        for c in classes
        for b in c.bases
        if isinstance(b, ast.Name) and b.id in defined and b.id != c.name
    }

    def visit(body: list[ast.stmt], prefix: str, in_protocol: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                # a Protocol's, an ABC's or a base class's empty methods are its design
                interface = bool(_base_names(node) & {"Protocol", "ABC"})
                visit(node.body, f"{prefix}{node.name}.", interface or node.name in subclassed)
            elif (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and _stub(node)
                and not in_protocol
                and not _abstract(node)
            ):
                found.append(prefix + node.name)

    visit(tree.body, "", False)
    return found
