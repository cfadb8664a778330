#!/usr/bin/env bash
# The recording overhead benchmark (issue 11): the flood of bench/flood.sh
# (`cat` of a 2,000,000-line file, about 140 MB, in a 104x59 terminal,
# timed from the session's creation to the child's exit) run by
# `panecast serve` without and with recording, in turn, round after round,
# so a change in the machine's load hits both alike. Each recording is
# checked (its size, that its last line parses) and deleted outside the
# timing. Prints every round, the medians and the ratios of wall time and
# of the server's CPU time (user + system), which the machine's load skews
# less. Target: recording adds at most 5% wall time.
#
# Environment: RUNS (default 5), FLOOD_LINES (default 2000000),
# CARGO_TARGET_DIR (default ./target).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "recording overhead (bench/record.sh)"
RUNS=${RUNS:-5}
FLOOD_LINES=${FLOOD_LINES:-2000000}
COLS=104
ROWS=59
bench_start
build_release flood_client

FILE=$WORK/flood.txt
echo "== generating $FLOOD_LINES lines in $FILE"
flood_file "$FILE" "$FLOOD_LINES"
echo "   $(wc -c < "$FILE") bytes"

# The server records into $WORK/recordings (its working directory's default).
mkdir -p "$WORK/run"
(cd "$WORK/run" && start_panecast "$BIN" "$WORK" && echo "$SERVER_PID $ADDR $TOKEN" > "$WORK/server")
read -r SERVER_PID ADDR TOKEN < "$WORK/server"
RECORDINGS=$WORK/run/recordings

# CPU seconds (user + system) the server has used.
cpu_of() {
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# flood RECORD: prints the wall seconds, appends the server's CPU seconds
# to $WORK/cpu.RECORD.
flood() {
    local before
    before=$(cpu_of "$SERVER_PID")
    FLOOD_RECORD=$1 "$BIN/examples/flood_client" "$ADDR" "$TOKEN" "$COLS" "$ROWS" cat "$FILE" 2>"$WORK/client.err" \
        || { cat "$WORK/client.err" >&2; exit 1; }
    echo "$(cpu_of "$SERVER_PID") - $before" | bc -l >> "$WORK/cpu.$1"
}

echo "== $RUNS rounds, each a flood without and with recording"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$WORK/plain"; : > "$WORK/recorded"; : > "$WORK/cpu.0"; : > "$WORK/cpu.1"
for i in $(seq "$RUNS"); do
    p=$(flood 0); r=$(flood 1)
    cast=$(ls "$RECORDINGS"/*.cast)
    size=$(wc -c < "$cast")
    tail -1 "$cast" | python3 -c 'import json, sys; json.loads(sys.stdin.read())' \
        || { echo "round $i: the recording's last line does not parse"; exit 1; }
    rm -f "$cast"
    echo "$p" >> "$WORK/plain"; echo "$r" >> "$WORK/recorded"
    printf '   round %d: plain %s s (cpu %.2f), recorded %s s (cpu %.2f, recording %d MB)\n' "$i" \
        "$p" "$(tail -1 "$WORK/cpu.0")" "$r" "$(tail -1 "$WORK/cpu.1")" "$((size / 1000000))"
done

PLAIN=$(median < "$WORK/plain")
RECORDED=$(median < "$WORK/recorded")
echo
echo "== medians of $RUNS runs ($FLOOD_LINES lines at ${COLS}x$ROWS)"
CPU0=$(median < "$WORK/cpu.0")
CPU1=$(median < "$WORK/cpu.1")
echo "   (cpu: user + system seconds of the server)"
printf '   without recording  %7.3f s   cpu %5.2f s\n' "$PLAIN" "$CPU0"
printf '   with recording     %7.3f s   cpu %5.2f s   wall %+.1f%% (target <= +5%%), cpu %+.1f%%\n' \
    "$RECORDED" "$CPU1" "$(echo "($RECORDED / $PLAIN - 1) * 100" | bc -l)" "$(echo "($CPU1 / $CPU0 - 1) * 100" | bc -l)"
