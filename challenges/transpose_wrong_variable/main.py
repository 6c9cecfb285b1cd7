"""Rotate a small ASCII picture a quarter turn clockwise and print both."""

PICTURE = [
    "#....",
    "##...",
    "###..",
]


def transpose(grid):
    rows, cols = len(grid), len(grid[0])
    return ["".join(grid[r][c] for r in range(rows)) for c in range(rows)]


def rotate_clockwise(grid):
    return ["".join(reversed(line)) for line in transpose(grid)]


def show(title, grid):
    print(f"{title} ({len(grid)}x{len(grid[0])}):")
    for line in grid:
        print("  " + line)


show("original", PICTURE)
rotated = rotate_clockwise(PICTURE)
show("rotated", rotated)
filled = sum(line.count("#") for line in rotated)
print(f"filled cells: {filled}")
