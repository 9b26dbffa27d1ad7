#!/usr/bin/env python3
"""Deterministic random video poker deals: `gen_video_poker.py N SEED`.

Each line is five distinct cards in the two-character notation, then `#`."""
import random, sys

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "SHDC"]
    out = sys.stdout
    lines = []
    for _ in range(n):
        lines.append(" ".join(rng.sample(deck, 5)))
        if len(lines) == 10000:
            out.write("\n".join(lines) + "\n")
            lines = []
    if lines:
        out.write("\n".join(lines) + "\n")
    out.write("#\n")

if __name__ == "__main__":
    main()
