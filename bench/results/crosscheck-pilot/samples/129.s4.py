from heapq import heappush, heappop, heapreplace
from collections import defaultdict

def minPath(grid, k):
    N = len(grid)
    directions = [(0, 1), (1, 0), (-1, 0), (0, -1)]
    queue = [(0, k, (0, 0))]
    visited = defaultdict(lambda: float('inf'))
    visited[(0, 0)] = 0

    while queue:
        dist, steps, (i, j) = heappop(queue)
        if steps == 0:
            return [grid[i][j]]

        for di, dj in directions:
            ni, nj = i + di, j + dj
            if 0 <= ni < N and 0 <= nj < N and visited[(ni, nj)] > dist + 1:
                visited[(ni, nj)] = dist + 1
                heappush(queue, (dist + 1, steps - 1, (ni, nj)))

    return []
