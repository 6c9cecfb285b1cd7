"""Dependency graphs: node -> the nodes it points to."""


def has_cycle(graph):
    """True when following the arrows of the directed `graph` from some node can lead
    back to that node."""
    done = set()
    on_path = set()

    def visit(node):
        if node in on_path:
            return True
        if node in done:
            return False
        on_path.add(node)
        for successor in graph[node]:
            if visit(successor):
                return True
        on_path.remove(node)
        done.add(node)
        return False

    return any(visit(node) for node in graph)
