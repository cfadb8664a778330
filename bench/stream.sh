#!/usr/bin/env bash
# The stream benchmarks (issue: the WebSocket stream): builds in release,
# generates the 2,000,000-line flood file (bench/lib.sh, as bench/flood.sh),
# starts `panecast serve` on a random loopback port and runs
# server/examples/stream_bench.rs against it:
#   wire bytes   a `cat` of the file at 104x59 with one viewer: bytes of the
#                WebSocket messages it received vs the bytes cat wrote,
#                frames compressed as the web client asks (target < 0.3%);
#   echo         1,000 keys sent one at a time to `cat` on a raw terminal,
#                each timed until a frame shows its echo (target p99 < 5 ms);
#   fan-out      the same flood with 1 viewer and with 200, alternating
#                rounds: time ratio (target <= 1.5x), whether every viewer
#                converged to the final screen, and the server's peak RSS
#                (VmHWM of the server process, reset before each flood).
# Prints a markdown table.
#
# Environment: FLOOD_LINES (default 2000000), VIEWERS (200), ROUNDS (3),
# KEYS (1000), CARGO_TARGET_DIR (default ./target).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "streaming benchmark (bench/stream.sh)"
FLOOD_LINES=${FLOOD_LINES:-2000000}
bench_start
build_release stream_bench

FILE=$WORK/flood.txt
echo "== generating $FLOOD_LINES lines in $FILE" >&2
flood_file "$FILE" "$FLOOD_LINES"
echo "   $(wc -c < "$FILE") bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

start_panecast "$BIN" "$WORK"
"$BIN/examples/stream_bench" "$ADDR" "$TOKEN" "$SERVER_PID" "$FILE"
