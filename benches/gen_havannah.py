#!/usr/bin/env python3
"""Deterministic Havannah inputs: `gen_havannah.py SET SEED`.

SET `small`: T=200 cases, S=50, M=100 random distinct cells each.
SET `large`: T=20 cases, S=3000, M=10000, built to be hard for the core:
  - huge rings (a hexagonal loop of radius up to 1600, stones in random
    order, closed by the last move; and a compact spiral fill that
    never encloses an empty cell),
  - long forks (three arms from the centre to three sides, random order),
  - long bridges (corner to opposite corner, random order, with noise),
  - sparse random stones (usually `none`),
  - a long monotone snake placed in random order (no structure).
Every case has exactly M moves on the board, no repeats.
"""
import random
import sys

NB = [(1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1), (1, 0)]


def on(s, x, y):
    return 1 <= x <= 2 * s - 1 and 1 <= y <= 2 * s - 1 and abs(x - y) <= s - 1


def ring(cx, cy, r):
    """The cells at distance exactly r from (cx, cy), walked around."""
    x, y = cx + r * NB[4][0], cy + r * NB[4][1]
    out = []
    for d in range(6):
        for _ in range(r):
            out.append((x, y))
            x, y = x + NB[d][0], y + NB[d][1]
    return out


def line(a, b):
    """A lattice path from a to b (steps (1,1), (1,0), (0,1) and negatives)."""
    (x, y), (tx, ty) = a, b
    out = [(x, y)]
    while (x, y) != (tx, ty):
        dx, dy = (tx > x) - (tx < x), (ty > y) - (ty < y)
        if dx and dy and dx != dy:  # (1,-1) is not a step: go one axis first
            dy = 0
        x, y = x + dx, y + dy
        out.append((x, y))
    return out


def fill(rng, s, cells, m, avoid):
    """Pads `cells` to m moves with random cells far from everything else."""
    taken = set(cells) | set(avoid)
    out = list(cells)
    while len(out) < m:
        x, y = rng.randint(1, 2 * s - 1), rng.randint(1, 2 * s - 1)
        if not on(s, x, y) or (x, y) in taken:
            continue
        # Keep padding stones isolated so they never complete a structure.
        if any((x + dx, y + dy) in taken for dx, dy in NB):
            continue
        taken.add((x, y))
        out.append((x, y))
    return out


def late(rng, body, last, pad):
    """Body stones in random order, padding shuffled in, `last` last."""
    moves = body + pad
    rng.shuffle(moves)
    return moves + [last]


def large_case(rng, kind, s, m):
    c = s  # the centre is (S, S)
    if kind == "ring":
        r = min(1600, (m - 1) // 6)
        loop = ring(c, c, r)
        last = loop.pop(rng.randrange(len(loop)))
        pad = fill(rng, s, [], m - len(loop) - 1, loop + [last] + ring(c, c, r - 1) + ring(c, c, r + 1))
        return late(rng, loop, last, pad)
    if kind == "spiral":
        cells = [(c, c)]
        r = 1
        while len(cells) < m:
            cells += ring(c, c, r)
            r += 1
        return cells[:m]
    if kind == "fork":
        ends = [(1, (s + 1) // 2), (2 * s - 1, s + s // 2), ((s + 1) // 2, 1)]  # sides 0, 3, 5
        arms = []
        for e in ends:
            arms += line((c, c), e)[1:]
        arms = [(c, c)] + arms
        arms = list(dict.fromkeys(arms))
        last = arms.pop(len(arms) // 3)
        pad = fill(rng, s, [], max(0, m - len(arms) - 1), arms + [last])
        return late(rng, arms, last, pad)[:m]
    if kind == "bridge":
        path = line((1, 1), (2 * s - 1, 2 * s - 1))
        last = path.pop(rng.randrange(1, len(path) - 1))
        pad = fill(rng, s, [], m - len(path) - 1, path + [last])
        return late(rng, path, last, pad)
    if kind == "sparse":
        return fill(rng, s, [], m, [])
    # snake: a monotone random path (x and y never decrease) through the
    # middle of the board, 10000 stones placed in random order: one long
    # group built from many merges, no structure
    x, y = 400, 400
    out = [(x, y)]
    while len(out) < m:
        r = rng.random()
        dx, dy = (0, 1) if r < 0.45 else (1, 0) if r < 0.9 else (1, 1)
        if not on(s, x + dx, y + dy) or abs(x + dx - y - dy) > s // 2:
            dx, dy = 1, 1
        x, y = x + dx, y + dy
        out.append((x, y))
    rng.shuffle(out)
    return out


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "large"
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 2012)
    out = []
    if which == "small":
        t, s, m = 200, 50, 100
        cells = [(x, y) for x in range(1, 2 * s) for y in range(1, 2 * s) if on(s, x, y)]
        out.append(str(t))
        for _ in range(t):
            out.append(f"{s} {m}")
            out += [f"{x} {y}" for x, y in rng.sample(cells, m)]
    else:
        t, s, m = 20, 3000, 10000
        kinds = ["ring", "fork", "bridge", "spiral", "sparse", "snake"]
        out.append(str(t))
        for i in range(t):
            moves = large_case(rng, kinds[i % len(kinds)], s, m)
            assert len(moves) == m and len(set(moves)) == m and all(on(s, x, y) for x, y in moves)
            out.append(f"{s} {m}")
            out += [f"{x} {y}" for x, y in moves]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
