#!/usr/bin/env python3
"""The benchmark table: every game against its hand-written C++ reference.

    benches/table.py [RUNS] [GAME ...]
    benches/table.py startup [RUNS] [RULES ...]
    benches/table.py small [RUNS]

Builds the release binary, generates each game's large input
deterministically (the generators in benches/, fixed seeds) into
target/bench/, checks that arbiter (by default and with `--jobs` 1, 2 and
every core) and the reference print the same output, then times them RUNS
times (default 5), interleaved, with benches/floor.rs (a minimal parser of
the input, built with rustc), and prints three tables. The ratio table, one
row per game: the medians of CPU time (user + system, all threads, from the
kernel's accounting) of arbiter's default run and of the reference, their
ratio, the CPU time of `--jobs 1` and its ratio to the reference's (per
core: the goal is at most 0.4), arbiter's wall time by default, with
`--jobs` set to every core and set to one, and both peak memories. The
scaling table: wall and CPU time with `--jobs` 1, 2 and every core (the
processors this process may use: run it under `taskset -c 0,1` for two),
by default, and the ratios of the issue's goals. The floor table: the CPU
time of the minimal parser and of `--jobs 1`, and their ratio. The ratios
of the goals are of medians, and also of the fastest of the runs: on a
shared machine, other work only ever adds time, more often to a run of two
threads (either may be delayed) than to one, and the fastest runs come
nearest to the idle machine the goals are set on. The references are
../shared/bench/GAME-ref; a game without one is timed alone.

    benches/table.py [--bin PATH] [--no-ref] [RUNS] [GAME ...]

`--bin PATH` times another build (no build is made: compare a commit
before and after); `--no-ref` prints the scaling table alone.

`small` times the small inputs instead (the small sets of the games'
own scripts in benches/, and a thousand deals, decks or frames of each
game with a generator): wall and CPU time with `--jobs` 1 and 2 and by
default, RUNS times each (default 21), interleaved, and the ratios to
`--jobs 1`; issue 30's goal: `--jobs N` never slower than `--jobs 1` in
wall time on any bundled benchmark input (threads start only once an
input promises enough work to repay them).

`startup` times start-up instead, for every bundled rule file (or the
ones given): `arbiter check FILE` and `arbiter run FILE` on an empty input
(an input error for most games: only loading, compiling and the first
read), RUNS times each (default 21), interleaved, with `arbiter --version`
as the floor of any process; CPU medians in microseconds. The goals
(issue 16): `check` under 5 ms, loading and compiling under 2 ms (the last
column: `check` less the floor, an upper bound). The binary is timed from
a copy, as `cargo install` would put it: the file the linker has just
written starts 0.1 to 0.4 ms slower per process on this machine (measured
against a byte-identical copy), which would hide what is measured here.
"""
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "target", "bench")
BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "arbiter")
REFS = os.path.join(ROOT, "..", "shared", "bench")

# game: (input file, generator command, description)
GAMES = {
    "get_straight": ("gs-1M.txt", ["gen_get_straight.py", "1000000", "2026"], "1,000,000 deals"),
    "video_poker": ("vp-1M.txt", ["gen_video_poker.py", "1000000", "2026"], "1,000,000 deals"),
    "shuffling_patience": ("sp-100k.txt", ["gen_shuffling_patience.py", "100000", "2026"], "100,000 decks"),
    "snooker_referee": ("sr-100k.txt", ["snooker_referee_gen.py", "100000", "3719"], "100,000 frames"),
    "havannah": ("hav-large.txt", ["gen_havannah.py", "large", "2012"], "20 cases, side 3000, 10,000 moves"),
    "hex": ("hex-large.txt", ["gen_hex.py", "large", "2012"], "large set, side 3000"),
    "y": ("y-large.txt", ["gen_y.py", "large", "2012"], "large set, side 3000"),
    "house_of_cards": ("hoc-1000.txt", ["gen_house_of_cards.py", "1000", "13", "13", "2028"], "1,000 cases, M = 13"),
}


def run(cmd, stdin_path, must_succeed=True):
    """CPU seconds (user + system, all threads) and wall seconds of one run,
    from the kernel's own accounting of the finished process (microsecond
    resolution, where GNU time prints hundredths)."""
    with open(stdin_path, "rb") as inp, open(os.devnull, "wb") as null:
        actions = [(os.POSIX_SPAWN_DUP2, inp.fileno(), 0), (os.POSIX_SPAWN_DUP2, null.fileno(), 1),
                   (os.POSIX_SPAWN_DUP2, null.fileno(), 2)]
        start = time.monotonic()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - start
    if status != 0 and must_succeed:
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
    return usage.ru_utime + usage.ru_stime, wall


def peak(cmd, stdin_path):
    """Peak KiB of one run, through GNU time: a child spawned from this
    process would count this process's own memory in its peak."""
    with open(stdin_path, "rb") as inp:
        res = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdin=inp, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, check=True)
    return float(res.stderr.decode().split()[-1])


def output(cmd, stdin_path):
    with open(stdin_path, "rb") as inp:
        return subprocess.run(cmd, stdin=inp, capture_output=True, check=False).stdout


# The small inputs: (rule file, input file, generator command, description).
SMALL = [
    ("get_straight", "gs-1000.txt", ["gen_get_straight.py", "1000", "2026"], "1,000 deals"),
    ("video_poker", "vp-1000.txt", ["gen_video_poker.py", "1000", "2026"], "1,000 deals"),
    ("shuffling_patience", "sp-1000.txt", ["gen_shuffling_patience.py", "1000", "2026"], "1,000 decks"),
    ("snooker_referee", "sr-1000.txt", ["snooker_referee_gen.py", "1000", "3719"], "1,000 frames"),
    ("havannah", "havannah-small.txt", ["gen_havannah.py", "small", "2012"], "small set"),
    ("hex", "hex-small.txt", ["gen_hex.py", "small", "2024"], "small set"),
    ("y", "y-small.txt", ["gen_y.py", "small", "2024"], "small set"),
    ("house_of_cards", "hoc-100-m5-7.txt", ["gen_house_of_cards.py", "100", "5", "7", "2029"], "100 cases, M = 5 to 7"),
    ("house_of_cards", "hoc-200-m5-13.txt", ["gen_house_of_cards.py", "200", "5", "13", "2027"],
     "200 cases, M = 5 to 13"),
]


def small(args):
    runs = int(args.pop(0)) if args and args[0].isdigit() else 21
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    os.makedirs(BENCH, exist_ok=True)
    cases = [(game, what, os.path.join(ROOT, "rules", f"{game}.rules"), generated(name, gen))
             for game, name, gen, what in SMALL]
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "arbiter")
        shutil.copy2(BIN, binary)
        flags = {"-j 1": ["--jobs", "1"], "-j 2": ["--jobs", "2"], "default": []}
        times = {(c[3], f): [] for c in cases for f in flags}
        for _ in range(runs):
            for _, _, rules, path in cases:
                for f, extra in flags.items():
                    times[(path, f)].append(run([binary, "run", rules] + extra, path))
    print(f"{runs} interleaved runs per figure, medians; {len(os.sched_getaffinity(0))} processors "
          f"(load before: {load}); CPU is user + system of all threads")
    print()
    print("| game | input | -j 1 wall / CPU ms | -j 2 wall / CPU ms | default wall / CPU ms "
          "| -j 2 / -j 1 wall | default / -j 1 wall |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for game, what, _, path in cases:
        med = {f: [1000 * statistics.median(t[i] for t in times[(path, f)]) for i in (1, 0)] for f in flags}
        cell = lambda f: f"{med[f][0]:.2f} / {med[f][1]:.2f}"
        one = med["-j 1"][0]
        print(f"| {game} | {what} | {cell('-j 1')} | {cell('-j 2')} | {cell('default')} "
              f"| {med['-j 2'][0] / one:.2f} | {med['default'][0] / one:.2f} |", flush=True)


def startup(args):
    runs = int(args.pop(0)) if args and args[0].isdigit() else 21
    files = args or sorted(glob.glob(os.path.join(ROOT, "rules", "*.rules"))) + sorted(
        glob.glob(os.path.join(ROOT, "rules", "*", "*.rules")))
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "arbiter")
        shutil.copy2(BIN, binary)
        startup_table(binary, runs, files)


def startup_table(binary, runs, files):
    floor_cmd = [binary, "--version"]
    cmds = [floor_cmd]
    for f in files:
        cmds += [[binary, "check", f], [binary, "run", f, os.devnull]]
    times = {tuple(c): [] for c in cmds}
    for _ in range(runs):
        for c in cmds:
            times[tuple(c)].append(run(c, os.devnull, must_succeed=c[1] != "run")[0])
    us = lambda c: statistics.median(times[tuple(c)]) * 1e6
    floor = us(floor_cmd)
    print(f"{runs} interleaved runs per figure, medians of CPU time (user + system) in microseconds")
    print(f"`arbiter --version` (the floor of any process): {floor:.0f}")
    print()
    print("| rule file | check | run, empty input | check - floor |")
    print("| --- | ---: | ---: | ---: |")
    for f in files:
        check, empty = us([binary, "check", f]), us([binary, "run", f, os.devnull])
        name = os.path.relpath(f, ROOT)
        print(f"| {name} | {check:.0f} | {empty:.0f} | {check - floor:.0f} |", flush=True)


def build_floor():
    """benches/floor.rs, the minimal parser, built once (rustc -O) into
    target/bench/floor; None where there is no rustc."""
    src = os.path.join(ROOT, "benches", "floor.rs")
    out = os.path.join(BENCH, "floor")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    try:
        subprocess.run(["rustc", "-C", "opt-level=3", "--edition", "2021", src, "-o", out], check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out


def options(args):
    """`--bin PATH` (time that binary, built elsewhere: no build) and
    `--no-ref` (the scaling table alone), then RUNS and GAMEs."""
    opts = {"bin": None, "ref": True}
    rest = []
    while args:
        a = args.pop(0)
        if a == "--bin":
            opts["bin"] = os.path.abspath(args.pop(0))
        elif a == "--no-ref":
            opts["ref"] = False
        else:
            rest.append(a)
    opts["runs"] = int(rest.pop(0)) if rest and rest[0].isdigit() else 5
    opts["games"] = rest or list(GAMES)
    return opts


def bench_input(game):
    """The game's rule file and large input (generated once), or None."""
    name, gen, _ = GAMES[game]
    rules = os.path.join(ROOT, "rules", f"{game}.rules")
    generator = os.path.join(ROOT, "benches", gen[0])
    if not os.path.exists(rules) or not os.path.exists(generator):
        return None
    return rules, generated(name, gen)


def generated(name, gen):
    """target/bench/NAME, made once by the generator command `gen` (a
    script in benches/ and its arguments)."""
    path = os.path.join(BENCH, name)
    if not os.path.exists(path):
        with open(path + ".tmp", "wb") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "benches", gen[0])] + gen[1:], stdout=f, check=True)
        os.replace(path + ".tmp", path)
    return path


def main():
    args = sys.argv[1:]
    if args and args[0] == "startup":
        return startup(args[1:])
    if args and args[0] == "small":
        return small(args[1:])
    opts = options(args)
    binary = opts["bin"] or BIN
    if not opts["bin"]:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    os.makedirs(BENCH, exist_ok=True)
    # The processors this process may run on (`taskset` narrows them).
    cores = len(os.sched_getaffinity(0))
    runs = opts["runs"]
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{runs} interleaved runs per figure, medians; {cores} processors (load before: {load}); "
          "CPU is user + system of all threads")
    ratio_rows, scaling_rows, floor_rows = [], [], []
    floor = build_floor()
    for game in opts["games"]:
        what = GAMES[game][2]
        found = bench_input(game)
        if not found:
            ratio_rows.append(f"| {game} | {what} | (no rule file or generator yet) | | | | | | |")
            continue
        rules, path = found
        ours = [binary, "run", rules]
        jobs = {1: ours + ["--jobs", "1"], 2: ours + ["--jobs", "2"], cores: ours + ["--jobs", str(cores)]}
        ref = os.path.join(REFS, f"{game}-ref")
        has_ref = opts["ref"] and os.access(ref, os.X_OK)
        want = output(ours, path)
        if any(output(cmd, path) != want for cmd in jobs.values()):
            ratio_rows.append(f"| {game} | {what} | outputs differ with --jobs | | | | | | |")
            continue
        if has_ref and want != output([ref], path):
            ratio_rows.append(f"| {game} | {what} | outputs differ from the reference | | | | | | |")
            continue
        a, r, fl = [], [], []
        j = {n: [] for n in jobs}
        for _ in range(runs):
            a.append(run(ours, path))
            if has_ref:
                r.append(run([ref], path))
            for n, cmd in jobs.items():
                j[n].append(run(cmd, path))
            if floor:
                fl.append(run([floor], path))
        med = lambda xs, i: statistics.median(x[i] for x in xs)
        low = lambda xs, i: min(x[i] for x in xs)
        if opts["ref"]:
            ratio = f"{med(a, 0) / med(r, 0):.2f}" if r and med(r, 0) > 0 else "-"
            per_core = f"{med(j[1], 0) / med(r, 0):.2f}" if r and med(r, 0) > 0 else "-"
            ref_cpu = f"{med(r, 0):.4f}" if r else "-"
            ref_mem = f"{peak([ref], path) / 1024:.1f}" if r else "-"
            ratio_rows.append(
                f"| {game} | {what} | {med(a, 0):.4f} | {ref_cpu} | {ratio} | {med(j[1], 0):.4f} | {per_core} "
                f"| {med(a, 1):.3f} / {med(j[cores], 1):.3f} / {med(j[1], 1):.3f} "
                f"| {peak(ours, path) / 1024:.1f} / {ref_mem} |")
        cells = " | ".join(f"{med(j[n], 1):.3f} / {med(j[n], 0):.3f}" for n in jobs)
        every = f" {med(j[cores], 1) / med(j[1], 1):.2f} |" if cores > 2 else ""
        scaling_rows.append(
            f"| {game} | {what} | {cells} | {med(a, 1):.3f} / {med(a, 0):.3f} "
            f"| {med(j[2], 1) / med(j[1], 1):.2f} | {med(j[2], 0) / med(j[1], 0):.2f} "
            f"| {low(j[2], 1) / low(j[1], 1):.2f} / {low(j[2], 0) / low(j[1], 0):.2f} |{every}")
        if fl:
            floor_rows.append(f"| {game} | {med(fl, 0):.4f} | {med(j[1], 0):.4f} | {med(j[1], 0) / med(fl, 0):.2f} "
                              f"| {low(j[1], 0) / low(fl, 0):.2f} |")
        print(f"  {game} done", file=sys.stderr, flush=True)
    if opts["ref"]:
        print()
        print("| game | input | arbiter CPU s | reference CPU s | ratio | arbiter -j 1 CPU s | per core "
              "| arbiter wall s (default / -j %d / -j 1) | peak MiB (arbiter / reference) |" % cores)
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        print("\n".join(ratio_rows))
    print()
    print("Scaling: wall / CPU seconds with --jobs %s, and by default; the goals (issue 30): -j 2 at most "
          "0.6 of -j 1's wall and 1.15 of its CPU on 2 idle cores, -j N never slower than -j 1"
          % " and ".join(str(n) for n in sorted(set([1, 2, cores]))))
    print()
    columns = " | ".join(f"-j {n}" for n in jobs) if scaling_rows else "-j 1 | -j 2"
    every = f" -j {cores} / -j 1 wall |" if cores > 2 else ""
    print(f"| game | input | {columns} | default | -j 2 / -j 1 wall | -j 2 / -j 1 CPU "
          f"| fastest runs: wall / CPU |{every}")
    print("| --- | --- |" + " ---: |" * (len(jobs) + 4 + (cores > 2)))
    print("\n".join(scaling_rows))
    if floor_rows:
        print()
        print("Against the floor: CPU seconds of benches/floor.rs (a minimal parser: it reads and tokenises the "
              "input, nothing more) and of `--jobs 1`; the goal (issue 30): at most 2.5 for line-format games")
        print()
        print("| game | floor CPU s | arbiter -j 1 CPU s | ratio | fastest runs' ratio |")
        print("| --- | ---: | ---: | ---: | ---: |")
        print("\n".join(floor_rows))


if __name__ == "__main__":
    main()
