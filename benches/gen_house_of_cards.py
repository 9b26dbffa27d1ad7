#!/usr/bin/env python3
"""Deterministic random House of Cards cases: `gen_house_of_cards.py N MLO MHI SEED`.

N cases; M uniform in MLO..MHI; the named player alternates; then `End`."""
import random, sys

def main():
    n, lo, hi, seed = (int(x) for x in (sys.argv[1:5] + ["100", "13", "13", "2026"][len(sys.argv[1:5]):]))
    rng = random.Random(seed)
    out = []
    for i in range(n):
        m = rng.randint(lo, hi)
        deck = [f"{r}{c}" for r in range(1, m + 1) for c in "RB"]
        rng.shuffle(deck)
        out += ["Axel" if i % 2 == 0 else "Birgit", str(m), " ".join(deck)]
    out.append("End")
    sys.stdout.write("\n".join(out) + "\n")

if __name__ == "__main__":
    main()
