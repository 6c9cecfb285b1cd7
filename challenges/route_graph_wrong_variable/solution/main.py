"""Shortest delivery routes from the depot over two-way roads (Dijkstra)."""

import heapq

ROADS = """
depot mill 7
depot bridge 4
bridge market 6
mill market 2
school depot 9
harbor school 3
market harbor 12
farm mill 5
farm school 4
tower tower 0
"""
DEPOT = "depot"


def parse_roads(text):
    """Build an adjacency map; every road can be driven both ways."""
    graph = {}
    for line in text.strip().splitlines():
        a, b, km = line.split()
        km = int(km)
        graph.setdefault(a, []).append((b, km))
        graph.setdefault(b, []).append((a, km))
    for town in graph:
        graph[town].sort()
    return graph


def shortest_paths(graph, source):
    """Return (dist, prev): distance to each reachable town and its predecessor."""
    dist = {source: 0}
    prev = {}
    heap = [(0, source)]
    while heap:
        d, town = heapq.heappop(heap)
        if d > dist[town]:
            continue
        for nxt, km in graph.get(town, []):
            nd = d + km
            if nxt not in dist or nd < dist[nxt]:
                dist[nxt] = nd
                prev[nxt] = town
                heapq.heappush(heap, (nd, nxt))
    return dist, prev


def route_to(prev, source, target):
    path = [target]
    while path[-1] != source:
        path.append(prev[path[-1]])
    return list(reversed(path))


def road_list(graph):
    """Each road once, as (km, a, b) with a <= b, shortest first."""
    roads = set()
    for a, edges in graph.items():
        for b, km in edges:
            roads.add((km, min(a, b), max(a, b)))
    return sorted(roads)


def unused_roads(graph, prev):
    """Roads between two different towns that no shortest route uses."""
    used = {(min(a, b), max(a, b)) for b, a in prev.items()}
    return [(km, a, b) for km, a, b in road_list(graph) if a != b and (a, b) not in used]


def main():
    graph = parse_roads(ROADS)
    dist, prev = shortest_paths(graph, DEPOT)
    print(f"{len(graph)} towns, {sum(len(v) for v in graph.values()) // 2} roads")
    for town in sorted(graph):
        if town == DEPOT:
            continue
        if town not in dist:
            print(f"{town:<7} unreachable")
            continue
        path = route_to(prev, DEPOT, town)
        print(f"{town:<7} {dist[town]:>3} km  via {' > '.join(path)}")
    farthest = max((d, t) for t, d in dist.items())
    print(f"farthest: {farthest[1]} ({farthest[0]} km)")
    spare = unused_roads(graph, prev)
    print(f"roads on no shortest route: {len(spare)}")
    for km, a, b in spare:
        print(f"  {a}-{b} {km} km")


main()
