#!/usr/bin/env bash
# The asciinema ecosystem both ways, with the real asciinema 2.4 from PyPI
# (installed, idempotently, into a virtualenv under target/):
#   1. a session recorded by panecast plays in `asciinema cat`, which must
#      print exactly the bytes the program wrote (a payload of UTF-8 text,
#      CJK, emoji, colours and cursor motion, in a raw-mode terminal so the
#      line discipline changes nothing);
#   2. a file recorded by the real `asciinema rec` (run inside a panecast
#      session, which gives it a pty) renders with `panecast render` to the
#      screen the session itself shows.
# Usage: PANECAST_BIN=target/debug/panecast bash tests/asciinema.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${PANECAST_BIN:-$PWD/target/debug/panecast}
VENV=$PWD/target/asciinema-venv
TOKEN=asciinema-test-token

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "install: asciinema 2.4.0 (PyPI, into $VENV)"
if ! "$VENV/bin/asciinema" --version 2>/dev/null | grep -q '^asciinema 2\.4\.0$'; then
    if ! { command -v python3 >/dev/null && python3 -m venv "$VENV" 2>/dev/null; }; then
        # Debian ships the venv module (and pip) apart from python3.
        SUDO=""
        [[ $(id -u) -eq 0 ]] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv >/dev/null
        rm -rf "$VENV"
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install -q --disable-pip-version-check asciinema==2.4.0
fi
"$VENV/bin/asciinema" --version

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
    if [[ -n $SERVER_PID ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

printf 'recordings_dir = "%s/recordings"\n' "$WORK" > "$WORK/panecast.toml"
"$BIN" serve --listen 127.0.0.1:0 --token "$TOKEN" --allow-any-command \
    --config "$WORK/panecast.toml" > "$WORK/serve.out" 2> "$WORK/serve.err" &
SERVER_PID=$!
for _ in $(seq 200); do
    grep -q 'http://' "$WORK/serve.out" 2>/dev/null && break
    sleep 0.05
done
BASE=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" | head -1)
[[ -n $BASE ]] || fail "the server printed no address: $(cat "$WORK/serve.err")"

api() { curl -sS -f -H "Authorization: Bearer $TOKEN" "$@"; }
field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
create() { api -X POST -H 'Content-Type: application/json' -d "$1" "$BASE/api/sessions" | field "['id']"; }
wait_exit() {
    for _ in $(seq 500); do
        [[ $(api "$BASE/api/sessions/$1" | field "['running']") == False ]] && return 0
        sleep 0.05
    done
    fail "session $1 did not exit"
}

step "panecast's recording in asciinema cat: the bytes the program wrote"
python3 - "$WORK/payload" <<'PY'
import random, sys
random.seed(11)
words = ["hello", "wörld", "中文字符", "emoji 😀👍🏽", "e\u0301", "\x1b[1;31mred\x1b[m",
         "\x1b[38;2;10;200;30mtrue\x1b[0m", "\x1b[2A\x1b[5C", "tab\tstop", "\x1b[K"]
lines = [" ".join(random.choice(words) for _ in range(random.randint(1, 12))) for _ in range(6000)]
open(sys.argv[1], "wb").write("\r\n".join(lines).encode())
PY
ID=$(create "{\"command\": [\"sh\", \"-c\", \"stty raw -echo; cat '$WORK/payload'\"], \"record\": true, \"cols\": 100, \"rows\": 30}")
wait_exit "$ID"
api -L "$BASE/api/sessions/$ID/recording" > "$WORK/panecast.cast"
head -c 300 "$WORK/panecast.cast"; echo
"$VENV/bin/asciinema" cat "$WORK/panecast.cast" > "$WORK/cat.out"
cmp "$WORK/payload" "$WORK/cat.out" || fail "asciinema cat does not give back the program's bytes"
echo "ok: $(wc -c < "$WORK/payload") bytes identical"

step "a file recorded by the real asciinema rec, rendered by panecast render"
ID=$(create "{\"command\": [\"$VENV/bin/asciinema\", \"rec\", \"-q\", \"-c\", \"printf 'rec \\\\033[1mbold\\\\033[m\\\\r\\\\n\\\\033[32mgreen\\\\033[m 中文'\", \"$WORK/real.cast\"], \"env\": {\"ASCIINEMA_CONFIG_HOME\": \"$WORK/asciinema\"}, \"cols\": 60, \"rows\": 10}")
wait_exit "$ID"
[[ -s $WORK/real.cast ]] || fail "asciinema rec wrote nothing: $(api "$BASE/api/sessions/$ID/screen")"
head -c 300 "$WORK/real.cast"; echo
"$BIN" render "$WORK/real.cast" > "$WORK/rendered.txt"
grep -q 'green 中文' "$WORK/rendered.txt" || fail "render lacks the recorded text: $(cat "$WORK/rendered.txt")"
"$BIN" render --format json "$WORK/real.cast" | python3 -c "
import json, sys
screen = json.load(sys.stdin)
assert (screen['cols'], screen['rows']) == (60, 10), (screen['cols'], screen['rows'])
assert screen['lines'][0] == 'rec bold', screen['lines'][:2]
assert screen['lines'][1] == 'green 中文', screen['lines'][:2]
"
echo "ok: rendered at 60x10 as recorded"
cp "$WORK/real.cast" "$WORK/recordings/asciinema-rec.cast"
api "$BASE/api/recordings" | python3 -c "
import json, sys
names = [r['name'] for r in json.load(sys.stdin)['recordings']]
assert 'asciinema-rec' in names, names
"
echo "ok: listed among the recordings"
echo
echo "asciinema round trips passed"
