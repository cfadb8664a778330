#!/usr/bin/env bash
# The wait benchmark (issue 23: from output to the waiter's answer, target
# p99 < 5 ms): builds in release, starts `panecast serve` on a random
# loopback port and runs server/examples/wait_bench.rs against it. A
# session runs `cat`; each round opens POST .../wait for a new marker after
# the current revision, types the marker (POST .../input) on a second
# keep-alive connection, and times from the input's write to the wait's
# answer. Then WAITERS waits at once on one session: the server's CPU time
# while they wait (no polling), its RSS per wait, and the time from the
# marker they wait for to the last answer. Prints markdown table rows.
#
# Environment: ROUNDS (default 1000), WAITERS (1000), CARGO_TARGET_DIR
# (default ./target).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "wait benchmark (bench/wait.sh)"
ROUNDS=${ROUNDS:-1000}
WAITERS=${WAITERS:-1000}
bench_start
build_release wait_bench

# Every waiter is a connection of its own, all from one address.
printf '[limits]\nmax_connections = 4096\nmax_connections_per_address = 4096\n' > "$WORK/panecast.toml"
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"
start_panecast "$BIN" "$WORK" --config "$WORK/panecast.toml"
"$BIN/examples/wait_bench" "$ADDR" "$TOKEN" "$SERVER_PID" "$ROUNDS" "$WAITERS"
