#!/usr/bin/env bash
# The esctest2 ratchet: runs the esctest2 suite (George Nachman and Thomas
# Dickey's xterm conformance suite, GPL-2, kept outside this repository in
# $PANECAST_SHARED/esctest2 and used only as an external driver) inside a
# panecast session, then compares the results with tests/esctest-expected.txt,
# the tests expected to end PASS or XFAIL.
#   - fails, naming each one, when an expected test no longer passes;
#   - prints the counts;
#   - lists (without failing) tests that pass but are not listed yet, so the
#     file can be ratcheted up: add them to tests/esctest-expected.txt.
# Builds nothing: give it the binary, as tests/web.sh takes PANECAST_BIN.
# Needs python3 (the suite and its driver are Python 3, standard library only).
# Usage: bash tests/esctest.sh PANECAST_BIN   (or PANECAST_BIN=... bash tests/esctest.sh)
# Env: PANECAST_SHARED (default: the checkout's ../shared), ESCTEST_OUT (where
#      results.txt and esctest.log go; default tests/artifacts/esctest).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-${PANECAST_BIN:-}}
if [[ -z $bin || ! -x $bin ]]; then
    echo "esctest.sh: give the panecast binary as an argument or in PANECAST_BIN (got '${bin}')" >&2
    exit 2
fi
shared=${PANECAST_SHARED:-$PWD/../shared}
suite="$shared/esctest2/esctest/esctest.py"
if [[ ! -f $suite ]]; then
    echo "esctest.sh: esctest2 not found at $suite (set PANECAST_SHARED)" >&2
    exit 2
fi
if ! command -v python3 >/dev/null; then
    echo "esctest.sh: python3 is required (apt-get install python3)" >&2
    exit 2
fi
out=${ESCTEST_OUT:-$PWD/tests/artifacts/esctest}
rm -rf "$out"
mkdir -p "$out"

# Our own driver (tests/esctest_driver.py) runs the suite in a session: the
# shared run-in-panecast.sh starts its server with a token shorter than the
# 16 characters serve demands. A 0.3 s reply timeout is tight for a debug
# build on a loaded 2-core machine (replies then time out at random); 2 s
# costs a few seconds, since only the tests that expect no reply wait it out.
python3 tests/esctest_driver.py "$bin" "$suite" "$out" --timeout=2 </dev/null

python3 - "$out/results.txt" tests/esctest-expected.txt <<'PY'
import sys

results_path, expected_path = sys.argv[1:]
results = {}
for line in open(results_path):
    outcome, _, name = line.strip().partition(" ")
    if name:
        results[name] = outcome
expected = [
    line.strip()
    for line in open(expected_path)
    if line.strip() and not line.startswith("#")
]
good = {name for name, outcome in results.items() if outcome in ("PASS", "XFAIL")}
lost = [name for name in expected if name not in good]
new = sorted(good - set(expected))
run = len(results)
print(f"esctest2: {len(good)} of {run} tests run end PASS or XFAIL "
      f"({100 * len(good) / max(run, 1):.1f}%); {len(expected)} expected")
if new:
    print(f"{len(new)} test(s) newly pass; add them to {expected_path}:")
    for name in new:
        print(f"  {name}")
if lost:
    print(f"{len(lost)} expected test(s) no longer pass:", file=sys.stderr)
    for name in lost:
        print(f"  {results.get(name, 'NOT RUN')} {name}", file=sys.stderr)
    sys.exit(1)
PY
