#!/usr/bin/env bash
# Times the release binary on 1,000,000 deterministic random Get Straight
# deals (rule loading included), and rule-file load + check alone.
# Usage: benches/get_straight.sh [RUNS]   (median of RUNS runs, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release -q
bin=target/release/arbiter
data=target/bench/get_straight-1M.txt
mkdir -p target/bench
[ -s "$data" ] || python3 benches/gen_get_straight.py 1000000 2026 > "$data"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_runs() { # prints "wall user+sys maxrss_kb" per run
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1
  done
}
echo "== 1,000,000 deals (run, rules loaded each time), $runs runs"
time_runs "$bin" run rules/get_straight.rules "$data" > target/bench/gs.times
echo "wall   median: $(awk '{print $1}' target/bench/gs.times | median) s"
echo "cpu    median: $(awk '{print $2+$3}' target/bench/gs.times | median) s"
echo "maxrss median: $(awk '{print $3}' target/bench/gs.times >/dev/null; awk '{print $4}' target/bench/gs.times | median) KB"
echo "== arbiter check rules/get_straight.rules (load + check + table build), $runs runs"
time_runs "$bin" check rules/get_straight.rules > target/bench/gs-check.times
echo "wall   median: $(awk '{print $1}' target/bench/gs-check.times | median) s"
