#!/usr/bin/env python3
"""Re-runs the commands shown in the docs and writes their real output.

    docs/refresh.py FILE.md ...

A block that starts with a line `$ arbiter ARGS` inside a ```text fence is
re-run with the debug binary (cargo build first) from the repository root,
and the rest of the block is replaced by what the command prints. The tests
that keep such blocks honest (tests/suite/cli_list_new_diff.rs for
docs/variants.md) fail until the docs show the real output again.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "debug", "arbiter")


def refresh(path):
    text = open(path).read()

    def run(m):
        command = m.group(1)
        args = command.split()[2:]
        out = subprocess.run([BIN] + args, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        return "```text\n" + command + "\n" + out.stdout + "```"

    new = re.sub(r"```text\n(\$ arbiter [^\n]*)\n.*?```", run, text, flags=re.S)
    if new != text:
        open(path, "w").write(new)
        print(f"refreshed {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    subprocess.run(["cargo", "build", "-q"], cwd=ROOT, check=True)
    for p in sys.argv[1:]:
        refresh(p)
