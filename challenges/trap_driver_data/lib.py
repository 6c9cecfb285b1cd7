"""Dependency graphs: node -> the nodes it points to."""


def has_cycle(graph):
    """True when following the arrows of the directed `graph` from some node can lead
    back to that node."""
    seen = set()

    def visit(node):
        if node in seen:
            return True
        seen.add(node)
        for successor in graph[node]:
            if visit(successor):
                return True
        return False

    for node in graph:
        if node not in seen and visit(node):
            return True
    return False
