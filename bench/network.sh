#!/usr/bin/env bash
# The network benchmark (issue 39): the terminal page in Chromium over each
# link profile of tools/netsim (lan, broadband, mobile, satellite), in full:
#   keys     keystroke to glyph on the canvas, in bash, Python's REPL and
#            vim's insert mode, a corpus of over 2,100 keys (every key but
#            each line's first, which waits for its epoch's confirmation),
#            and the predictions that were wrong;
#   page     bytes on the wire and the first frame painted after navigation,
#            first visit and repeat (Chromium's own throttling with the
#            profile's figures: tests/browser/transfer.test.mjs);
#   drops    a 5 s blackhole while typing and a reset mid-flood (pass/fail);
#   flood    a viewer of a 140 MB flood and a typist without prediction on
#            the same link: how far behind the viewer's screen is, and the
#            typist's echo.
#   attach   `panecast attach` on mobile (server/tests/attach_network.rs,
#            release): key to glyph with prediction and without.
# The tests are tests/browser/network.test.mjs and transfer.test.mjs, run
# with PANECAST_NET_FULL=1 and PANECAST_NET_PROFILE; the test command runs
# their short versions on mobile. Prints every figure, then one table, with
# the commit, the date and the machine.
#
# Environment: PROFILES (default "lan broadband mobile satellite"),
# FULL (default 1; 0 runs the short versions, to try the script),
# PANECAST_BIN and PANECAST_NETSIM (default: a release build of both),
# CARGO_TARGET_DIR (default ./target). Needs tests/web.sh's installs
# (Chromium, playwright-core) and vim.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/lib.sh"
PROFILES=${PROFILES:-lan broadband mobile satellite}
bench_start
if [ -z "${PANECAST_BIN:-}" ]; then
    cargo build --release --locked -p panecast-server --bin panecast
    cargo build --release --locked -p panecast-netsim
    export PANECAST_BIN=$BIN/panecast PANECAST_NETSIM=$BIN/netsim
fi
export PANECAST_NET_FULL=${FULL:-1}
if [ ! -d "$ROOT/tests/browser/node_modules/playwright-core" ]; then
    npm ci --prefix "$ROOT/tests/browser" --no-audit --no-fund --loglevel=error
fi

FIGURES=$WORK/figures
for profile in $PROFILES; do
    echo "== $profile"
    for test in network transfer; do
        PANECAST_NET_PROFILE=$profile node --test --test-concurrency=1 \
            "$ROOT/tests/browser/$test.test.mjs" 2>&1 | tee "$WORK/$profile-$test.log" |
            grep -E '^# \\?# |^(not )?ok ' || true
        { grep -o '# figure .*' "$WORK/$profile-$test.log" || true; } | sed 's/^# figure //' >> "$FIGURES"
        grep -E '^(not )?ok ' "$WORK/$profile-$test.log" |
            sed -E "s/^(not ok|ok) [0-9]+ - (.*)/$profile result \"\2\" \1/" >> "$WORK/results"
    done
done

value() { awk -v p="$1" -v n="$2" '$1 == p && $2 == n { print $3; exit }' "$FIGURES"; }
echo
provenance "network benchmark (bench/network.sh)"
echo
printf '| %-34s |' "figure"
for p in $PROFILES; do printf ' %9s |' "$p"; done
echo
printf '|%s|' "$(printf -- '-%.0s' $(seq 36))"
for _ in $PROFILES; do printf '%s|' "-----------"; done
echo
row() {
    local label=$1 name=$2
    printf '| %-34s |' "$label"
    for p in $PROFILES; do printf ' %9s |' "$(value "$p" "$name")"; done
    echo
}
for program in bash python vim; do
    row "$program: keys timed" "${program}_keys"
    row "$program: key to glyph p50 (ms)" "${program}_p50_ms"
    row "$program: key to glyph p99 (ms)" "${program}_p99_ms"
    row "$program: wrong predictions" "${program}_wrong"
    row "$program: wrong erased within (ms)" "${program}_erased_max_ms"
done
row "page, first visit (bytes)" first_visit_bytes
row "page, first frame, cold (ms)" first_visit_painted_ms
row "page, repeat visit (bytes)" repeat_visit_same_tab_bytes
row "page, first frame, warm (ms)" repeat_visit_same_tab_painted_ms
row "140 MB flood: viewer lag p50 (ms)" flood_lag_p50_ms
row "140 MB flood: viewer lag p99 (ms)" flood_lag_p99_ms
row "beside it: echo p50, no prediction" flood_echo_p50_ms
row "beside it: echo p99, no prediction" flood_echo_p99_ms
echo
echo
echo "== attach on mobile (cargo test --release --test attach_network)"
(cd "$ROOT" && cargo test --release --locked -q -p panecast-server --test attach_network -- --nocapture 2>&1) |
    tee "$WORK/attach.log" | grep -E '^(mobile|predict = false)' || true
grep -q '^test result: ok' "$WORK/attach.log" && echo "attach result ok" >> "$WORK/results" \
    || echo "attach result not ok" >> "$WORK/results"
echo
failed=$(grep -c ' not ok$' "$WORK/results" || true)
echo "tests: $(wc -l < "$WORK/results") run over the profiles, $failed failed"
grep ' not ok$' "$WORK/results" || true
