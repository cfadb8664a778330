#!/usr/bin/env bash
# Steady-state emulator throughput: every vtebench payload and ASCII logs,
# each repeated to 8 MB, fed to a 120x40 panecast-term and to
# alacritty_terminal 0.26 with full scrollback (10,000 lines), in one
# process alternating the two (term/benches/steady.rs), so start-up does
# not count and a loaded machine's drift cancels out in the ratios.
# Prints the commit, date and machine, then a markdown table:
#   payload | panecast MB/s | alacritty MB/s | ratio
#
# Usage: bench/steady.sh [one payload's name]
# Env: STEADY_ROUNDS (pairs of runs per payload, default 5),
#      PANECAST_SHARED (data dir), CARGO_TARGET_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

cargo bench -q -p panecast-term --bench steady --no-run >&2
. bench/lib.sh
provenance "steady-state emulator throughput (bench/steady.sh)"
echo
cargo bench -q -p panecast-term --bench steady -- "$@"
