#!/usr/bin/env python3
"""Deterministic generator of random legal Snooker Referee frames.

usage: snooker_referee_gen.py FRAMES [SEED] > input

Every stroke only hits and pots balls that are on the table, "Play again"
follows fouls only, a lot line follows every tie on the last ball, and every
frame is played to its end. The simulation below tracks only what legality
needs (balls on the table, the phase, the scores for ties); the referee's
output is arbiter's job.
"""
import random
import sys

COLOURS = ["Yellow", "Green", "Brown", "Blue", "Pink", "Black"]
VALUE = {"Red": 1, "Yellow": 2, "Green": 3, "Brown": 4, "Blue": 5, "Pink": 6, "Black": 7, "White": 0}
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]


def frame(rng, out):
    a, b = rng.sample(NAMES, 2)
    players = [a, b]
    out.append(f"\n{a} {b}")
    reds = 15
    colours = set(COLOURS)
    after_red = False
    second = False
    scores = [0, 0]
    player = 0
    while True:
        last = second and reds == 0 and len(colours) == 1
        if second:
            on = [c for c in COLOURS if c in colours][:1]
        elif after_red:
            on = COLOURS
        else:
            on = ["Red"]
        table = (["Red"] if reds else []) + [c for c in COLOURS if c in colours]
        r = rng.random()
        if r < 0.03:
            first = None
        elif r < 0.90:
            first = rng.choice(on)
        else:
            first = rng.choice(table)
        potted = []
        if first is not None and rng.random() < 0.75:
            if first == "Red":
                n = 1 if rng.random() < 0.85 else min(reds, 2)
                potted += ["Red"] * n
            else:
                potted.append(first)
        if rng.random() < 0.04:
            potted.append("White")
        if rng.random() < 0.03:
            extra = rng.choice(table)
            if extra != "Red" and extra not in potted or extra == "Red" and potted.count("Red") < reds:
                potted.append(extra)
        out.append(" ".join([first or "None"] + potted))
        # Referee logic (enough to stay legal and to know when the frame ends).
        onset = set(on) if not (after_red and not second) else ({first} if first in COLOURS else {"Yellow"})
        objs = [p for p in potted if p != "White"]
        foul = (first is None or first not in onset or "White" in potted or any(p not in onset for p in objs)
                or len(set(objs)) > 1 and "Red" not in onset)
        if foul:
            pen = max([4, VALUE.get(first, 0)] + [VALUE[x] for x in onset] + [VALUE[p] for p in potted])
            scores[1 - player] += min(pen, 7)
        else:
            scores[player] += sum(VALUE[p] for p in objs)
        reds -= objs.count("Red")
        if second and not foul:
            for p in objs:
                colours.discard(p)
        if last and (foul or objs):
            if scores[0] != scores[1]:
                return
            colours = {COLOURS[-1]}
            player = rng.randrange(2)
            out.append(players[player])
            continue
        ends = foul or not objs
        if not second:
            was_after = after_red
            after_red = not ends and not was_after and "Red" in objs
            if not after_red and reds == 0:
                second = True
        if ends:
            player = 1 - player
            if foul and rng.random() < 0.1:
                out.append("Play again")
                player = 1 - player


def main():
    n = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 3719
    rng = random.Random(seed)
    w = sys.stdout.write
    w(f"{n}\n")
    for _ in range(n):
        out = []
        frame(rng, out)
        w("\n".join(out))
        w("\n")


main()
