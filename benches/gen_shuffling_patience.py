#!/usr/bin/env python3
"""Deterministic random Shuffling Patience decks: `gen_shuffling_patience.py N SEED`.

Each deck is the 52 cards in random order on 4 lines of 13; then `#`."""
import random, sys

def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 2026
    rng = random.Random(seed)
    deck = [r + s for r in "A23456789TJQK" for s in "SHCD"]
    out = []
    for _ in range(n):
        rng.shuffle(deck)
        for i in range(0, 52, 13):
            out.append(" ".join(deck[i:i + 13]))
        if len(out) >= 40000:
            sys.stdout.write("\n".join(out) + "\n")
            out = []
    if out:
        sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.write("#\n")

if __name__ == "__main__":
    main()
