#!/usr/bin/env python3
"""Checks that the README's two commands share every compiled crate.

`cargo run` builds the binary and its dependencies; `cargo test` builds those
again wherever a dev-dependency turns on a feature the normal build does not
have (a crate built with other features is another build). This script asks
cargo for both unit graphs (a nightly toolchain's `--unit-graph`) and lists
every unit of the run build that the test build compiles a second time with
other features (same crate, same profile settings). Build tools that only the
tests need (a dev-dependency's build script and its dependencies, compiled
with the build-script profile) are extra units, not second builds. Tests' own units (the crate built as a test, its
doctests) are expected and not listed.

Usage: python3 benches/shared-build.py   (from the repository root)
Exit 0 when nothing is built twice, 1 otherwise.
"""
import json
import subprocess
import sys


def units(args):
    cmd = ["cargo", "+nightly", *args, "--unit-graph", "-Z", "unstable-options"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr[-2000:])
    found = set()
    for u in json.loads(out.stdout)["units"]:
        profile = {k: v for k, v in u["profile"].items() if k != "name"}
        found.add((
            u["pkg_id"].split("#")[-1],
            u["target"]["name"],
            tuple(u["target"]["kind"]),
            u["mode"],
            tuple(sorted(u["features"])),
            json.dumps(profile, sort_keys=True),
            u["platform"] or "host",
        ))
    return found


def main():
    run = units(["build"])
    test = units(["test", "--no-run"])
    run_targets = {(u[0], u[1], u[2], u[3], u[5]) for u in run}
    twice = [
        u for u in sorted(test - run)
        if (u[0], u[1], u[2], u[3], u[5]) in run_targets and u[3] not in ("test", "doctest")
    ]
    print(f"cargo run: {len(run)} units; cargo test: {len(test)} units")
    scripts = [u for u in twice if u[1] == "build-script-build"]
    twice = [u for u in twice if u[1] != "build-script-build"]
    for u in scripts:
        print(f"note: {u[0]}'s build script compiled again with features {list(u[4])} "
              "(for a build tool only the tests use; seconds)")
    for u in twice:
        print(f"built twice: {u[0]} ({u[1]}, {u[3]}) with features {list(u[4])}")
    if twice:
        sys.exit(1)
    print("every unit of `cargo run` is shared with `cargo test`")


if __name__ == "__main__":
    main()
