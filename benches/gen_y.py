#!/usr/bin/env python3
"""Deterministic inputs for the game of Y: `gen_y.py SET SEED`.

SET `small`: T=200 cases, S=12, M=50 random distinct cells each.
SET `large`: T=200 cases, S=3000, M=10000 (the spec's largest), built to be
hard for the core:
  - Ys: three arms from an inner cell to the three sides (monotone random
    walks), placed in random order with isolated padding stones, completed
    by the last move or by a stone in the middle of the moves;
  - two arms only (touching two sides: no Y, a long group);
  - dense random blobs (many merges, usually no Y);
  - sparse random stones (no Y).
Every case has exactly M moves on the board, no repeats.
"""
import random
import sys

# Neighbours of (r, c) on the triangle.
NB = [(0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1)]


def on(s, r, c):
    return 1 <= c <= r <= s


def pad(rng, s, cells, m):
    """Pads `cells` to m moves with random cells not next to anything taken."""
    taken = set(cells)
    out = list(cells)
    while len(out) < m:
        r = rng.randint(1, s)
        c = rng.randint(1, r)
        if (r, c) in taken or any((r + dr, c + dc) in taken for dr, dc in NB):
            continue
        taken.add((r, c))
        out.append((r, c))
    return out


def arm(rng, s, start, side):
    """A monotone walk from `start` to side `left`, `right` or `bottom`:
    every step brings it one closer."""
    steps = {"left": [(0, -1), (-1, -1)], "right": [(-1, 0), (0, 1)], "bottom": [(1, 0), (1, 1)]}[side]
    done = {"left": lambda r, c: c == 1, "right": lambda r, c: c == r, "bottom": lambda r, c: r == s}[side]
    r, c = start
    out = []
    while not done(r, c):
        for dr, dc in rng.sample(steps, 2):
            if on(s, r + dr, c + dc):
                r, c = r + dr, c + dc
                break
        out.append((r, c))
    return out


def large_case(rng, kind, s, m):
    if kind in ("y-last", "y-middle", "two-arms"):
        r0 = rng.randint(s // 2, s - s // 6)
        c0 = rng.randint(r0 // 4, 3 * r0 // 4)
        sides = ["left", "right", "bottom"]
        if kind == "two-arms":
            sides = rng.sample(sides, 2)
        body = [(r0, c0)]
        for side in sides:
            body += arm(rng, s, (r0, c0), side)
        body = list(dict.fromkeys(body))
        if kind == "two-arms":
            moves = pad(rng, s, body, m)
            rng.shuffle(moves)
            return moves
        last = body.pop(rng.randrange(1, len(body)))
        moves = pad(rng, s, body + [last], m)
        padding = moves[len(body) + 1 :]
        if kind == "y-last":
            first = body + padding
            rng.shuffle(first)
            return first + [last]
        k = rng.randrange(len(padding) // 3, 2 * len(padding) // 3)
        first = body + padding[:k]
        rng.shuffle(first)
        return first + [last] + padding[k:]
    if kind == "blob":
        r, c = 2 * s // 3, s // 3
        seen = {(r, c)}
        out = [(r, c)]
        while len(out) < m:
            dr, dc = rng.choice(NB)
            if on(s, r + dr, c + dc):
                r, c = r + dr, c + dc
                if (r, c) not in seen:
                    seen.add((r, c))
                    out.append((r, c))
        rng.shuffle(out)
        return out
    return pad(rng, s, [], m)  # sparse


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "large"
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 2024)
    out = []
    if which == "small":
        t, s, m = 200, 12, 50
        cells = [(r, c) for r in range(1, s + 1) for c in range(1, r + 1)]
        out.append(str(t))
        for _ in range(t):
            out.append(f"{s} {m}")
            out += [f"{r} {c}" for r, c in rng.sample(cells, m)]
    else:
        t, s, m = 200, 3000, 10000
        kinds = ["y-last", "two-arms", "y-middle", "blob", "sparse"]
        out.append(str(t))
        for i in range(t):
            moves = large_case(rng, kinds[i % len(kinds)], s, m)
            assert len(moves) == m and len(set(moves)) == m and all(on(s, r, c) for r, c in moves)
            out.append(f"{s} {m}")
            out += [f"{r} {c}" for r, c in moves]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
