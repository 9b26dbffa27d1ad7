#!/usr/bin/env python3
"""Deterministic Hex inputs: `gen_hex.py SET SEED`.

SET `small`: T=200 cases, S=11, M=60 random distinct cells each.
SET `large`: T=200 cases, S=3000, M=10000 (the spec's largest), built to be
hard for the core:
  - long chains from the top side to the bottom side (a random walk that
    moves down, left or right, up to 10000 stones) placed in random order,
    completed by the last move or by a stone in the middle of the moves;
  - rows from the left side to the right side (long groups, no chain);
  - dense random blobs (many merges, usually no chain);
  - sparse random stones (no chain).
Every case has exactly M moves on the board, no repeats.
"""
import random
import sys

# Neighbours of (r, c) on the rhombus.
NB = [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, 1), (1, -1)]


def on(s, r, c):
    return 1 <= r <= s and 1 <= c <= s


def pad(rng, s, cells, m):
    """Pads `cells` to m moves with random cells not next to anything taken."""
    taken = set(cells)
    out = list(cells)
    while len(out) < m:
        r, c = rng.randint(1, s), rng.randint(1, s)
        if (r, c) in taken or any((r + dr, c + dc) in taken for dr, dc in NB):
            continue
        taken.add((r, c))
        out.append((r, c))
    return out


def chain(rng, s, limit):
    """A connected walk from row 1 to row s (steps down, down-left, left or
    right), at most `limit` cells; None when it runs out of cells."""
    r, c = 1, rng.randint(1, s)
    path = [(r, c)]
    seen = {(r, c)}
    while r < s:
        x = rng.random()
        if x < 0.55:
            dr, dc = 1, 0
        elif x < 0.7:
            dr, dc = 1, -1
        elif x < 0.85:
            dr, dc = 0, -1
        else:
            dr, dc = 0, 1
        nr, nc = r + dr, c + dc
        if not on(s, nr, nc) or (nr, nc) in seen:
            continue
        r, c = nr, nc
        seen.add((r, c))
        path.append((r, c))
        if len(path) > limit:
            return None
    return path


def large_case(rng, kind, s, m):
    if kind in ("chain-last", "chain-middle"):
        path = None
        while path is None:
            path = chain(rng, s, m - 500)
        cut = rng.randrange(1, len(path) - 1)
        last = path.pop(cut)
        moves = pad(rng, s, path + [last], m)
        padding = moves[len(path) + 1 :]
        if kind == "chain-last":
            body = path + padding
            rng.shuffle(body)
            return body + [last]
        # The chain closes mid-case; the moves after it are still read.
        k = rng.randrange(len(padding) // 3, 2 * len(padding) // 3)
        body = path + padding[:k]
        rng.shuffle(body)
        return body + [last] + padding[k:]
    if kind == "rows":
        cells = []
        r = 2
        while len(cells) < m:
            cells += [(r, c) for c in range(1, s + 1)]
            r += 3
        cells = cells[:m]
        rng.shuffle(cells)
        return cells
    if kind == "blob":
        # A random walk that fills a compact region in the middle.
        r, c = s // 2, s // 2
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
        t, s, m = 200, 11, 60
        cells = [(r, c) for r in range(1, s + 1) for c in range(1, s + 1)]
        out.append(str(t))
        for _ in range(t):
            out.append(f"{s} {m}")
            out += [f"{r} {c}" for r, c in rng.sample(cells, m)]
    else:
        t, s, m = 200, 3000, 10000
        kinds = ["chain-last", "rows", "chain-middle", "blob", "sparse"]
        out.append(str(t))
        for i in range(t):
            moves = large_case(rng, kinds[i % len(kinds)], s, m)
            assert len(moves) == m and len(set(moves)) == m and all(on(s, r, c) for r, c in moves)
            out.append(f"{s} {m}")
            out += [f"{r} {c}" for r, c in moves]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
