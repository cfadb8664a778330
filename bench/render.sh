#!/usr/bin/env bash
# Emulators timed as whole processes, as a user runs them: `panecast render`
# of each throughput payload (the vtebench files, ascii_log, cjk_emoji and
# two repeated recordings) against `whole alacritty` (server/benches/whole.rs),
# a program that feeds the same file to alacritty_terminal 0.26 and prints
# its screen. `whole pair` runs the two in turn, pair by pair, and reads
# each run's cpu time from the kernel's accounting (wait4), so the ratio
# holds when the machine's speed drifts.
#
# Prints a markdown table: payload | panecast cpu s | alacritty cpu s |
# speed-up (alacritty / panecast, medians of the paired cpu ratios) |
# the same from wall time; then names the payloads under issue 25's targets
# (1.5x on every payload, 3.5x on ascii_log) and exits 1 when one is.
#
# Usage: bench/render.sh [PAYLOAD ...]   (default: every payload)
# Env: RUNS (pairs per payload, default 10), CARGO_TARGET_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/bench/lib.sh"
provenance "whole-process render benchmark (bench/render.sh)"
bench_start
runs=${RUNS:-10}

# The bench build relinks target/release/panecast with the features the
# benchmarks' dependencies add, so it comes first and `cargo build
# --release` puts back the binary users run. Both programs are then timed
# from fresh copies side by side (a file the linker just wrote takes more
# page faults to start than a copy of it).
whole_built="$(cd "$ROOT" && bench_executable whole)"
build_release
cp "$whole_built" "$WORK/whole"
cp "$BIN/panecast" "$WORK/panecast"
whole="$WORK/whole"
"$whole" write "$WORK/payloads"

if (($#)); then
  payloads=("$@")
else
  mapfile -t payloads < <(cd "$WORK/payloads" && ls -- *.bin | sed 's/\.bin$//')
fi

echo "| payload | panecast cpu s | alacritty cpu s | speed-up (cpu) | speed-up (wall) |"
echo "|---|---:|---:|---:|---:|"
missed=()
for name in "${payloads[@]}"; do
  file="$WORK/payloads/$name.bin"
  read -r cols rows < "$WORK/payloads/$name.size"
  figures="$("$whole" pair "$runs" \
    "$WORK/panecast render --cols $cols --rows $rows $file" "$whole alacritty $file $cols $rows")"
  read -r a b cpu wall <<<"$figures"
  read -r up_cpu up_wall <<<"$(awk -v c="$cpu" -v w="$wall" 'BEGIN { printf "%.2f %.2f", 1 / c, 1 / w }')"
  echo "| $name | $a | $b | ${up_cpu}x | ${up_wall}x |"
  target=1.5
  [[ $name == ascii_log ]] && target=3.5
  if awk -v u="$up_cpu" -v t="$target" 'BEGIN { exit !(u < t) }'; then
    missed+=("$name (${up_cpu}x, target ${target}x)")
  fi
done
echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if ((${#missed[@]})); then
  echo "under target: ${missed[*]}"
  exit 1
fi
