#!/usr/bin/env bash
# Emulator benchmarks: panecast's term::Term against alacritty_terminal 0.26,
# in one run. Runs the criterion throughput bench and the memory bench in
# release mode and prints markdown tables:
#   payload | panecast MB/s | alacritty MB/s | ratio
# computed from criterion's target/criterion/<group>/<id>/new/estimates.json
# (mean point estimate; MB = 10^6 bytes, criterion's own console shows MiB/s),
# followed by the memory table.
#
# Targets (from the issue): ratio >= 1.0 on every payload, >= 1.5 on
# ascii_log; memory at most half of alacritty's.
#
# Usage: bench/emulator.sh [extra criterion args, e.g. a payload filter]
# Env: CARGO_TARGET_DIR (default: <repo>/target), PANECAST_SHARED (data dir),
#      BENCH_WARMUP / BENCH_MEASURE (seconds, default 1 / 3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
warmup="${BENCH_WARMUP:-1}"
measure="${BENCH_MEASURE:-3}"

# The benchmark ids this build has, in bench order (also builds the bench).
ids="$(cargo bench -q -p panecast-server --bench throughput -- --list "$@" | sed -n 's/: benchmark$//p')"

cargo bench -p panecast-server --bench throughput -- --noplot \
    --warm-up-time "$warmup" --measurement-time "$measure" "$@" >&2

memory="$(cargo bench -q -p panecast-server --bench memory)"

IDS="$ids" python3 - "$target/criterion" <<'PY'
import json, os, sys

root = sys.argv[1]
groups = []
for line in os.environ["IDS"].splitlines():
    group, _, _ = line.rpartition("/")
    if group and group not in groups:
        groups.append(group)

def safe(name):
    # criterion's make_filename_safe
    for ch in '?"/\\*<>:|^':
        name = name.replace(ch, "_")
    return name

def mbps(group, impl):
    base = os.path.join(root, safe(group), impl, "new")
    try:
        with open(os.path.join(base, "estimates.json")) as f:
            mean_ns = json.load(f)["mean"]["point_estimate"]
        with open(os.path.join(base, "benchmark.json")) as f:
            throughput = json.load(f)["throughput"]
    except (OSError, KeyError, ValueError):
        return None
    nbytes = throughput.get("Bytes") or throughput.get("BytesDecimal")
    if not nbytes or not mean_ns:
        return None
    return nbytes / mean_ns * 1e3  # bytes/ns -> MB/s

print("| payload | panecast MB/s | alacritty MB/s | ratio |")
print("|---|---:|---:|---:|")
misses = []
for group in groups:
    p, a = mbps(group, "panecast"), mbps(group, "alacritty")
    fmt = lambda v: "n/a" if v is None else f"{v:.1f}"
    ratio = p / a if p and a else None
    target = 1.5 if group == "ascii_log" else 1.0
    flag = ""
    if ratio is not None and ratio < target:
        flag = f" (< {target})"
        misses.append(group)
    print(f"| {group} | {fmt(p)} | {fmt(a)} | {'n/a' if ratio is None else f'{ratio:.2f}x'}{flag} |")
print()
print("Targets: >= 1.0x everywhere, >= 1.5x on ascii_log. "
      + (f"Missed: {', '.join(misses)}." if misses else "All met."))
PY

echo
echo "$memory"
