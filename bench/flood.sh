#!/usr/bin/env bash
# The flood benchmark (issue 3): `cat` of a 2,000,000-line file (about 70
# characters a line, about 140 MB) in a 104x59 terminal, timed from start to
# the child's exit, three ways:
#   bare      a minimal program that runs the cat in a pty and discards the
#             output (server/examples/pty_drain.rs): the floor;
#   panecast  `panecast serve` on a random loopback port: create the session
#             through the API, poll it until it has exited, read /screen once
#             (server/examples/flood_client.rs); no viewer;
#   tmux      a detached session of the same size running the same cat,
#             timed until the cat has finished.
# Runs them in turn, round after round, so a change in the machine's load
# hits all three alike. Prints every round, the medians, the ratios and
# panecast's peak RSS (VmHWM, reset before each run), and the CPU time each
# used, which the machine's load does not skew as much. Targets: panecast
# within 1.25x of bare, faster than tmux, peak RSS under 64 MiB.
#
# Environment: RUNS (default 5), FLOOD_LINES (default 2000000),
# CARGO_TARGET_DIR (default ./target).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "flood benchmark (bench/flood.sh)"
RUNS=${RUNS:-5}
FLOOD_LINES=${FLOOD_LINES:-2000000}
COLS=104
ROWS=59
TMUX_SOCKET=panecast-flood-$$
on_exit() {
    tmux -L "$TMUX_SOCKET" kill-server 2>/dev/null || true
}
bench_start
build_release pty_drain flood_client

if ! command -v tmux >/dev/null 2>&1; then
    echo "== installing tmux"
    if ! apt-get install -y tmux >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq tmux >/dev/null
    fi
fi

FILE=$WORK/flood.txt
echo "== generating $FLOOD_LINES lines in $FILE"
flood_file "$FILE" "$FLOOD_LINES"
echo "   $(wc -c < "$FILE") bytes"

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# CPU seconds (user + system, with reaped children) a process has used.
cpu_of() {
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15 + $16 + $17) / hz }' "/proc/$1/stat"
}

run_bare() {
    local TIMEFORMAT='%U %S'
    { time "$BIN/examples/pty_drain" "$COLS" "$ROWS" cat "$FILE" > "$WORK/bare.out" 2>/dev/null; } \
        2> "$WORK/bare.time"
    awk '{ printf "%.2f\n", $1 + $2 }' "$WORK/bare.time" >> "$WORK/bare.cpu"
    cat "$WORK/bare.out"
}

run_panecast() {
    local before
    echo 5 > "/proc/$SERVER_PID/clear_refs" 2>/dev/null || true  # resets VmHWM
    before=$(cpu_of "$SERVER_PID")
    "$BIN/examples/flood_client" "$ADDR" "$TOKEN" "$COLS" "$ROWS" cat "$FILE" 2>"$WORK/client.err" \
        || { cat "$WORK/client.err" >&2; exit 1; }
    echo "$(cpu_of "$SERVER_PID") - $before" | bc -l >> "$WORK/panecast.cpu"
    awk '/VmHWM/ { print $2 }' "/proc/$SERVER_PID/status" >> "$WORK/rss"
}

run_tmux() {
    local start before
    before=$(cpu_of "$TMUX_PID")
    start=$(now)
    tmux -L "$TMUX_SOCKET" new-session -d -s "flood$1" -x "$COLS" -y "$ROWS" \
        "cat '$FILE'; tmux -L '$TMUX_SOCKET' wait-for -S flood$1"
    tmux -L "$TMUX_SOCKET" wait-for "flood$1"
    echo "$(now) - $start" | bc -l | awk '{ printf "%.3f\n", $1 }'
    echo "$(cpu_of "$TMUX_PID") - $before" | bc -l >> "$WORK/tmux.cpu"
}

start_panecast "$BIN" "$WORK"
tmux -L "$TMUX_SOCKET" -f /dev/null new-session -d -s keep  # server start is not timed
TMUX_PID=$(tmux -L "$TMUX_SOCKET" display-message -p '#{pid}')
echo "== $RUNS rounds, each running bare, panecast and tmux $(tmux -V | cut -d' ' -f2) in turn"
echo "   load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for f in bare panecast tmux rss bare.cpu panecast.cpu tmux.cpu; do : > "$WORK/$f"; done
for i in $(seq "$RUNS"); do
    b=$(run_bare); p=$(run_panecast); t=$(run_tmux "$i")
    [ -n "$b" ] && [ -n "$p" ] && [ -n "$t" ] || { echo "round $i failed"; exit 1; }
    echo "$b" >> "$WORK/bare"; echo "$p" >> "$WORK/panecast"; echo "$t" >> "$WORK/tmux"
    printf '   round %d: bare %s s (cpu %s), panecast %s s (cpu %.2f, peak RSS %d MiB), tmux %s s (cpu %.2f)\n' \
        "$i" "$b" "$(tail -1 "$WORK/bare.cpu")" "$p" "$(tail -1 "$WORK/panecast.cpu")" \
        "$(( $(tail -1 "$WORK/rss") / 1024 ))" "$t" "$(tail -1 "$WORK/tmux.cpu")"
done
echo "   panecast's last screen line: $(tail -1 "$WORK/client.err" | sed 's/.*: //')"
stop_panecast
tmux -L "$TMUX_SOCKET" kill-server

BARE=$(median < "$WORK/bare")
PANECAST=$(median < "$WORK/panecast")
TMUX=$(median < "$WORK/tmux")
RSS_MIB=$(sort -n "$WORK/rss" | tail -1 | awk '{ printf "%.1f", $1 / 1024 }')
echo
echo "== medians of $RUNS runs ($FLOOD_LINES lines at ${COLS}x$ROWS)"
echo "   (cpu: user + system seconds of the process and the cat it reaped)"
printf '   bare pty drain  %7.3f s   cpu %5.2f s\n' "$BARE" "$(median < "$WORK/bare.cpu")"
printf '   panecast        %7.3f s   cpu %5.2f s   %.2fx bare (target <= 1.25x)\n' \
    "$PANECAST" "$(median < "$WORK/panecast.cpu")" "$(echo "$PANECAST / $BARE" | bc -l)"
printf '   tmux            %7.3f s   cpu %5.2f s   panecast/tmux %.2fx (target < 1)\n' \
    "$TMUX" "$(median < "$WORK/tmux.cpu")" "$(echo "$PANECAST / $TMUX" | bc -l)"
printf '   panecast peak RSS %s MiB (target < 64)\n' "$RSS_MIB"
