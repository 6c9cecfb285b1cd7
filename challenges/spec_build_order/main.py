"""Work out the order in which to build the targets of small projects."""

PROJECTS = {
    "webapp": """
        app: server assets
        server: config db
        assets: icons styles
        styles: config
        db: config
        tests: app db
    """,
    "tools": """
        cli: core parser
        parser: lexer
        docs: cli
        lexer:
        core:
        zip: core
    """,
    "broken": """
        a: b
        b: c
        c: a d
        d:
        e: d
        f: c
    """,
}


def parse(text):
    """Map each target to the set of targets it depends on."""
    deps = {}
    for line in text.strip().splitlines():
        target, _, rest = line.partition(":")
        deps[target.strip()] = set(rest.split())
    return deps


def build_order(deps):
    """Return a list of all targets in an order in which they can be built.

    `deps` maps a target to the set of targets it depends on. A name that only
    appears as a dependency is a target with no dependencies of its own. Every
    target must come after all of its dependencies. Whenever several targets
    could come next, take the one whose name sorts first alphabetically.

    If some targets can never be built because of a dependency cycle, raise
    ValueError with the message "cycle among: " followed by the names of all
    targets that cannot be built, sorted and joined by ", " (this includes
    targets that merely depend on a cycle).
    """
    raise NotImplementedError


def describe(name, deps):
    try:
        order = build_order(deps)
    except ValueError as exc:
        print(f"{name}: cannot build ({exc})")
        return
    print(f"{name}: {len(order)} targets")
    for step, target in enumerate(order, start=1):
        needs = ", ".join(sorted(deps.get(target, ()))) or "-"
        print(f"  {step:>2}. {target:<8} needs {needs}")


for name in sorted(PROJECTS):
    describe(name, parse(PROJECTS[name]))
