#!/usr/bin/env bash
# Times the release binary on deterministic inputs for rules/GAME.rules
# (GAME: hex or y; rule loading included), made by benches/gen_GAME.py:
#   small: T=200 small boards, random moves;
#   large: T=200, S=3000, M=10000 (the specs' largest): long connections
#          won by the last move or mid-case, near misses, dense blobs,
#          sparse stones.
# Usage: benches/connection.sh GAME [RUNS]   (median of RUNS runs, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
game=${1:?GAME: hex or y}
runs=${2:-7}
cargo build --release -q
target=${CARGO_TARGET_DIR:-target}
bin=$target/release/arbiter
dir=$target/bench
mkdir -p "$dir"
for set in small large; do
  [ -s "$dir/$game-$set.txt" ] || python3 "benches/gen_$game.py" "$set" 2024 > "$dir/$game-$set.txt"
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for set in small large; do
  times=$dir/$game-$set.times
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$bin" run "rules/$game.rules" "$dir/$game-$set.txt" 2>&1 >/dev/null | tail -1
  done > "$times"
  printf '%-6s %-18s wall %ss  cpu %ss  maxrss %s KB\n' "$set" "rules/$game.rules" \
    "$(awk '{print $1}' "$times" | median)" "$(awk '{print $2+$3}' "$times" | median)" "$(awk '{print $4}' "$times" | median)"
done
