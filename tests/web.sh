#!/usr/bin/env bash
# The web client's tests. Installs what it needs, idempotently, on a clean
# Debian machine (chromium and two fonts from Debian, playwright-core,
# @axe-core/playwright, asciinema-player and oidc-provider (the OpenID
# provider of oidc.test.mjs) from npm, as locked in
# tests/browser/package-lock.json),
# then runs, in order:
#   1. node unit tests: the decoder/encoder against proto/vectors, the key
#      mapping, the screen model, selection (tests/browser/unit)
#   2. the size check: each page as the server sends it, its HTML and its
#      bundle of modules (JavaScript without comments and indentation,
#      compressed at build time), at most 33 KB in brotli; needs the server
#      binary, like step 5
#   3. the client tests: web/ in headless Chromium against a mock server
#      (tests/browser/client; no Rust server needed)
#   4. the paint benchmark: a full 200x60 frame, median and p95 in ms
#      (reported; --bench-strict makes a miss of the 8 ms budget fail)
#   5. the end-to-end browser tests against the real server
#      (tests/browser/*.test.mjs; transfer.test.mjs holds the bytes a visit
#      of the terminal page costs on the wire to their budgets), only when
#      target/release/panecast exists:
#      this script does not build it (a release build takes long on a shared
#      machine). Build it first with `cargo build --release`, or set
#      PANECAST_BIN to another binary. Without one, these tests are reported
#      as skipped, with the reason, never silently.
#   6. the MCP end-to-end test (tests/mcp/mcp.test.mjs): the official MCP
#      client SDK (@modelcontextprotocol/sdk, locked in
#      tests/mcp/package-lock.json) plays an agent against the real server,
#      with the same binary and the same skip as step 5
# Usage: bash tests/web.sh [--no-bench] [--bench-strict] [--e2e-only]
# Screenshots of every browser test go to tests/artifacts/browser/.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
bench=1
bench_mode=--report
only_e2e=0
for a in "$@"; do
  case "$a" in
    --no-bench) bench=0 ;;
    --bench-strict) bench_mode= ;;
    --e2e-only) only_e2e=1 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done

step "install: chromium, fonts, chafa, vim, python3 (Debian), playwright-core, @axe-core/playwright, asciinema-player, oidc-provider and @modelcontextprotocol/sdk (npm)"
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
# CJK and emoji glyphs, so the CJK/emoji tests paint real glyphs.
[[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]] || missing+=(fonts-wqy-microhei)
[[ -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]] || missing+=(fonts-noto-color-emoji)
# The picture program of tests/browser/images.test.mjs.
command -v chafa >/dev/null || missing+=(chafa)
# The programs typed into by tests/browser/network.test.mjs (python3 at the
# system's path: a session's uid cannot run a user's pyenv shim).
command -v vim >/dev/null || missing+=(vim)
[[ -x /usr/bin/python3 ]] || missing+=(python3)
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ! -d tests/browser/node_modules/playwright-core || ! -d tests/browser/node_modules/@axe-core/playwright \
   || ! -d tests/browser/node_modules/asciinema-player || ! -d tests/browser/node_modules/oidc-provider ]]; then
  npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
if [[ ! -d tests/mcp/node_modules/@modelcontextprotocol/sdk ]]; then
  npm ci --prefix tests/mcp --no-audit --no-fund --loglevel=error
fi
/usr/bin/chromium --version
node --version

if ((!only_e2e)); then
  step "node unit tests (tests/browser/unit)"
  node --test tests/browser/unit/

  step "size check (each page as served at most 33 KB in brotli)"
  node tests/browser/size-check.mjs

  step "client tests in Chromium against the mock server (tests/browser/client)"
  node --test --test-concurrency=1 tests/browser/client/

  if ((bench)); then
    step "paint benchmark"
    node tests/browser/paint-bench.mjs 200 $bench_mode
  fi
fi

step "end-to-end browser tests against the real server (tests/browser/*.test.mjs)"
node --test --test-concurrency=1 tests/browser/*.test.mjs

step "MCP end-to-end test: the official client SDK against the real server (tests/mcp)"
node --test --test-concurrency=1 tests/mcp/
