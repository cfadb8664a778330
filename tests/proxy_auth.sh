#!/usr/bin/env bash
# Sign-in through a trusted proxy ([auth.proxy], issues 22 and 38), run for
# real: Debian's nginx on loopback authenticates with HTTP basic auth and
# passes the user on in X-Forwarded-User, with the proof that the request
# came through it (the secret of proxy_secret_file in X-Panecast-Proxy, made
# and included as deploy/nginx.conf's comment says). panecast trusts
# 127.0.0.1, as the docs lay it out. Checks:
#   - alice, signed in at nginx, reaches the session her rule names, and
#     only it; a header she adds herself is replaced by nginx's, the proof
#     header too;
#   - nobody signed in gets nginx's 401; a person no rule names gets 403
#     no_rule;
#   - the same header sent straight to panecast from 127.0.0.1 (the proxy's
#     own address) or 127.0.0.2, without the secret or with a wrong one, is
#     ignored (401) and logged as forged_header;
#   - the second trial's attack: a session's own program sends the header
#     of a user an admin rule names to 127.0.0.1 and gets 401 (the secret's
#     file it cannot read: the session runs as a uid of its own when the
#     test runs as root);
#   - [auth.proxy] without proxy_secret_file is refused at start, naming
#     the fix.
# Installs nginx when missing. Usage: bash tests/proxy_auth.sh
# PANECAST_BIN names the server binary (default target/debug/panecast).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { echo "proxy_auth.sh: $*" >&2; exit 1; }

BIN=${PANECAST_BIN:-$PWD/target/debug/panecast}
[[ -x $BIN ]] || die "$BIN is missing: cargo build -p panecast-server --bin panecast"
TOKEN=proxy-auth-token-$RANDOM$RANDOM

step "install: nginx, openssl and curl (Debian)"
missing=()
[[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v openssl >/dev/null || missing+=(openssl)
command -v curl >/dev/null || missing+=(curl)
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

step "the proxy's secret, as deploy/nginx.conf's comment makes it"
(umask 077 && "$BIN" key | sed -n 's/^secret: //p' >"$work/proxy-secret")
SECRET=$(cat "$work/proxy-secret")
[[ ${#SECRET} -ge 32 ]] || die "panecast key printed no secret"
mkdir -p "$work/nginx"
(umask 077 && printf 'proxy_set_header X-Panecast-Proxy "%s";\n' "$SECRET" >"$work/nginx/panecast-proxy.conf")
ls -l "$work/proxy-secret" "$work/nginx/panecast-proxy.conf"

rules='[[auth.rules]]
users = ["alice"]
role = "control"
sessions = ["build"]

[[auth.rules]]
users = ["boss"]
role = "admin"'

step "panecast: [auth.proxy] without proxy_secret_file is refused at start"
port=$(free_port)
printf 'trusted_proxies = ["127.0.0.1"]\n\n[auth.proxy]\nuser_header = "X-Forwarded-User"\n\n%s\n' \
  "$rules" >"$work/unproven.toml"
if "$BIN" serve --listen "127.0.0.1:$port" --token "$TOKEN" --config "$work/unproven.toml" \
  >"$work/unproven.out" 2>&1; then
  die "panecast started with [auth.proxy] and no proof"
fi
grep -q 'set proxy_secret_file' "$work/unproven.out" || die "the refusal names no fix: $(cat "$work/unproven.out")"
echo "ok: refused: $(grep -o 'auth.proxy: [^:]*' "$work/unproven.out" | head -1)"

step "panecast: [auth.proxy] believed from 127.0.0.1 with the secret; alice controls 'build', boss is admin"
upstream=$(free_port)
cat >"$work/panecast.toml" <<EOF
trusted_proxies = ["127.0.0.1"]
proxy_secret_file = "$work/proxy-secret"

[auth.proxy]
user_header = "X-Forwarded-User"

$rules
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

step "nginx: basic auth, X-Forwarded-User from \$remote_user, the secret's include"
port=$(free_port)
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
      proxy_set_header Host \$host;
      # Replaces whatever the client sent under that name.
      proxy_set_header X-Forwarded-User \$remote_user;
      include $work/nginx/panecast-proxy.conf;
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
code=$(status GET "$proxied/api/sessions/build" -u alice:pw-alice -H 'X-Forwarded-User: boss' \
  -H 'X-Panecast-Proxy: guessed')
expect "headers alice adds are replaced by nginx's" 200 "$code"
code=$(status GET "$proxied/api/sessions/other" -u alice:pw-alice -H 'X-Forwarded-User: boss')
expect "alice is still alice" 404 "$code"
code=$(status GET "$proxied/api/sessions")
expect "nobody signed in at nginx" 401 "$code"
code=$(status GET "$proxied/api/sessions" -u mallory:pw-mallory)
expect "mallory is signed in, but no rule names her" 403 "$code"
grep -q '"no_rule"' "$work/body" || die "mallory's answer is not no_rule: $(cat "$work/body")"

step "straight to panecast, from the proxy's own address and beside it"
forged_before=$(grep -c 'event="forged_header"' "$work/panecast.out" || true)
code=$(status GET "$direct/api/sessions" -H 'X-Forwarded-User: boss')
expect "a forged header from 127.0.0.1 without the secret is ignored" 401 "$code"
code=$(status GET "$direct/api/sessions" -H 'X-Forwarded-User: boss' -H 'X-Panecast-Proxy: guessed-secret')
expect "a forged header from 127.0.0.1 with a wrong secret is ignored" 401 "$code"
code=$(status GET "$direct/api/sessions" --interface 127.0.0.2 -H 'X-Forwarded-User: boss')
expect "a forged header from 127.0.0.2 is ignored" 401 "$code"
code=$(status GET "$direct/api/sessions" -H 'X-Forwarded-User: boss' -H "X-Panecast-Proxy: $SECRET")
expect "with the secret (what only nginx holds), the header is the proxy's" 200 "$code"
forged_after=$(grep -c 'event="forged_header"' "$work/panecast.out" || true)
((forged_after - forged_before == 3)) || die "not every forged header was logged ($forged_before -> $forged_after)"
echo "ok: the three logged as forged_header"

step "from a session's own program (the second trial's attack)"
if [[ $(id -u) -ne 0 ]]; then
  # Sessions get uids of their own only from a server running as root;
  # otherwise a session is the server's user and reads any file it reads.
  [[ ${CI:-} != true ]] || die "this step needs root (CI=true): sessions get uids of their own only then"
  echo "skipped: sessions get uids of their own only from a server running as root"
else
  script="cat $work/proxy-secret; \
curl -s -o /dev/null -w 'as-boss=%{http_code}\n' -H 'X-Forwarded-User: boss' $direct/api/sessions; \
curl -s -o /dev/null -w 'mint=%{http_code}\n' -X POST -H 'X-Forwarded-User: boss' \
  -H 'Content-Type: application/json' -d '{\"role\":\"control\"}' $direct/api/sessions/other/links; \
echo done=1"
  code=$(status POST "$direct/api/sessions" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d "$(python3 -c 'import json,sys; print(json.dumps({"command": ["/bin/sh", "-c", sys.argv[1]], "name": "attacker"}))' "$script")")
  expect "the admin starts the attacker's session" 201 "$code"
  screen=""
  for _ in $(seq 1 100); do
    screen=$(curl -s -H "Authorization: Bearer $TOKEN" "$direct/api/sessions/attacker/screen?format=text")
    [[ $screen == *done=1* ]] && break
    sleep 0.1
  done
  [[ $screen == *done=1* ]] || die "the session's program did not finish: $screen"
  [[ $screen == *"Permission denied"* ]] || die "the secret's file was not refused to the session: $screen"
  [[ $screen != *"$SECRET"* ]] || die "the session's program read the secret: $screen"
  [[ $screen == *as-boss=401* ]] || die "the session's program was taken for boss: $screen"
  [[ $screen == *mint=401* ]] || die "the session's program minted a link: $screen"
  echo "ok: the session's program got 401 as boss, could not read the secret, minted nothing"
fi

echo
echo "proxy auth: all checks passed"
