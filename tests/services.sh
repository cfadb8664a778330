# Shell helpers for the scripts that run real services on loopback
# (tests/proxy.sh, tests/proxy_auth.sh). Source it after defining `die`.
# Sets $work (a temporary directory, removed at exit) and $pids (processes
# to stop at exit: append each service started).

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# A loopback port for a server of the test (tests/quiet_port.py says why
# not an ephemeral one).
free_port() {
  python3 tests/quiet_port.py
}

# Waits up to 10 s for `port` to accept connections; dies when process
# `pid` (called `what`) exits first, or at the end.
wait_port() { # port what pid
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || die "$2 exited"
    sleep 0.1
  done
  die "$2 is not listening on $1"
}
