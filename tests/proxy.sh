#!/usr/bin/env bash
# panecast behind the reverse proxies it ships configurations for, run for
# real: Debian's nginx and Caddy on loopback, each with the repository's file
# (deploy/nginx.conf, deploy/Caddyfile) changed only in its ports, its
# certificate and log paths, and its read timeout (shortened so that the idle
# check is quick). The certificate is self-signed, made with openssl, for the
# files' own name, panecast.example.com, which the browser maps to loopback.
# panecast runs with --base-path /term, as the files expect. For each proxy:
#   - the browser test (tests/browser/proxy/) under /term/ over https and wss:
#     the session list, a new session, typing and painting, and an idle
#     stream that outlives three read timeouts of the proxy;
#   - the access log holds neither the token nor any query string;
#   - (and, without a proxy, panecast's own TLS through curl)
#   - X-Forwarded-For is believed from the proxy (trusted_proxies: the
#     proxies connect from 127.0.0.1, with the secret of proxy_secret_file
#     that the files send in X-Panecast-Proxy) and from no one else: a
#     client on 127.0.0.3 that claims another address is logged as
#     127.0.0.3, whether it comes through the proxy or straight to panecast,
#     and a program on 127.0.0.1 itself without the secret is logged as
#     127.0.0.1.
# Installs what it needs, idempotently. Usage: bash tests/proxy.sh
# PANECAST_BIN names the server binary (default target/debug/panecast).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
die() { echo "proxy.sh: $*" >&2; exit 1; }

BIN=${PANECAST_BIN:-$PWD/target/debug/panecast}
[[ -x $BIN ]] || die "$BIN is missing: cargo build -p panecast-server --bin panecast"
NAME=panecast.example.com
TOKEN=proxy-test-token-$RANDOM$RANDOM
# The proxies' read timeout in the test, and panecast's ping interval: the
# idle stream stays quiet for three timeouts and must survive them.
READ_TIMEOUT_S=2
PING_MS=1000
IDLE_MS=$((3 * READ_TIMEOUT_S * 1000 + 1000))

step "install: nginx, caddy, openssl (Debian), chromium and playwright-core"
missing=()
[[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v caddy >/dev/null || missing+=(caddy)
command -v openssl >/dev/null || missing+=(openssl)
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [[ ! -d tests/browser/node_modules/playwright-core ]]; then
  npm install --prefix tests/browser --no-audit --no-fund --loglevel=error
fi
/usr/sbin/nginx -v
caddy version

# shellcheck source=tests/services.sh
source tests/services.sh

# Replaces one line of a config file; the pattern must match exactly once,
# so that the file tested stays the file shipped.
substitute() { # file sed-pattern replacement
  local count
  count=$(grep -c -E "$2" "$1" || true)
  [[ $count == 1 ]] || die "$1: '$2' matches $count lines, not 1"
  sed -i -E "s#$2#$3#" "$1"
}

step "a self-signed certificate for $NAME"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$NAME" \
  -addext "subjectAltName=DNS:$NAME" \
  -keyout "$work/panecast.key" -out "$work/panecast.crt" 2>/dev/null
echo "$work/panecast.crt"

step "panecast on loopback under /term (ping every $PING_MS ms)"
upstream=$(free_port)
# The proxies reach panecast from 127.0.0.1 with the secret, as the files'
# comments make it; the test's "outside" client uses 127.0.0.3.
(umask 077 && "$BIN" key | sed -n 's/^secret: //p' >"$work/proxy-secret")
SECRET=$(cat "$work/proxy-secret")
[[ ${#SECRET} -ge 32 ]] || die "panecast key printed no secret"
printf 'trusted_proxies = ["127.0.0.1"]\nproxy_secret_file = "%s"\n[limits]\nping_interval_ms = %s\n' \
  "$work/proxy-secret" "$PING_MS" >"$work/panecast.toml"
RUST_LOG=warn PANECAST_LOG_FORMAT=json "$BIN" serve --listen "127.0.0.1:$upstream" --token "$TOKEN" --allow-any-command \
  --base-path /term --config "$work/panecast.toml" >"$work/panecast.out" 2>&1 &
pids+=($!)
wait_port "$upstream" panecast "$!"
echo "127.0.0.1:$upstream"

# The client address panecast logged for the last refused request.
last_peer() {
  python3 -c '
import json, sys
peers = [json.loads(l)["fields"].get("peer") for l in open(sys.argv[1]) if "auth_failed" in l]
print(peers[-1] if peers else "none")' "$work/panecast.out"
}

# A request with a wrong token from 127.0.0.3 claiming to be 203.0.113.9.
spoof() { # url [curl options]
  local url=$1
  shift
  curl -sS -o /dev/null -w '%{http_code}' --interface 127.0.0.3 -H 'X-Forwarded-For: 203.0.113.9' \
    -H 'Authorization: Bearer wrong' "$@" "$url"
}

step "X-Forwarded-For from an untrusted peer is ignored"
code=$(spoof "http://127.0.0.1:$upstream/term/api/sessions")
[[ $code == 401 ]] || die "expected 401, got $code"
peer=$(last_peer)
[[ $peer == 127.0.0.3 ]] || die "a direct client claiming 203.0.113.9 was logged as $peer"
echo "a direct client claiming 203.0.113.9 is logged as $peer"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 198.51.100.7' \
  -H 'Authorization: Bearer wrong' "http://127.0.0.1:$upstream/term/api/sessions")
peer=$(last_peer)
[[ $code == 401 && $peer == 127.0.0.1 ]] || die "X-Forwarded-For from the proxy's address without its secret was believed ($code, $peer)"
echo "from the proxy's address (127.0.0.1) without its secret, X-Forwarded-For: 198.51.100.7 is logged as $peer"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 198.51.100.7' \
  -H "X-Panecast-Proxy: $SECRET" -H 'Authorization: Bearer wrong' "http://127.0.0.1:$upstream/term/api/sessions")
peer=$(last_peer)
[[ $code == 401 && $peer == 198.51.100.7 ]] || die "a trusted proxy's X-Forwarded-For was not used ($code, $peer)"
echo "from the proxy (127.0.0.1, with its secret), X-Forwarded-For: 198.51.100.7 is logged as $peer"

# Runs the browser test through a proxy on $port, then checks its log.
through() { # proxy-name port access-log
  local proxy=$1 port=$2 log=$3
  step "$proxy: the browser test under https://$NAME:$port/term/"
  curl -sS --fail --resolve "$NAME:$port:127.0.0.1" --cacert "$work/panecast.crt" \
    -o /dev/null -w "GET /term/healthz through $proxy: %{http_code}\n" "https://$NAME:$port/term/healthz"
  if ! PROXY_BASE="https://$NAME:$port/term" PROXY_IDLE_MS=$IDLE_MS PANECAST_TOKEN=$TOKEN \
    PROXY_NAME=$proxy node --test --test-concurrency=1 tests/browser/proxy/; then
    for f in "$work"/panecast.out "$work/$proxy"/*.log; do
      echo "--- $f" >&2
      tail -20 "$f" >&2
    done
    die "the browser test failed through $proxy"
  fi
  step "$proxy: the access log holds no token and no query string"
  [[ -s $log ]] || die "$proxy wrote no access log to $log"
  if grep -n -e "$TOKEN" -e 'token=' -e 'role=' "$log"; then
    die "$proxy logged a token or a query string (lines above)"
  fi
  echo "$(wc -l <"$log") requests logged, none with a token or a query string"
  step "$proxy: X-Forwarded-For names the real client, not what it claims"
  code=$(spoof "https://$NAME:$port/term/api/sessions" --resolve "$NAME:$port:127.0.0.1" --cacert "$work/panecast.crt")
  [[ $code == 401 ]] || die "expected 401 through $proxy, got $code"
  peer=$(last_peer)
  [[ $peer == 127.0.0.3 ]] || die "a client on 127.0.0.3 claiming 203.0.113.9 was logged as $peer through $proxy"
  echo "a client on 127.0.0.3 claiming 203.0.113.9 is logged as $peer"
}

step "nginx with deploy/nginx.conf"
nginx_port=$(free_port)
mkdir -p "$work/nginx"
cp deploy/nginx.conf "$work/nginx/site.conf"
site=$work/nginx/site.conf
substitute "$site" 'listen 443 ssl http2;' "listen 127.0.0.1:$nginx_port ssl http2;"
substitute "$site" 'ssl_certificate +/etc/ssl/panecast.crt;' "ssl_certificate $work/panecast.crt;"
substitute "$site" 'ssl_certificate_key +/etc/ssl/panecast.key;' "ssl_certificate_key $work/panecast.key;"
substitute "$site" 'access_log /var/log/nginx/panecast.access.log panecast;' "access_log $work/nginx/access.log panecast;"
sed -i -E "s#proxy_pass http://127.0.0.1:7681;#proxy_pass http://127.0.0.1:$upstream;#" "$site"
# The secret's include, made as the file's comment says.
(umask 077 && printf 'proxy_set_header X-Panecast-Proxy "%s";\n' "$SECRET" >"$work/nginx/panecast-proxy.conf")
grep -q 'include /etc/nginx/panecast-proxy.conf;' "$site" || die "deploy/nginx.conf sends no proof"
sed -i -E "s#include /etc/nginx/panecast-proxy.conf;#include $work/nginx/panecast-proxy.conf;#" "$site"
substitute "$site" 'proxy_read_timeout 60s;' "proxy_read_timeout ${READ_TIMEOUT_S}s;"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  include /etc/nginx/mime.types;
  include $site;
}
EOF
/usr/sbin/nginx -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx"
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
wait_port "$nginx_port" nginx "$!"
through nginx "$nginx_port" "$work/nginx/access.log"

step "nginx with proxy_set_header Host \$host on a non-default port: the refusal says why"
# The common configuration that drops the port from Host: the page's
# Origin then is not the server's own. The page must name the fix and stop,
# and the server must log the warning.
host_port=$(free_port)
mkdir -p "$work/nginx-host"
cat >"$work/nginx-host/nginx.conf" <<EOF
daemon off;
pid $work/nginx-host/nginx.pid;
error_log $work/nginx-host/error.log warn;
events { worker_connections 64; }
http {
  client_body_temp_path $work/nginx-host/body;
  proxy_temp_path $work/nginx-host/proxy;
  fastcgi_temp_path $work/nginx-host/fastcgi;
  uwsgi_temp_path $work/nginx-host/uwsgi;
  scgi_temp_path $work/nginx-host/scgi;
  access_log off;
  server {
    listen 127.0.0.1:$host_port;
    location /term/ {
      proxy_pass http://127.0.0.1:$upstream;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto \$scheme;
    }
  }
}
EOF
/usr/sbin/nginx -t -q -c "$work/nginx-host/nginx.conf" -p "$work/nginx-host"
/usr/sbin/nginx -c "$work/nginx-host/nginx.conf" -p "$work/nginx-host" &
pids+=($!)
wait_port "$host_port" "nginx (Host \$host)" "$!"
if ! HOST_BASE="http://127.0.0.1:$host_port/term" PANECAST_TOKEN=$TOKEN \
  node --test --test-concurrency=1 tests/browser/proxy-host/; then
  tail -20 "$work/panecast.out" >&2
  die "the page did not say why the proxy's Host was refused"
fi
python3 - "$work/panecast.out" <<'PY' || die "the server did not log why it refused the page's origin"
import json, sys
warned = [json.loads(l) for l in open(sys.argv[1]) if "origin_forbidden" in l]
fields = [w.get("fields", {}) for w in warned]
assert any("$http_host" in f.get("reason", "") and f.get("fix") for f in fields), fields
print("the server logged:", fields[-1]["reason"])
PY

step "caddy with deploy/Caddyfile"
caddy_port=$(free_port)
caddy_http_port=$(free_port)
caddy_admin_port=$(free_port)
mkdir -p "$work/caddy"
cp deploy/Caddyfile "$work/caddy/Caddyfile"
cfile=$work/caddy/Caddyfile
substitute "$cfile" '^\s*admin localhost:2019$' "	admin localhost:$caddy_admin_port"
substitute "$cfile" '^\s*http_port 80$' "	http_port $caddy_http_port"
substitute "$cfile" '^\s*https_port 443$' "	https_port $caddy_port"
substitute "$cfile" 'tls /etc/ssl/panecast.crt /etc/ssl/panecast.key' "tls $work/panecast.crt $work/panecast.key"
substitute "$cfile" 'output file /var/log/caddy/panecast.access.log' "output file $work/caddy/access.log"
substitute "$cfile" 'reverse_proxy 127.0.0.1:7681' "reverse_proxy 127.0.0.1:$upstream"
substitute "$cfile" 'read_timeout 60s' "read_timeout ${READ_TIMEOUT_S}s"
(umask 077 && printf 'header_up X-Panecast-Proxy "%s"\n' "$SECRET" >"$work/caddy/panecast-proxy.caddy")
substitute "$cfile" 'import /etc/caddy/panecast-proxy.caddy' "import $work/caddy/panecast-proxy.caddy"
HOME=$work/caddy XDG_DATA_HOME=$work/caddy/data XDG_CONFIG_HOME=$work/caddy/config \
  caddy run --adapter caddyfile --config "$cfile" >"$work/caddy/caddy.log" 2>&1 &
pids+=($!)
wait_port "$caddy_port" caddy "$!"
through caddy "$caddy_port" "$work/caddy/access.log"

step "built-in TLS (--tls-cert, --tls-key) through curl"
tls_port=$(free_port)
printf 'public_names = ["%s"]\n' "$NAME" >"$work/panecast-tls.toml"
RUST_LOG=warn "$BIN" serve --listen "127.0.0.1:$tls_port" --token "$TOKEN" --base-path /term \
  --config "$work/panecast-tls.toml" \
  --tls-cert "$work/panecast.crt" --tls-key "$work/panecast.key" >"$work/panecast-tls.out" 2>&1 &
pids+=($!)
wait_port "$tls_port" "panecast with TLS" "$!"
tls_curl() {
  curl -sS --fail-with-body --max-time 10 --resolve "$NAME:$tls_port:127.0.0.1" --cacert "$work/panecast.crt" \
    -H "Authorization: Bearer $TOKEN" "$@"
}
tls_curl -o /dev/null -w "GET /term/healthz over TLS: %{http_code} (%{scheme})\n" "https://$NAME:$tls_port/term/healthz"
tls_curl "https://$NAME:$tls_port/term/api/profiles" | grep -q shell || die "no profiles over TLS"
echo "GET /term/api/profiles over TLS: the profiles"
if curl -sS -o /dev/null --max-time 5 "http://127.0.0.1:$tls_port/term/healthz" 2>/dev/null; then
  die "plain HTTP was answered on the TLS port"
fi
echo "plain HTTP on the TLS port: refused"
"$BIN" health --listen "127.0.0.1:$tls_port" --base-path /term --tls-cert "$work/panecast.crt" ||
  die "panecast health did not probe the TLS-only server with its certificate"
echo "panecast health --tls-cert: healthy over https"

echo
echo "proxies: all checks passed"
