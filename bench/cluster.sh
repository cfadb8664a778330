#!/usr/bin/env bash
# The cluster benchmarks (issue 21): builds in release, generates the
# 2,000,000-line flood file (bench/lib.sh, as bench/flood.sh), starts a
# real `nats-server -js` with the documented deploy/cluster/nats.conf (the
# nodes' nkey user only; with its monitoring port), three
# `panecast serve --cluster` nodes A, B, C on it (one bus key, every
# message sealed) and one `panecast serve` without a cluster (the
# single-node baselines), all on random loopback ports with one token, and
# runs server/examples/cluster_bench.rs:
#   1. flood time   a `cat` of the file owned by A, viewed by VIEWERS view
#                   streams on each of A, B and C, until every viewer has
#                   the final screen, vs the same flood with 1 viewer on a
#                   single node (target <= 1.2x; every viewer converged);
#   2. NATS bytes   bytes through NATS during that flood (its /varz
#                   in_bytes + out_bytes) as a % of the program's output
#                   (target <= 2%);
#   3. echo         1,000 keys typed on B into `cat` owned by A, each timed
#                   until its echo's frame (target p99 < 2 ms); the same
#                   locally on A and on the single node, for comparison;
#   4. list         SESSIONS idle `cat` sessions, a third on each node: 20
#                   `GET /api/sessions` on each node (target p99 < 50 ms);
#   5. first frame  a view stream opened on B to a session on A that B has
#                   no mirror of yet, until its first Frame, over FIRST
#                   sessions (target p99 < 50 ms).
# Prints a markdown table with PASS or MISS per target and exits 0 either
# way (non-zero only when something broke). NATS's log (slow consumers)
# and each node's are printed after the table when they hold warnings.
#
# Environment: FLOOD_LINES (default 2000000), VIEWERS (per node, 300),
# ROUNDS (3), KEYS (1000), FIRST (100), SESSIONS (3000), LISTS (20),
# CLIENT_NICE (0: the nice value of the client, whose 900 viewers compete
# with the servers for the same cores; viewers that fall behind skip
# frames), CARGO_TARGET_DIR (default ./target). A smoke run:
#   FLOOD_LINES=100000 VIEWERS=10 ROUNDS=1 KEYS=100 FIRST=10 SESSIONS=30 bench/cluster.sh
# When run as root and the system allows fewer pseudo-terminals than the
# run needs (kernel.pty.max), the limit is raised for the run and put back.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
provenance "cluster benchmark (bench/cluster.sh)"
FLOOD_LINES=${FLOOD_LINES:-2000000}
export VIEWERS=${VIEWERS:-300}
export SESSIONS=${SESSIONS:-3000}
CLIENT_NICE=${CLIENT_NICE:-0}
NATS_PID=
NODE_PIDS=()
PTY_MAX_BEFORE=
on_exit() {
    for pid in "${NODE_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${NODE_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [ -n "$NATS_PID" ]; then
        kill "$NATS_PID" 2>/dev/null || true
        wait "$NATS_PID" 2>/dev/null || true
    fi
    if [ -n "$PTY_MAX_BEFORE" ]; then
        echo "$PTY_MAX_BEFORE" > /proc/sys/kernel/pty/max
    fi
}
bench_start
build_release cluster_bench

command -v nats-server > /dev/null || { echo "nats-server is not installed"; exit 1; }

PER_NODE=$(( (SESSIONS + 2) / 3 ))
NEED_PTYS=$((SESSIONS + 1100))
PTY_MAX=$(cat /proc/sys/kernel/pty/max)
if [ "$PTY_MAX" -lt "$NEED_PTYS" ] && [ -w /proc/sys/kernel/pty/max ]; then
    PTY_MAX_BEFORE=$PTY_MAX
    echo "$NEED_PTYS" > /proc/sys/kernel/pty/max
    echo "== kernel.pty.max raised from $PTY_MAX to $NEED_PTYS for the run" >&2
fi

FILE=$WORK/flood.txt
echo "== generating $FLOOD_LINES lines in $FILE" >&2
flood_file "$FILE" "$FLOOD_LINES"
echo "   $(wc -c < "$FILE") bytes; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# A port nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Limits every server gets: VIEWERS streams on one session (plus room),
# as many connections from loopback, a third of SESSIONS and the
# benchmark's own sessions, and a uid range of its own ($1: its first uid)
# so that two nodes on one machine never give two sessions one uid.
write_config() {
    local path=$1 first_uid=$2 cluster=$3
    {
        echo "session_uids = [$first_uid, $((first_uid + PER_NODE + 499))]"
        echo "session_homes = \"$WORK/homes-$first_uid\""
        echo "[limits]"
        echo "max_sessions = $((PER_NODE + 300))"
        echo "max_viewers = $((VIEWERS + 64))"
        echo "max_connections = $((4 * VIEWERS + 1024))"
        echo "max_connections_per_address = $((4 * VIEWERS + 1024))"
        if [ "$cluster" = yes ]; then
            echo "[cluster]"
            echo "node_ttl_s = 15"
            echo "key_file = \"$WORK/cluster.key\""
            echo "nkey_seed_file = \"$WORK/nats.nk\""
        fi
    } > "$path"
}

# The single node (bench/lib.sh); its token is everyone's.
write_config "$WORK/solo.toml" 70000 no
start_panecast "$BIN" "$WORK" --config "$WORK/solo.toml"
SOLO=$ADDR

# The bus key and the nodes' NATS user, as deploy/cluster/compose.yaml's
# first lines make them.
(umask 077
 "$BIN/panecast" key | sed -n 's/^secret: //p' > "$WORK/cluster.key"
 "$BIN/panecast" key --nats > "$WORK/nats-key.txt"
 sed -n 's/^seed: //p' "$WORK/nats-key.txt" > "$WORK/nats.nk")
NATS_NKEY=$(sed -n 's/^public key: //p' "$WORK/nats-key.txt")

NATS_PORT=$(free_port)
NATS_MON=$(free_port)
mkdir -p "$WORK/nats"
PANECAST_NATS_NKEY=$NATS_NKEY nats-server -c "$ROOT/deploy/cluster/nats.conf" \
    -js -a 127.0.0.1 -p "$NATS_PORT" -m "$NATS_MON" -sd "$WORK/nats" \
    > "$WORK/nats.log" 2>&1 &
NATS_PID=$!
for _ in $(seq 500); do
    curl -sf "http://127.0.0.1:$NATS_MON/varz" > /dev/null 2>&1 && break
    sleep 0.02
done
curl -sf "http://127.0.0.1:$NATS_MON/varz" > /dev/null || { echo "nats-server did not start:"; cat "$WORK/nats.log"; exit 1; }

# start_node NAME FIRST_UID: `panecast serve --cluster` as node NAME;
# sets NODE_ADDR and appends its pid to NODE_PIDS.
start_node() {
    local name=$1 uid=$2 out=$WORK/node-$1.out
    write_config "$WORK/node-$name.toml" "$uid" yes
    "$BIN/panecast" serve --listen 127.0.0.1:0 --token "$TOKEN" --allow-any-command \
        --cluster "nats://127.0.0.1:$NATS_PORT" --node "$name" --config "$WORK/node-$name.toml" \
        > "$out" 2> "$WORK/node-$name.log" &
    NODE_PIDS+=($!)
    NODE_ADDR=
    for _ in $(seq 1000); do
        NODE_ADDR=$(grep -o '127\.0\.0\.1:[0-9]*' "$out" 2>/dev/null || true)
        [ -n "$NODE_ADDR" ] && return
        sleep 0.01
    done
    echo "node $name did not start:"; cat "$WORK/node-$name.log"; exit 1
}
start_node A 72000; A=$NODE_ADDR
start_node B 74000; B=$NODE_ADDR
start_node C 76000; C=$NODE_ADDR
echo "== NATS 127.0.0.1:$NATS_PORT (monitor $NATS_MON), A $A, B $B, C $C, single node $SOLO;" \
    "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

export CPU_PIDS="A=${NODE_PIDS[0]},B=${NODE_PIDS[1]},C=${NODE_PIDS[2]},nats=$NATS_PID,solo=$SERVER_PID"
nice -n "$CLIENT_NICE" "$BIN/examples/cluster_bench" "$TOKEN" "$FILE" "127.0.0.1:$NATS_MON" "$SOLO" "$A" "$B" "$C"

echo
NAMES=(A B C)
CPU=
for i in 0 1 2; do
    CPU="$CPU${NAMES[$i]} $(ps -o cputime= -p "${NODE_PIDS[$i]}" | tr -d ' '), "
done
echo "CPU time over the whole run: ${CPU}nats $(ps -o cputime= -p "$NATS_PID" | tr -d ' ');" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
if grep -qi 'slow consumer\|\[WRN\]\|\[ERR\]' "$WORK/nats.log"; then
    echo "nats-server warnings:"
    grep -i 'slow consumer\|\[WRN\]\|\[ERR\]' "$WORK/nats.log" | tail -20
fi
for name in A B C; do
    if grep -i 'warn\|error' "$WORK/node-$name.log" | grep -qv 'token was given on the command line'; then
        echo "node $name warnings (last 10):"
        grep -i 'warn\|error' "$WORK/node-$name.log" | grep -v 'token was given on the command line' | tail -10
    fi
done
