#!/usr/bin/env bash
# Runs every check and test of panecast: formatting, lints, the Rust tests
# (unit, conformance, integration), the benchmark smoke run, the web
# client's tests, the reverse proxies, the container image and the book
# (docs/, built with mdBook, its links checked). Installs what it needs,
# idempotently, so it works on a clean machine. Usage: bash tests/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long the one before it took, and the run ends with
# every step's time.
STEP_NAME=""
STEP_START=$SECONDS
RUN_START=$SECONDS
TIMES=()
step_done() {
  [[ -n $STEP_NAME ]] || return 0
  local took=$((SECONDS - STEP_START))
  TIMES+=("$(printf '%5d s  %s' "$took" "$STEP_NAME")")
  printf -- '--- %d s: %s\n' "$took" "$STEP_NAME"
}
step() {
  step_done
  STEP_NAME=$*
  STEP_START=$SECONDS
  printf '\n==> %s\n' "$*"
}

# A clean checkout gains nothing from incremental compilation, whose caches
# would double what the build writes to a small CI disk.
if [[ ${CI:-} == true ]]; then
  export CARGO_INCREMENTAL=0
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "the book: mdBook (crates.io, into .tools/mdbook), build docs/, check its links (tests/book_links.py)"
# mdBook, pinned, is built once from crates.io into a folder of the
# checkout (ignored by git); without its server and file watcher it takes
# about 4.5 minutes on 2 busy cores. Elsewhere than CI a machine that cannot
# install it skips the book; CI fails.
MDBOOK_VERSION=0.5.4
MDBOOK=.tools/mdbook/bin/mdbook
if [[ ! -x $MDBOOK || $("$MDBOOK" --version 2>/dev/null) != "mdbook v$MDBOOK_VERSION" ]]; then
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --quiet \
    --no-default-features --features search --root .tools/mdbook \
    || [[ ${CI:-} != true ]] || { echo "mdBook $MDBOOK_VERSION could not be installed (CI=true)" >&2; exit 1; }
fi
if [[ -x $MDBOOK ]]; then
  "$MDBOOK" build docs
  python3 tests/book_links.py target/book
else
  echo "skipped: mdBook $MDBOOK_VERSION could not be installed"
fi

step "install: nats-server (Debian), for the cluster tests (server/tests/cluster.rs)"
if ! command -v nats-server >/dev/null; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nats-server >/dev/null
fi

step "install: tmux (Debian), the local terminal of the attach tests (server/tests/attach.rs)"
if ! command -v tmux >/dev/null; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux >/dev/null
fi

step "install: chafa and img2sixel (Debian), the image programs of server/tests/images.rs"
if ! command -v chafa >/dev/null || ! command -v img2sixel >/dev/null; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chafa libsixel-bin >/dev/null
fi

step "cargo test (unit, conformance, integration)"
# The link simulator the network tests put between clients and the server
# (server/tests/flow.rs, sync.rs; the browser's network.test.mjs): a binary
# of its own crate, which `cargo test` of the server does not build.
cargo build --locked -p panecast-netsim
cargo test --workspace --locked

step "benchmark smoke run (each benchmark once, debug build)"
# criterion runs each benchmark once when started by `cargo test`; the memory
# benchmark prints its table. Real figures: bench/emulator.sh, bench/flood.sh,
# bench/stream.sh (release builds); seeking a 100 MB replay: cargo bench --bench replay_seek.
cargo test -p panecast-term --locked --bench throughput --bench memory --bench cliffs --bench instructions --bench parser
cargo test -p panecast-server --locked --bench search --bench replay_seek

step "esctest2 conformance ratchet (tests/esctest.sh)"
# xterm's conformance suite in a session of the debug binary; fails when a
# test listed in tests/esctest-expected.txt stops passing. About a minute.
cargo build --locked -p panecast-server --bin panecast
bash tests/esctest.sh "$PWD/target/debug/panecast"

step "asciinema round trips (tests/asciinema.sh)"
cargo build --locked -p panecast-server --bin panecast
PANECAST_BIN="$PWD/target/debug/panecast" bash tests/asciinema.sh

step "the API against its OpenAPI document: schemathesis (tests/schemathesis.sh)"
# Seeded, 10 examples per operation, capped at 150 s: no 5xx, and every
# answer matches GET /api/openapi.json.
cargo build --locked -p panecast-server --bin panecast
PANECAST_BIN="$PWD/target/debug/panecast" bash tests/schemathesis.sh

step "web client: unit, size, browser and end-to-end tests (tests/web.sh)"
# The end-to-end tests run the debug binary `cargo test` just built.
PANECAST_BIN="$PWD/target/debug/panecast" bash tests/web.sh

step "Kubernetes manifests against the binary and the Dockerfile (tests/k8s.py)"
PANECAST_BIN="$PWD/target/debug/panecast" python3 tests/k8s.py

step "the cluster's compose file and Kubernetes manifests, run with nats-server and three nodes (tests/cluster_deploy.py)"
PANECAST_BIN="$PWD/target/debug/panecast" python3 tests/cluster_deploy.py

step "behind nginx and Caddy, under /term/ over TLS (tests/proxy.sh)"
PANECAST_BIN="$PWD/target/debug/panecast" bash tests/proxy.sh

step "sign-in through a trusted proxy: nginx with basic auth and X-Forwarded-User (tests/proxy_auth.sh)"
PANECAST_BIN="$PWD/target/debug/panecast" bash tests/proxy_auth.sh

step "the container image: build, health, a session, non-root, stop (tests/docker.sh)"
bash tests/docker.sh

step_done
echo
echo "time per step:"
printf '%s\n' "${TIMES[@]}"
printf '%5d s  in all\n' $((SECONDS - RUN_START))
echo "all checks passed"
