#!/usr/bin/env python3
"""Scaling over every core: wall time with `--jobs` 1, 2, 4, 8 and every
core, and by default, on each game's large input and on inputs eight
times larger (8,000,000 Get Straight and video poker deals, 800,000
patience decks, 8,000 House of Cards cases; 400,000 Snooker frames, four
times).

    benches/scaling.py [--bin PATH] [RUNS] [GAME ...]

Builds the release binary (unless `--bin PATH` names another), generates
the inputs deterministically into target/bench/ (the generators of
benches/table.py, fixed seeds), checks that every `--jobs` prints what
`--jobs 1` prints, then times them RUNS times (default 5), interleaved,
and prints one row per input: the median wall time of each, and the
default's speed-up over `--jobs 1` (issue 30 asks at least 8 on 16
cores). CPU time is printed beside the default's wall time: more cores
also cost more processor time (start-up of threads, cold caches).
Meant for a machine of many cores; on two it shows little.
"""
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import table  # noqa: E402

# The inputs eight times larger: game, file, generator command, description.
LARGER = [
    ("get_straight", "gs-8M.txt", ["gen_get_straight.py", "8000000", "2026"], "8,000,000 deals"),
    ("video_poker", "vp-8M.txt", ["gen_video_poker.py", "8000000", "2026"], "8,000,000 deals"),
    ("shuffling_patience", "sp-800k.txt", ["gen_shuffling_patience.py", "800000", "2026"], "800,000 decks"),
    ("house_of_cards", "hoc-8000.txt", ["gen_house_of_cards.py", "8000", "13", "13", "2028"], "8,000 cases, M = 13"),
    # Four times: the generator takes a minute for these 157 MB.
    ("snooker_referee", "sr-400k.txt", ["snooker_referee_gen.py", "400000", "3719"], "400,000 frames"),
]


def main():
    args = sys.argv[1:]
    binary = table.BIN
    if args[:1] == ["--bin"]:
        binary = os.path.abspath(args[1])
        args = args[2:]
    else:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=table.ROOT, check=True)
    runs = int(args.pop(0)) if args and args[0].isdigit() else 5
    games = args or list(table.GAMES)
    os.makedirs(table.BENCH, exist_ok=True)
    inputs = [(g, table.GAMES[g][0], table.GAMES[g][1], table.GAMES[g][2]) for g in games]
    inputs += [x for x in LARGER if x[0] in games]
    cores = len(os.sched_getaffinity(0))
    jobs = sorted({n for n in (1, 2, 4, 8) if n <= cores} | {cores})
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{runs} interleaved runs per figure, medians of wall time in ms; {cores} processors (load before: {load})")
    print()
    print("| game | input | " + " | ".join(f"-j {n}" for n in jobs) + " | default (CPU) | default / -j 1 speed-up |")
    print("| --- | --- |" + " ---: |" * (len(jobs) + 2))
    for game, name, gen, what in inputs:
        rules = os.path.join(table.ROOT, "rules", f"{game}.rules")
        path = table.generated(name, gen)
        base = [binary, "run", rules]
        cmds = {n: base + ["--jobs", str(n)] for n in jobs}
        cmds["default"] = base
        want = table.output(cmds[1], path)
        if any(table.output(c, path) != want for c in cmds.values()):
            print(f"| {game} | {what} | outputs differ with --jobs |")
            continue
        times = {k: [] for k in cmds}
        for _ in range(runs):
            for k, c in cmds.items():
                times[k].append(table.run(c, path))
        wall = {k: 1000 * statistics.median(t[1] for t in v) for k, v in times.items()}
        cpu = 1000 * statistics.median(t[0] for t in times["default"])
        cells = " | ".join(f"{wall[n]:.1f}" for n in jobs)
        print(f"| {game} | {what} | {cells} | {wall['default']:.1f} ({cpu:.0f}) | {wall[1] / wall['default']:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
