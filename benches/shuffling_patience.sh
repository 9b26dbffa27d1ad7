#!/usr/bin/env bash
# Times the release binary on 100,000 deterministic random decks (rule
# loading included). Usage: benches/shuffling_patience.sh [RUNS] (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release -q
bin=${CARGO_TARGET_DIR:-target}/release/arbiter
data=target/bench/shuffling_patience-100k.txt
mkdir -p target/bench
[ -s "$data" ] || python3 benches/gen_shuffling_patience.py 100000 2026 > "$data"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for _ in $(seq "$runs"); do
  /usr/bin/time -f "%e %U %S %M" "$bin" run rules/shuffling_patience.rules "$data" 2>&1 >/dev/null | tail -1
done > target/bench/sp.times
echo "== 100,000 decks, $runs runs (medians)"
echo "wall:   $(awk '{print $1}' target/bench/sp.times | median) s"
echo "cpu:    $(awk '{print $2+$3}' target/bench/sp.times | median) s"
echo "maxrss: $(awk '{print $4}' target/bench/sp.times | median) KB"
echo "== same-rank (100,000 decks, one run)"
/usr/bin/time -f "%e s wall, %U s user, %M KB" "$bin" run rules/shuffling_patience/same-rank.rules "$data" 2>&1 >/dev/null | tail -1
