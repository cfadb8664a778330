"""Runs esctest2 (the xterm conformance suite, GPL-2, kept outside this
repository and only run from there) in a session of a panecast server, and
writes one line per test to OUT/results.txt: "PASS|FAIL|XFAIL Class.test".

The server gets a configuration with one profile, `esctest`, that runs the
suite as root in OUT: the suite reads its own files from the shared
checkout and writes its log in OUT, which a session's own uid could not.

Usage: python3 esctest_driver.py PANECAST_BIN ESCTEST_PY OUT [esctest args...]
"""

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import urllib.request

from quiet_port import quiet_port

LIMIT_SECONDS = 900

# What the suite is told about the terminal, as xterm's own options would
# describe panecast: reverse wraparound is xterm 383's (mode 45 goes back
# into soft-wrapped rows only, mode 1045 anywhere), and 8-bit C1 controls
# are read in UTF-8 input too (the suite's allowC2Controls; xterm reads
# them only with wide characters off, its disableWideChars).
TERMINAL = ["--xterm-reverse-wrap=383", "--options", "allowC2Controls"]


def main():
    binary, esctest, out, *extra = sys.argv[1:]
    log = os.path.join(out, "esctest.log")
    argv = [esctest, "--expected-terminal=xterm", "--logfile=" + log, "--no-print-logs",
            *TERMINAL, *extra]
    config = os.path.join(out, "panecast.toml")
    with open(config, "w") as f:
        f.write("[profiles.esctest]\n")
        f.write('command = "python3"\n')
        f.write(f"args = {json.dumps(argv)}\n")
        f.write(f"cwd = {json.dumps(out)}\n")
        if os.geteuid() == 0:
            f.write('user = "root"\n')
    port = quiet_port()
    token = secrets.token_hex(16)
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANECAST_")}
    with open(os.path.join(out, "server.log"), "w") as server_log:
        server = subprocess.Popen(
            [binary, "serve", "--listen", f"127.0.0.1:{port}", "--token", token, "--config", config],
            stdout=server_log, stderr=subprocess.STDOUT, env=env)
    try:
        run(url, token, out, log)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def api(url, token, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, method=method, data=data, headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"null")


def run(url, token, out, log):
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    session = api(url, token, "POST", "/api/sessions", {"profile": "esctest", "cols": 80, "rows": 25})
    start = time.time()
    while api(url, token, "GET", f"/api/sessions/{session['id']}").get("running") is not False:
        if time.time() - start > LIMIT_SECONDS:
            sys.exit(f"esctest did not finish within {LIMIT_SECONDS} s")
        time.sleep(0.5)
    results, current = [], None
    for line in open(log, errors="replace"):
        started = re.match(r"Run test: (\S+)", line)
        if started:
            current = started.group(1)
        elif current and line.startswith("Passed."):
            results.append(("PASS", current))
            current = None
        elif current and line.startswith("*** TEST"):
            results.append(("FAIL", current))
            current = None
        elif current and line.startswith("Fails as expected"):
            results.append(("XFAIL", current))
            current = None
    with open(os.path.join(out, "results.txt"), "w") as f:
        for outcome, name in results:
            f.write(f"{outcome} {name}\n")
    print(f"esctest2 ran {len(results)} tests in {time.time() - start:.0f} s; details in {out}")


if __name__ == "__main__":
    main()
