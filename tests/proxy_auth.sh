#!/usr/bin/env bash
# Sign-in through a trusted proxy ([auth.proxy], issue 22), run for real:
# Debian's nginx on loopback authenticates with HTTP basic auth and passes
# the user on in X-Forwarded-User, connecting to panecast from 127.0.0.2,
# the only trusted proxy. Checks:
#   - alice, signed in at nginx, reaches the session her rule names, and
#     only it; a header she adds herself is replaced by nginx's;
#   - nobody signed in gets nginx's 401; a person no rule names gets 403
#     no_rule;
#   - the same header sent straight to panecast (from 127.0.0.1, not a
#     trusted proxy) is ignored (401) and logged as forged_header.
# Installs nginx when missing. Usage: bash tests/proxy_auth.sh
# PANECAST_BIN names the server binary (default target/debug/panecast).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { echo "proxy_auth.sh: $*" >&2; exit 1; }

BIN=${PANECAST_BIN:-$PWD/target/debug/panecast}
[[ -x $BIN ]] || die "$BIN is missing: cargo build -p panecast-server --bin panecast"
TOKEN=proxy-auth-token-$RANDOM$RANDOM

step "install: nginx and openssl (Debian)"
missing=()
[[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl)
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# shellcheck source=tests/services.sh
source tests/services.sh
chmod 755 "$work"

# status METHOD URL [curl args...]: the HTTP status; the body in $work/body.
status() {
  local method=$1 url=$2
  shift 2
  curl -s -o "$work/body" -w '%{http_code}' -X "$method" "$@" "$url"
}

expect() { # what wanted got
  [[ $2 == "$3" ]] || die "$1: $3, not $2 ($(cat "$work/body"))"
  echo "ok: $1 ($3)"
}

step "panecast: [auth.proxy] believed from 127.0.0.2 only; alice controls 'build'"
upstream=$(free_port)
cat >"$work/panecast.toml" <<EOF
trusted_proxies = ["127.0.0.2"]

[auth.proxy]
user_header = "X-Forwarded-User"

[[auth.rules]]
users = ["alice"]
role = "control"
sessions = ["build"]
EOF
RUST_LOG=info "$BIN" serve --listen "127.0.0.1:$upstream" --token "$TOKEN" --allow-any-command \
  --config "$work/panecast.toml" >"$work/panecast.out" 2>&1 &
pids+=($!)
wait_port "$upstream" panecast "$!"
direct=http://127.0.0.1:$upstream
for name in build other; do
  code=$(status POST "$direct/api/sessions" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' -d "{\"command\": [\"sleep\", \"60\"], \"name\": \"$name\"}")
  expect "the admin starts '$name'" 201 "$code"
done

step "nginx: basic auth, X-Forwarded-User from \$remote_user, upstream from 127.0.0.2"
port=$(free_port)
mkdir -p "$work/nginx"
for user in alice mallory; do
  printf '%s:%s\n' "$user" "$(openssl passwd -apr1 "pw-$user")"
done >"$work/nginx/htpasswd"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events {}
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$port;
    location / {
      auth_basic "panecast";
      auth_basic_user_file $work/nginx/htpasswd;
      proxy_pass http://127.0.0.1:$upstream;
      proxy_bind 127.0.0.2;
      proxy_set_header Host \$host;
      # Replaces whatever the client sent under that name.
      proxy_set_header X-Forwarded-User \$remote_user;
    }
  }
}
EOF
/usr/sbin/nginx -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx"
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
wait_port "$port" nginx "$!"
proxied=http://127.0.0.1:$port

step "through nginx"
code=$(status GET "$proxied/api/sessions" -u alice:pw-alice)
expect "alice lists the sessions" 200 "$code"
names=$(python3 -c 'import json,sys; print(",".join(s["name"] for s in json.load(open(sys.argv[1]))["sessions"]))' "$work/body")
[[ $names == build ]] || die "alice sees '$names', not only 'build'"
echo "ok: alice sees only 'build'"
code=$(status GET "$proxied/api/sessions/other" -u alice:pw-alice)
expect "'other' is out of alice's reach" 404 "$code"
code=$(status GET "$proxied/api/sessions/build" -u alice:pw-alice -H 'X-Forwarded-User: root')
expect "a header alice adds is replaced by nginx's" 200 "$code"
code=$(status GET "$proxied/api/sessions")
expect "nobody signed in at nginx" 401 "$code"
code=$(status GET "$proxied/api/sessions" -u mallory:pw-mallory)
expect "mallory is signed in, but no rule names her" 403 "$code"
grep -q '"no_rule"' "$work/body" || die "mallory's answer is not no_rule: $(cat "$work/body")"

step "straight to panecast"
code=$(status GET "$direct/api/sessions" -H 'X-Forwarded-User: alice')
expect "a forged header from 127.0.0.1 is ignored" 401 "$code"
grep -q 'event="forged_header"' "$work/panecast.out" || die "the forged header was not logged"
echo "ok: logged as forged_header"

echo
echo "proxy auth: all checks passed"
