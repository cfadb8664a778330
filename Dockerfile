# panecast in a container: `docker build -t panecast .`, then
#   docker run -p 127.0.0.1:7681:7681 -e PANECAST_TOKEN=... \
#     --cap-drop ALL --cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add FOWNER --cap-add KILL --cap-add SETGID --cap-add SETUID panecast
# The image listens on 0.0.0.0:7681 inside the container (the one place a
# non-loopback default is right); publish it on loopback or behind a proxy.
# Without PANECAST_TOKEN, serve generates one and logs the URL to open.
#
# The server runs as root in the container, with only the capabilities
# above (Docker's defaults include them), so that every session runs as a
# uid of its own (session_uids, 60600-61099 by default): /healthz says
# "isolation": "uid". PANECAST_TOKEN is then only in the environment of
# root's processes (tini and the server, which also wipes it), which no
# session can read. Without those capabilities (e.g. --user 10001) the server
# still starts, warns, and says "isolation": "none": every session can then
# read every other and the token.

# --- build -----------------------------------------------------------------
FROM rust:1.95-slim-bookworm AS builder
WORKDIR /src
# The dependencies first, from the manifests alone, so that this layer is
# rebuilt only when a manifest or Cargo.lock changes: the crates are built
# against empty sources, which the next step replaces.
COPY Cargo.toml Cargo.lock ./
COPY server/Cargo.toml server/
COPY proto/Cargo.toml proto/
COPY term/Cargo.toml term/
# The workspace also names tools/netsim, a test tool the image does not
# hold: its manifest and empty sources (kept) satisfy the workspace.
COPY tools/netsim/Cargo.toml tools/netsim/
ENV CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true
RUN mkdir -p server/src server/benches term/src term/benches proto/src tools/netsim/src \
 && echo 'fn main() {}' > server/src/main.rs \
 && echo 'fn main() {}' > server/build.rs \
 && echo 'fn main() {}' > term/build.rs \
 && echo 'fn main() {}' > tools/netsim/src/main.rs \
 && touch server/src/lib.rs term/src/lib.rs proto/src/lib.rs tools/netsim/src/lib.rs \
 && for crate in server term; do \
      for bench in $(sed -n '/^\[\[bench\]\]/{n;s/^name = "\(.*\)"/\1/p}' "$crate/Cargo.toml"); do \
        echo 'fn main() {}' > "$crate/benches/$bench.rs"; \
      done; \
    done \
 && cargo build --release --locked -p panecast-server --bin panecast \
 && rm -rf server/src server/build.rs term/src term/build.rs proto/src
COPY proto proto
COPY term term
COPY server server
COPY web web
# The sources may be older than the stubs they replace: make them newer.
RUN find server term proto web -type f -exec touch {} + \
 && cargo build --release --locked -p panecast-server --bin panecast

# --- run -------------------------------------------------------------------
FROM debian:bookworm-slim
LABEL org.opencontainers.image.title="panecast" \
      org.opencontainers.image.description="Headless terminal-rendering service: ptys on the server, changed lines over WebSocket"
# bash for the shell profile, CA certificates for programs that use TLS, tini
# as PID 1 (forwards signals, reaps zombies). C.UTF-8 ships with libc.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      bash ca-certificates tini \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && mkdir -p -m 0711 /var/lib/panecast /var/lib/panecast/homes \
 && useradd --system --uid 10001 --user-group --create-home \
      --home-dir /home/panecast --shell /bin/bash panecast
COPY --from=builder /src/target/release/panecast /usr/local/bin/panecast
ENV LANG=C.UTF-8 \
    SHELL=/bin/bash \
    PANECAST_LISTEN=0.0.0.0:7681
# Recordings go to /var/lib/panecast/recordings (0700); each session's
# private HOME to /var/lib/panecast/homes/SESSIONID (0700, its own uid). The
# user panecast (10001) is for running without the capabilities (the
# Kubernetes manifests do: "isolation": "none"), from /home/panecast.
WORKDIR /var/lib/panecast
EXPOSE 7681
# `panecast health` asks /healthz of the server PANECAST_LISTEN and
# PANECAST_BASE_PATH describe (the image has no curl).
HEALTHCHECK --interval=5s --timeout=6s --start-period=10s --retries=3 \
  CMD ["panecast", "health"]
ENTRYPOINT ["tini", "--", "panecast"]
CMD ["serve"]
