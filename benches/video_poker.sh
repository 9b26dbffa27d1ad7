#!/usr/bin/env bash
# Times the release binary on video poker: 1,000,000 deterministic random
# Jacks or Better deals (rule loading and table building included) against
# the C++ reference when ../shared is there, and `arbiter analyze` of the
# three shipped pay tables (whole process).
# Usage: benches/video_poker.sh [RUNS]   (median of RUNS runs, default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
cargo build --release -q
bin=target/release/arbiter
data=target/bench/video_poker-1M.txt
mkdir -p target/bench
[ -s "$data" ] || python3 benches/gen_video_poker.py 1000000 2027 > "$data"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_runs() { # prints "wall user sys maxrss_kb" per run
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1
  done
}
echo "== 1,000,000 deals, $runs runs"
time_runs "$bin" run rules/video_poker.rules "$data" > target/bench/vp.times
echo "wall   median: $(awk '{print $1}' target/bench/vp.times | median) s"
echo "cpu    median: $(awk '{print $2+$3}' target/bench/vp.times | median) s"
echo "maxrss median: $(awk '{print $4}' target/bench/vp.times | median) KB"
if [ -x ../shared/tools/vs-ref ]; then
  ARBITER=$bin ../shared/tools/vs-ref video_poker rules/video_poker.rules "$data" "$runs"
fi
for rules in rules/video_poker.rules rules/video_poker/8-5.rules rules/video_poker/deuces-wild.rules; do
  echo "== arbiter analyze $rules, $runs runs"
  time_runs "$bin" analyze "$rules" > target/bench/vpa.times
  echo "wall   median: $(awk '{print $1}' target/bench/vpa.times | median) s"
  echo "cpu    median: $(awk '{print $2+$3}' target/bench/vpa.times | median) s"
done
