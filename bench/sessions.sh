#!/usr/bin/env bash
# The density benchmark (issue 20): N idle 80x24 `cat` sessions in one
# release `panecast serve`, created one after another through the API
# (server/examples/sessions_bench.rs), then: sessions reached, server
# threads (/proc/PID/status Threads), fds per session, RSS, create p50/p99,
# `GET .../screen` p99, the time to list every session, the server's CPU
# over 10 idle seconds, and the echo p99 in one session while another
# floods. Targets (issue 20): 10,000 sessions, <= 2 x cores + 8 threads,
# < 1 GiB RSS, create < 5 / 20 ms, screen p99 < 10 ms, list < 100 ms, idle
# CPU < 2% of a core, echo p99 < 10 ms.
#
# Environment:
#   SESSIONS   sessions to create (default 10000)
#   ISOLATION  user (default): every session runs as `nobody` through a
#              profile; uids: each session gets a uid of its own from a
#              range of SESSIONS uids (the server's default mode)
#   CARGO_TARGET_DIR (default ./target)
#   PANECAST   the server binary (default: the release build of this tree),
#              to run the same client against another build (A/B)
# When run as root and the system allows fewer pseudo-terminals than
# SESSIONS (kernel.pty.max), the limit is raised for the run and put back
# after.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "many-sessions benchmark (bench/sessions.sh)"
SESSIONS=${SESSIONS:-10000}
ISOLATION=${ISOLATION:-user}
PTY_MAX_BEFORE=
on_exit() {
    if [ -n "$PTY_MAX_BEFORE" ]; then
        echo "$PTY_MAX_BEFORE" > /proc/sys/kernel/pty/max
    fi
}
bench_start
build_release sessions_bench

PTY_MAX=$(cat /proc/sys/kernel/pty/max)
if [ "$PTY_MAX" -lt $((SESSIONS + 1100)) ] && [ -w /proc/sys/kernel/pty/max ]; then
    PTY_MAX_BEFORE=$PTY_MAX
    echo $((SESSIONS + 1100)) > /proc/sys/kernel/pty/max
    echo "== kernel.pty.max raised from $PTY_MAX to $((SESSIONS + 1100)) for the run"
fi

CONFIG=$WORK/sessions.toml
{
    echo "session_uids = [70000, $((70000 + SESSIONS + 99))]"
    echo "session_homes = \"$WORK/homes\""
    echo "[limits]"
    echo "max_sessions = $((SESSIONS + 10))"
    if [ "$ISOLATION" = user ]; then
        echo "[profiles.bench]"
        echo "command = \"cat\""
        echo "user = \"nobody\""
        echo "cwd = \"/\""
    fi
} > "$CONFIG"
[ "$ISOLATION" = user ] && export BENCH_PROFILE=bench

FLOOD=$WORK/flood.txt
flood_file "$FLOOD" 200000

start_panecast "${PANECAST:-$BIN/panecast}" "$WORK" --config "$CONFIG"

echo "== $SESSIONS idle 80x24 cat sessions ($ISOLATION isolation), $(nproc) cores," \
    "open files $(ulimit -Hn) (hard), pid_max $(cat /proc/sys/kernel/pid_max)"
"$BIN/examples/sessions_bench" "$ADDR" "$TOKEN" "$SERVER_PID" "$SESSIONS" "$FLOOD"
