#!/usr/bin/env bash
# The API against its own OpenAPI document: schemathesis (PyPI) generates
# requests from GET /api/openapi.json and sends them to the live debug
# binary, started here with a token and a small configuration (one profile,
# `cat`, so generated input types into nothing that acts on it; no
# --allow-any-command). Fails on any 5xx and on any answer that does not
# match the document (status, content type, headers, body schema). The run
# is seeded and bounded (a fixed number of examples per operation), so it is
# repeatable and bounded: at most 160 s, and 20 s more for the event
# stream (see below). All phases run, the stateful one included: it
# follows the document's explicit links (api/openapi/operation_links.rs:
# a created session to its reads, input, resize, links and delete, and to
# its recording; a minted link to its revocation) and the path parameters'
# patterns (api/openapi/patterns.rs).
# Installs schemathesis into a venv under target/, idempotently.
# Usage: bash tests/schemathesis.sh
# PANECAST_BIN names the server binary (default target/debug/panecast).
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }
die() { echo "schemathesis.sh: $*" >&2; exit 1; }

BIN=${PANECAST_BIN:-$PWD/target/debug/panecast}
[[ -x $BIN ]] || die "$BIN is missing: cargo build -p panecast-server --bin panecast"
SCHEMATHESIS_VERSION=4.32.5
VENV=$PWD/target/schemathesis-venv
SEED=20261122
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-5}

step "install: schemathesis $SCHEMATHESIS_VERSION into $VENV"
if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
"$VENV/bin/schemathesis" --version

work=$(mktemp -d)
server=""
cleanup() {
  if [[ -n $server ]]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

TOKEN=schemathesis-$RANDOM$RANDOM$RANDOM
cat >"$work/panecast.toml" <<'EOF'
[limits]
max_sessions = 8
# The coverage phase sends wrong credentials on purpose: without room for
# them, this address would get 429 too_many_auth_failures for a minute and
# the stateful phase would test nothing else.
auth_failures_per_minute = 100000
linger_secs = 60
grace_ms = 200
# Waits answer within 100 ms, so the generated ones keep the run short.
max_wait_ms = 100

[profiles.shell]
command = "cat"
EOF
# Sessions it starts with "record": true write here, not into the checkout.
printf 'recordings_dir = "%s/recordings"\n' "$work" | cat - "$work/panecast.toml" >"$work/config.toml"
mv "$work/config.toml" "$work/panecast.toml"

# A loopback port for the server (tests/quiet_port.py says why not port 0's).
port=$(python3 tests/quiet_port.py)
base="http://127.0.0.1:$port"
"$BIN" serve --listen "127.0.0.1:$port" --token "$TOKEN" --config "$work/panecast.toml" \
  >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  curl -fsS "$base/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fsS "$base/healthz" >/dev/null || { cat "$work/server.log"; die "the server did not start"; }

# schemathesis [GLOBAL OPTIONS] -- [RUN OPTIONS]: one run against the
# server's document with the checks, phases, seed and limits of both runs,
# from the scratch directory, where schemathesis keeps its cache.
schemathesis() {
  local global=()
  while (($#)) && [[ $1 != -- ]]; do global+=("$1"); shift; done
  shift
  (cd "$work" && "$VENV/bin/schemathesis" "${global[@]}" run "$base/api/openapi.json" \
    --url "$base" \
    --header "Authorization: Bearer $TOKEN" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --phases examples,coverage,fuzzing,stateful \
    --max-examples "$EXAMPLES" \
    --seed "$SEED" \
    --workers 1 \
    --request-timeout 10 \
    "$@" --no-color)
}

start=$SECONDS
status=0
# The event stream first, while the server has room for a session (the
# main run fills it: its sessions linger after they end; after it, this
# run's session was refused with 429). The stream of a running session
# never ends, so a generated request would wait for the request time-out
# (10 s) each time: it is checked on its own, against a session that has
# ended (it lingers: its stream answers its screen and exit, then ends),
# and every event must match the document.
step "schemathesis: GET /api/sessions/{id}/events of an ended session"
id=$(curl -fsS -H "Authorization: Bearer $TOKEN" -d '{"profile": "shell"}' "$base/api/sessions" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
curl -fsS -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$base/api/sessions/$id"
# The stateful phase follows the document's links only: the ones it would
# infer from Location headers join unrelated operations (POST /api/sessions
# to DELETE /api/recordings/{name} or GET /auth/login) and fail as invalid.
# Both runs read this file (schemathesis finds it in its working directory).
printf '[phases.stateful.inference]\nalgorithms = []\n\n[[operations]]\ninclude-path = "/api/sessions/{id}/events"\nparameters = { "path.id" = "%s" }\n' "$id" \
  >"$work/schemathesis.toml"
# One operation has no links to follow: no stateful phase (the last
# --phases given wins).
schemathesis --config-file "$work/schemathesis.toml" -- --max-time 20 \
  --phases examples,coverage,fuzzing \
  --include-path '/api/sessions/{id}/events' || status=$?

step "schemathesis: $EXAMPLES examples per operation, seed $SEED"
schemathesis -- --max-time 160 --exclude-path '/api/sessions/{id}/events' || status=$?
echo "schemathesis (both runs) took $((SECONDS - start)) s"
if grep -q "panicked" "$work/server.log"; then
  cat "$work/server.log"
  die "the server panicked"
fi
((status == 0)) || die "schemathesis found failures (exit $status)"
