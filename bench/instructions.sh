#!/usr/bin/env bash
# Emulator instruction counts: panecast's term::Term against
# alacritty_terminal 0.26 on the throughput payloads, counted by callgrind
# inside the same feeding code the criterion bench times
# (term/benches/common/feed.rs). Unlike MB/s, instruction counts do not
# move with the machine's load, so this is the figure to compare when the
# machine is busy; it is a proxy (a cache miss costs more than an add), not
# a replacement for bench/emulator.sh.
#
# Prints a markdown table: payload | panecast Minstr | alacritty Minstr |
# ratio (alacritty / panecast, higher is better for panecast), and checks
# issue 9's targets (>= 1.5 on every payload, >= 3 on ascii_log): exit
# status 1 when one is missed.
#
# Usage: bench/instructions.sh [PAYLOAD ...]   (default: every payload)
# Needs valgrind (Debian's `valgrind`; installed when missing).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v valgrind >/dev/null; then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi

. bench/lib.sh
provenance "instruction counts (bench/instructions.sh)"
bin="$(bench_executable instructions panecast-term)"

if (($#)); then
  payloads=("$@")
else
  mapfile -t payloads < <("$bin" | tail -n +2)
fi

count() { # count IMPL PAYLOAD: instructions inside run_IMPL
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
    "--toggle-collect=*feed::run_$1*" "$bin" "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| payload | panecast Minstr | alacritty Minstr | ratio |"
echo "|---|---:|---:|---:|"
missed=()
for p in "${payloads[@]}"; do
  ours=$(count panecast "$p")
  theirs=$(count alacritty "$p")
  read -r ratio ok < <(python3 -c "
o, t, name = $ours, $theirs, '$p'
r = t / o
need = 3.0 if name == 'ascii_log' else 1.5
print(f'{r:.2f}', int(r >= need))")
  mark=""
  if ((!ok)); then mark=" (missed)"; missed+=("$p"); fi
  printf '| %s | %.1f | %.1f | %sx%s |\n' "$p" "$(echo "$ours / 1000000" | bc -l)" "$(echo "$theirs / 1000000" | bc -l)" "$ratio" "$mark"
done
echo
if ((${#missed[@]})); then
  echo "Targets (>= 1.5x, >= 3x on ascii_log) missed: ${missed[*]}"
  exit 1
fi
echo "Targets (>= 1.5x everywhere, >= 3x on ascii_log): all met."
