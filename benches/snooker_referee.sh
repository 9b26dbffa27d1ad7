#!/usr/bin/env bash
# Benchmark: arbiter on 100,000 random legal Snooker Referee frames (~39 MB).
#
#   benches/snooker_referee.sh [RUNS]
#
# The input is generated once (fixed seed, benches/snooker_referee_gen.py)
# into $CARGO_TARGET_DIR (or target/). Prints the median CPU (user+sys),
# wall and peak RSS of RUNS runs (default 5) of the release binary.
# Target: no slower than a hand-written C++ solution (1.1-1.5 s CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/arbiter
INPUT=$TARGET/bench-snooker_referee-100000.in
cargo build --release --quiet
if [ ! -s "$INPUT" ]; then
  python3 benches/snooker_referee_gen.py 100000 3719 > "$INPUT.tmp"
  mv "$INPUT.tmp" "$INPUT"
fi
echo "input: $(wc -c < "$INPUT") bytes, $(wc -l < "$INPUT") lines"
cpu=(); wall=(); rss=()
for _ in $(seq "$RUNS"); do
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$BIN" run rules/snooker_referee.rules "$INPUT" > /dev/null 2> "$TARGET/bench-time.txt"
    u=$(awk -F': ' '/User time/ {print $2}' "$TARGET/bench-time.txt")
    s=$(awk -F': ' '/System time/ {print $2}' "$TARGET/bench-time.txt")
    w=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$TARGET/bench-time.txt" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
    r=$(awk -F': ' '/Maximum resident/ {print $2}' "$TARGET/bench-time.txt")
    cpu+=("$(echo "$u + $s" | bc)"); wall+=("$w"); rss+=("$r")
  else
    start=$(date +%s.%N)
    "$BIN" run rules/snooker_referee.rules "$INPUT" > /dev/null
    end=$(date +%s.%N)
    wall+=("$(echo "$end - $start" | bc)")
  fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
[ ${#cpu[@]} -gt 0 ] && echo "cpu  median: $(median "${cpu[@]}") s  (runs: ${cpu[*]})"
echo "wall median: $(median "${wall[@]}") s  (runs: ${wall[*]})"
[ ${#rss[@]} -gt 0 ] && echo "peak RSS median: $(median "${rss[@]}") KiB"
exit 0
