#!/usr/bin/env bash
# The container image, for real: builds the repository's Dockerfile,
# unchanged, runs it, and checks what a user relies on:
#   - the HEALTHCHECK (`panecast health`) turns healthy;
#   - a session created through the API shows its output on its screen;
#   - sessions are isolated with Docker's minimal capability set: /healthz
#     says "isolation": "uid", a session's uid is neither root nor the
#     server's, and a session cannot read the token from /proc/1/environ
#     (tini's) or the server's;
#   - `docker stop` ends it cleanly (exit 0) within 5 s.
#
# It installs what it needs, idempotently (docker.io and mmdebstrap from
# Debian), and starts dockerd when `docker info` fails (stopping it again at
# the end). Where `docker pull` works, it uses the real base images. Where it
# does not (no image registry is reachable here), it makes them:
#   - debian:bookworm-slim from Debian's packages with mmdebstrap;
#   - a stand-in for rust:1.95-slim-bookworm: that base, gcc and libc6-dev,
#     this machine's Rust toolchain (`rustc --print sysroot`) on PATH and its
#     CA bundle (cargo in the builder fetches crates over TLS).
# Images already present are reused, so only the first run pays for them.
# The classic builder (DOCKER_BUILDKIT=0) uses those local tags without
# pulling. Usage: bash tests/docker.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { echo "docker.sh: $*" >&2; exit 1; }

BASE=debian:bookworm-slim
BUILDER=rust:1.95-slim-bookworm
IMAGE=panecast:test
NAME=panecast-docker-test-$$
TOKEN=docker-test-token-$RANDOM$RANDOM
PORT=${PANECAST_DOCKER_PORT:-17681}
export DOCKER_BUILDKIT=0

work=$(mktemp -d)
dockerd_pid=""
cleanup() {
  docker rm -f "$NAME" >/dev/null 2>&1 || true
  if [[ -n $dockerd_pid ]]; then
    kill "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step "install: docker.io, mmdebstrap (Debian)"
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "docker daemon"
if ! docker info >/dev/null 2>&1; then
  dockerd >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || { cat "$work/dockerd.log" >&2; die "dockerd exited"; }
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; die "dockerd did not start"; }
  echo "started dockerd (pid $dockerd_pid); it is stopped at the end"
fi
docker version --format 'client {{.Client.Version}}, server {{.Server.Version}}'

have() { docker image inspect "$1" >/dev/null 2>&1; }

step "base image $BASE"
if have "$BASE"; then
  echo "present"
elif docker pull -q "$BASE" 2>/dev/null; then
  echo "pulled"
else
  echo "no registry: making it from Debian's packages with mmdebstrap (about a minute)"
  mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm - |
    docker import --change 'CMD ["bash"]' - "$BASE" >/dev/null
fi

step "builder image $BUILDER"
if have "$BUILDER"; then
  echo "present"
elif docker pull -q "$BUILDER" 2>/dev/null; then
  echo "pulled"
else
  sysroot=$(rustc --print sysroot)
  echo "no registry: a stand-in from $BASE, gcc, libc6-dev and the toolchain in $sysroot"
  mkdir "$work/builder"
  cp /etc/ssl/certs/ca-certificates.crt "$work/builder/"
  cat >"$work/builder/Dockerfile" <<'EOF'
FROM debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY rust /usr/local/rust
ENV CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/rust/bin:$PATH
EOF
  # The build context streamed as one tar: the Dockerfile, the CA bundle,
  # and the toolchain under rust/ (its documentation left out).
  tar -c -C "$work/builder" Dockerfile ca-certificates.crt \
    -C "$sysroot" --exclude=./share --transform 's,^\./,rust/,' . |
    docker build -q -t "$BUILDER" - >/dev/null
fi

step "docker build -t $IMAGE . (the repository's Dockerfile, unchanged)"
start=$SECONDS
docker build -q -t "$IMAGE" . >/dev/null
echo "built in $((SECONDS - start)) s; image size: $(docker image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.1f MB", $1 / 1e6}')"
# Untagged builds older than an hour are left over from earlier sources;
# the layers this build used are parents of newer images and stay, so the
# next run still finds its dependency layer.
docker image prune -f --filter until=1h >/dev/null

step "run it on 127.0.0.1:$PORT and wait for the HEALTHCHECK"
docker run -d --name "$NAME" -p "127.0.0.1:$PORT:7681" -e PANECAST_TOKEN="$TOKEN" \
  --cap-drop ALL --cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add KILL --cap-add SETGID --cap-add SETUID "$IMAGE" >/dev/null
health=""
for _ in $(seq 1 120); do
  health=$(docker inspect "$NAME" --format '{{.State.Health.Status}}')
  [[ $health == healthy ]] && break
  [[ $(docker inspect "$NAME" --format '{{.State.Running}}') == true ]] ||
    { docker logs "$NAME" >&2; die "the container exited"; }
  sleep 0.5
done
[[ $health == healthy ]] || { docker logs "$NAME" >&2; die "health is '$health' after 60 s"; }
echo "healthy"

step "a session through the API, and its screen"
api() {
  curl -sS --fail-with-body --max-time 10 -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' "$@"
}
base="http://127.0.0.1:$PORT"
session=$(api -X POST "$base/api/sessions" -d '{"profile": "shell"}')
id=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' <<<"$session")
api -X POST "$base/api/sessions/$id/input" -d '{"text": "echo hello-$((6*7)) uid=$(id -u)\r"}' >/dev/null
screen=""
for _ in $(seq 1 50); do
  screen=$(api "$base/api/sessions/$id/screen")
  grep -q 'hello-42 uid=[0-9]' <<<"$screen" && break
  sleep 0.2
done
grep -q 'hello-42 uid=[0-9]' <<<"$screen" || { printf '%s\n' "$screen" >&2; die "the echo never showed"; }
echo "the screen shows the shell's answer"

step "isolation"
isolation=$(curl -sS --max-time 5 "$base/healthz" | python3 -c 'import json, sys; print(json.load(sys.stdin)["isolation"])')
[[ $isolation == uid ]] || die "/healthz says isolation '$isolation'"
session_uid=$(grep -o 'hello-42 uid=[0-9]*' <<<"$screen" | tail -1 | cut -d= -f2)
server_uid=$(docker exec "$NAME" sh -c 'for p in /proc/[0-9]*; do [ "$(cat $p/comm)" = panecast ] && awk "/^Uid:/ {print \$2}" $p/status; done' | head -1)
[[ -n $server_uid && -n $session_uid ]] || die "no uid for the server ('$server_uid') or the session ('$session_uid')"
[[ $session_uid != 0 && $session_uid != "$server_uid" ]] ||
  die "the session runs as uid $session_uid, the server as $server_uid"
api -X POST "$base/api/sessions/$id/input" -d '{"text": "cat /proc/1/environ /proc/$PPID/environ; echo read=$?\r"}' >/dev/null
for _ in $(seq 1 50); do
  screen=$(api "$base/api/sessions/$id/screen")
  grep -q 'read=[0-9]' <<<"$screen" && break
  sleep 0.2
done
grep -q 'read=1' <<<"$screen" || { printf '%s\n' "$screen" >&2; die "the environ files were readable"; }
! grep -q "$TOKEN" <<<"$screen" || die "a session read the token"
echo "isolation: uid; the session runs as uid $session_uid, the server as $server_uid; the token is out of reach"

step "docker stop: a clean exit within 5 s"
start=$(date +%s%N)
docker stop -t 10 "$NAME" >/dev/null
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
code=$(docker inspect "$NAME" --format '{{.State.ExitCode}}')
echo "stopped in $elapsed_ms ms, exit code $code"
((elapsed_ms < 5000)) || die "docker stop took $elapsed_ms ms"
[[ $code == 0 ]] || { docker logs "$NAME" >&2; die "exit code $code"; }

echo
echo "docker: all checks passed"
