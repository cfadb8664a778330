#!/usr/bin/env bash
# Emulator benchmarks: panecast's term::Term against alacritty_terminal 0.26,
# in one run. Runs the criterion throughput bench and the memory bench in
# release mode and prints markdown tables:
#   payload | panecast MB/s | alacritty MB/s | ratio
# computed from criterion's target/criterion/<group>/<id>/new/estimates.json
# (mean point estimate; MB = 10^6 bytes, criterion's own console shows MiB/s),
# followed by the memory table.
#
# Targets (issue 9): ratio >= 1.5 on every payload, >= 3 on ascii_log;
# memory at most half of alacritty's.
#
# Regressions: each payload's ratio is compared with the one stored in
# bench/emulator-baseline.json (the ratio, not MB/s, so that the check holds
# on any machine); a payload whose ratio fell by more than the tolerance is
# named and the script exits with status 1. BENCH_SAVE_BASELINE=1 stores
# this run's figures as the new baseline instead.
#
# Usage: bench/emulator.sh [extra criterion args, e.g. a payload filter]
# Env: CARGO_TARGET_DIR (default: <repo>/target), PANECAST_SHARED (data dir),
#      BENCH_WARMUP / BENCH_MEASURE (seconds, default 1 / 3),
#      BENCH_TOLERANCE (fraction, default 0.10), BENCH_SAVE_BASELINE.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
warmup="${BENCH_WARMUP:-1}"
measure="${BENCH_MEASURE:-3}"

# The benchmark ids this build has, in bench order (also builds the bench).
ids="$(cargo bench -q -p panecast-term --bench throughput -- --list "$@" | sed -n 's/: benchmark$//p')"

cargo bench -p panecast-term --bench throughput -- --noplot \
    --warm-up-time "$warmup" --measurement-time "$measure" "$@" >&2

memory="$(cargo bench -q -p panecast-term --bench memory)"

status=0
IDS="$ids" python3 - "$target/criterion" "$root/bench/emulator-baseline.json" <<'PY' || status=$?
import json, os, sys

root, baseline_file = sys.argv[1], sys.argv[2]
tolerance = float(os.environ.get("BENCH_TOLERANCE", "0.10"))
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

try:
    with open(baseline_file) as f:
        baseline = json.load(f)
except (OSError, ValueError):
    baseline = {}

print("| payload | panecast MB/s | alacritty MB/s | ratio | baseline ratio |")
print("|---|---:|---:|---:|---:|")
misses, regressed, measured = [], [], {}
for group in groups:
    p, a = mbps(group, "panecast"), mbps(group, "alacritty")
    fmt = lambda v: "n/a" if v is None else f"{v:.1f}"
    ratio = p / a if p and a else None
    target = 3.0 if group == "ascii_log" else 1.5
    flag = ""
    if ratio is not None and ratio < target:
        flag = f" (< {target})"
        misses.append(group)
    before = baseline.get(group, {}).get("ratio")
    if ratio is not None:
        measured[group] = {"panecast_mbps": round(p, 1), "alacritty_mbps": round(a, 1),
                           "ratio": round(ratio, 3)}
        if before is not None and ratio < before * (1 - tolerance):
            regressed.append(f"{group} ({ratio:.2f}x, baseline {before:.2f}x)")
    shown = "n/a" if before is None else f"{before:.2f}x"
    print(f"| {group} | {fmt(p)} | {fmt(a)} | {'n/a' if ratio is None else f'{ratio:.2f}x'}{flag} | {shown} |")
print()
print("Targets: >= 1.5x everywhere, >= 3x on ascii_log. "
      + (f"Missed: {', '.join(misses)}." if misses else "All met."))
if os.environ.get("BENCH_SAVE_BASELINE"):
    baseline.update(measured)
    with open(baseline_file, "w") as f:
        json.dump(baseline, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"Baseline saved to {baseline_file}.")
elif regressed:
    print(f"REGRESSED (ratio down more than {tolerance:.0%} from the baseline): "
          + "; ".join(regressed) + ".")
    sys.exit(1)
else:
    print(f"No payload regressed beyond {tolerance:.0%} of the baseline ratio.")
PY

echo
echo "$memory"
exit "$status"
