#!/usr/bin/env bash
# Times the release binary on deterministic inputs for rules/y.rules (rule
# loading included), made by benches/gen_y.py:
#   small: T=200 small boards, random moves;
#   large: T=200, S=3000, M=10000 (the spec's largest): long connections
#          won by the last move or mid-case, near misses, dense blobs,
#          sparse stones.
# Usage: benches/y.sh [RUNS]   (median of RUNS runs, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release -q
target=${CARGO_TARGET_DIR:-target}
bin=$target/release/arbiter
dir=$target/bench
mkdir -p "$dir"
for set in small large; do
  [ -s "$dir/y-$set.txt" ] || python3 benches/gen_y.py "$set" 2024 > "$dir/y-$set.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for set in small large; do
  times=$dir/y-$set.times
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$bin" run rules/y.rules "$dir/y-$set.txt" 2>&1 >/dev/null | tail -1
  done > "$times"
  printf '%-6s %-18s wall %ss  cpu %ss  maxrss %s KB\n' "$set" rules/y.rules \
    "$(awk '{print $1}' "$times" | median)" "$(awk '{print $2+$3}' "$times" | median)" "$(awk '{print $4}' "$times" | median)"
done
