#!/usr/bin/env bash
# Times the release binary on (a) 100 random cases with M = 13, (b) 200
# with M from 5 to 13 and (c) 1,000 with M = 13, and reports the search cost
# per M.
# Usage: benches/house_of_cards.sh [RUNS] (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release -q
bin=${CARGO_TARGET_DIR:-target}/release/arbiter
mkdir -p target/bench
python3 benches/gen_house_of_cards.py 100 13 13 2026 > target/bench/hoc-100-m13.txt
python3 benches/gen_house_of_cards.py 200 5 13 2027 > target/bench/hoc-200-m5-13.txt
python3 benches/gen_house_of_cards.py 1000 13 13 2028 > target/bench/hoc-1000-m13.txt
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for f in hoc-100-m13 hoc-200-m5-13 hoc-1000-m13; do
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$bin" run rules/house_of_cards.rules "target/bench/$f.txt" 2>&1 >/dev/null | tail -1
  done > "target/bench/$f.times"
  echo "== $f: wall $(awk '{print $1}' "target/bench/$f.times" | median) s, cpu $(awk '{print $2+$3}' "target/bench/$f.times" | median) s, maxrss $(awk '{print $4}' "target/bench/$f.times" | median) KB (medians of $runs)"
done
echo "== cost by M (20 cases each, one run)"
for m in 5 7 9 11 12 13; do
  python3 benches/gen_house_of_cards.py 20 $m $m 7 > target/bench/hoc-m$m.txt
  /usr/bin/time -f "M=$m: %e s wall, %U s user" "$bin" run rules/house_of_cards.rules "target/bench/hoc-m$m.txt" 2>&1 >/dev/null | tail -1
done
echo "== variants (100 cases each, one run)"
python3 benches/gen_house_of_cards.py 100 5 7 2029 > target/bench/hoc-100-m5-7.txt
for v in three-peaks:hoc-100-m5-7 monochrome-double:hoc-100-m13 five-peaks:hoc-100-m13; do
  /usr/bin/time -f "${v%%:*}: %e s wall, %U s user, %M KB" "$bin" run "rules/house_of_cards/${v%%:*}.rules" "target/bench/${v#*:}.txt" 2>&1 >/dev/null | tail -1
done
