def parse(rows):
    return [[1 if ch == "#" else 0 for ch in row] for row in rows]


def count_neighbours(grid, r, c):
    height, width = len(grid), len(grid[0])
    total = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr == 0 and dc == 0:
                continue
            nr, nc = r + dr, c + dc
            if 0 <= nr < height and 0 <= nc < width:
                total += grid[nr][nc]
    return total


def step(grid):
    new = []
    for r in range(len(grid)):
        row = []
        for c in range(len(grid[0])):
            n = count_neighbours(grid, r, c)
            alive = grid[r][c] == 1
            row.append(1 if (alive and n in (2, 3)) or (not alive and n == 3) else 0)
        new.append(row)
    return new


def render(grid):
    return ["".join("#" if cell else "." for cell in row) for row in grid]


start = parse(
    [
        ".#.....",
        "..#....",
        "###....",
        ".......",
        "....##.",
        "....##.",
    ]
)
print(f"neighbours of (1,1): {count_neighbours(start, 1, 1)}")
print(f"neighbours of (5,6): {count_neighbours(start, 5, 6)}")
grid = start
for generation in range(1, 4):
    grid = step(grid)
    print(f"gen {generation}: alive={sum(map(sum, grid))}")
for line in render(grid):
    print(line)
