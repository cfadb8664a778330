# Shared by the benchmark scripts (source it): the flood file and starting
# `panecast serve` on a random loopback port.

# flood_file FILE LINES: LINES lines of about 70 characters (the line number
# and a pangram), about 140 MB for 2,000,000 lines.
flood_file() {
    awk -v n="$2" 'BEGIN {
        for (i = 0; i < n; i++)
            printf "%09d the quick brown fox jumps over the lazy dog 0123456789 abcd\n", i
    }' > "$1"
}

# start_panecast BIN WORK [ARG...]: starts `panecast serve` (BIN is the
# binary, or the directory that holds it) with a fresh token,
# --allow-any-command and the ARGs, logging to WORK/serve.log; sets
# SERVER_PID, ADDR (host:port) and TOKEN. Stop it with stop_panecast.
start_panecast() {
    local bin=$1 work=$2
    shift 2
    [ -d "$bin" ] && bin=$bin/panecast
    TOKEN=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
    "$bin" serve --listen 127.0.0.1:0 --token "$TOKEN" --allow-any-command "$@" \
        > "$work/serve.out" 2> "$work/serve.log" &
    SERVER_PID=$!
    ADDR=
    for _ in $(seq 500); do
        ADDR=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/serve.out" 2>/dev/null || true)
        [ -n "$ADDR" ] && return
        sleep 0.01
    done
    echo "panecast did not start:"; cat "$work/serve.log"; exit 1
}

# stop_panecast: stops the server start_panecast started, if one is running,
# and waits for it to exit.
stop_panecast() {
    if [ -n "${SERVER_PID:-}" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    fi
}

# bench_start: the preamble every server benchmark shares. Exports
# CARGO_TARGET_DIR (default ROOT/target, ROOT being the checkout), sets BIN
# (its release directory) and WORK (a fresh directory others can read: a
# server run as root gives each session a uid of its own), and on exit runs
# the script's `on_exit` function if it defines one, stops the server
# start_panecast started and removes WORK.
bench_start() {
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
    BIN=$CARGO_TARGET_DIR/release
    WORK=$(mktemp -d)
    chmod 755 "$WORK"
    SERVER_PID=
    trap bench_cleanup EXIT
}

# bench_cleanup: what bench_start arranges to run on exit.
bench_cleanup() {
    if declare -F on_exit > /dev/null; then
        on_exit
    fi
    stop_panecast
    rm -rf "$WORK"
}

# build_release EXAMPLE...: builds the panecast binary and the named
# examples of panecast-server, release, then prints the load average (to
# stderr, beside the figures it qualifies).
build_release() {
    echo "== building (release)" >&2
    local examples=()
    for example in "$@"; do
        examples+=(--example "$example")
    done
    (cd "$ROOT" && cargo build --release --quiet -p panecast-server --bin panecast "${examples[@]}")
    echo "   load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# bench_executable NAME [PACKAGE]: builds the release bench NAME of PACKAGE
# (default panecast-server; the emulator's are panecast-term's), run from
# the checkout, without running it, and prints its executable's path;
# exits when it cannot.
bench_executable() {
    local found
    found="$(cargo bench -q -p "${2:-panecast-server}" --bench "$1" --no-run --message-format=json 2>/dev/null \
      | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$1")"
    [[ -x "$found" ]] || { echo "could not build the $1 bench" >&2; exit 1; }
    echo "$found"
}

# provenance NAME: the line every table starts with, so that a figure in
# the docs names what made it: the script, the commit (with "+changes" when
# the tree differs from it), the date, and the machine.
provenance() {
    local root commit
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
    git -C "$root" diff --quiet HEAD -- 2>/dev/null || commit="$commit+changes"
    echo "panecast $1, commit $commit, $(date -u +%Y-%m-%d)"
    echo "machine: $(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
}
