from collections import deque

EDGES = [
    ("A", "B"),
    ("A", "C"),
    ("B", "D"),
    ("C", "D"),
    ("D", "E"),
    ("E", "F"),
    ("C", "G"),
    ("G", "F"),
    ("H", "I"),
]


def build_graph(edges):
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, []).append(a)
    for neighbours in graph.values():
        neighbours.sort()
    return graph


def bfs(graph, start):
    parents = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in graph[node]:
            if nxt in parents:
                continue
            parents[nxt] = node
            queue.append(nxt)
    return parents


def build_path(parents, node):
    if parents[node] is None:
        return [node]
    return build_path(parents, parents[node]) + [node]


def shortest_path(graph, start, goal):
    parents = bfs(graph, start)
    if goal not in parents:
        return None
    return build_path(parents, goal)


graph = build_graph(EDGES)
print(f"nodes: {len(graph)}, edges: {sum(len(v) for v in graph.values()) // 2}")
for start, goal in [("A", "F"), ("B", "G"), ("F", "A"), ("A", "I"), ("E", "E")]:
    path = shortest_path(graph, start, goal)
    if path is None:
        print(f"{start} -> {goal}: unreachable")
        continue
    print(f"{start} -> {goal}: {'-'.join(path)} ({len(path) - 1} hops)")
levels = {}
tree = bfs(graph, "A")
for node in tree:
    depth = len(build_path(tree, node)) - 1
    levels.setdefault(depth, []).append(node)
for depth in sorted(levels):
    print(f"depth {depth}: {', '.join(sorted(levels[depth]))}")
