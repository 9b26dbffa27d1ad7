#!/usr/bin/env bash
# Times the release binary on six cards of 52 with exchanges, the card path
# by class under suit symmetry (src/engines/exchange/by_class.rs): one deal
# (the tables' building, whole process), 100,000 deterministic random deals
# (the per-deal cost is the difference over 100,000), and `arbiter analyze`.
# Usage: benches/six_card_draw.sh [RUNS]   (median of RUNS runs, default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release -q
bin=target/release/arbiter
rules=tests/fixtures/exchange/six-card-draw.rules
mkdir -p target/bench
one=target/bench/six-1.txt
many=target/bench/six-100k.txt
printf 'AS KS QS JS 3D 2C\n#\n' > "$one"
[ -s "$many" ] || python3 - "$many" <<'PY'
import random, sys
r = random.Random(2026)
cards = [a + b for a in "A23456789TJQK" for b in "SHDC"]
with open(sys.argv[1], "w") as f:
    for _ in range(100_000):
        f.write(" ".join(r.sample(cards, 6)) + "\n")
    f.write("#\n")
PY
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for what in "run $one" "run $many" "analyze"; do
  set -- $what
  cmd=$1; shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$bin" "$cmd" "$rules" "$@" 2>&1 >/dev/null | tail -1
  done > target/bench/six.times
  echo "== $cmd ${1:-}: wall $(awk '{print $1}' target/bench/six.times | median) s," \
    "cpu $(awk '{print $2+$3}' target/bench/six.times | median) s," \
    "maxrss $(awk '{print $4}' target/bench/six.times | median) KB (medians of $runs)"
done
