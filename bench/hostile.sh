#!/usr/bin/env bash
# The hostile-load benchmark (issue: trust, part 2): builds in release,
# starts `panecast serve` on a random loopback port and runs
# server/examples/hostile_bench.rs against it. Each attack of the trial
# (idle keep-alive sockets, hoarded ALiS sockets, non-reading viewers of a
# 1000x1000 screen, ALiS readers of a flood, closed replay upgrades, a
# DECRARA loop, regex searches and scrollback floods from a view link) runs
# for ATTACK_SECONDS while `/healthz` and a key's echo in a session are timed every
# 20 ms; then DELETE and SIGTERM are timed with a DECRARA loop running.
# Prints a markdown table: p99 of each probe, failed probes, peak RSS.
# Target: p99 under 50 ms everywhere, RSS bounded, DELETE < 1 s, exit < 5 s.
#
# Environment: ATTACK_SECONDS (each attack, default 5), SCALE (1 = the trial's
# numbers of sockets and viewers), CARGO_TARGET_DIR (default ./target).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "hostile-load benchmark (bench/hostile.sh)"
bench_start
build_release hostile_bench

# Recordings (for the replay attack) go to the work directory.
cd "$WORK"
start_panecast "$BIN" "$WORK"
"$BIN/examples/hostile_bench" "$ADDR" "$TOKEN" "$SERVER_PID"
# The benchmark ends with SIGTERM to the server: reap it.
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
