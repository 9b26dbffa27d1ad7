#!/usr/bin/env bash
# Times the release binary on deterministic Havannah inputs (rule loading
# included), for the base rules and both variants:
#   small: T=200, S=50, M=100 random moves per case;
#   large: T=20, S=3000, M=10000: huge rings, long forks and bridges won by
#          the last move, a dense spiral, sparse stones, a long snake.
# Usage: benches/havannah.sh [RUNS]   (median of RUNS runs, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release -q
target=${CARGO_TARGET_DIR:-target}
bin=$target/release/arbiter
dir=$target/bench
mkdir -p "$dir"
for set in small large; do
  [ -s "$dir/havannah-$set.txt" ] || python3 benches/gen_havannah.py "$set" 2012 > "$dir/havannah-$set.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for set in small large; do
  for rules in rules/havannah.rules rules/havannah/official-ring.rules rules/havannah/four-edge-fork.rules; do
    times=$dir/havannah-$set.times
    for _ in $(seq "$runs"); do
      /usr/bin/time -f "%e %U %S %M" "$bin" run "$rules" "$dir/havannah-$set.txt" 2>&1 >/dev/null | tail -1
    done > "$times"
    printf '%-6s %-38s wall %ss  cpu %ss  maxrss %s KB\n' "$set" "$rules" \
      "$(awk '{print $1}' "$times" | median)" "$(awk '{print $2+$3}' "$times" | median)" "$(awk '{print $4}' "$times" | median)"
  done
done
