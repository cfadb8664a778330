//! A recording cut short by a full disk says so: the listing gives its
//! reason (`cut`), the file stays valid asciicast up to its last whole
//! event, and its duration is that event's time, not 0.
//!
//! The disk is a 256 KiB tmpfs mounted in a mount namespace of its own, in
//! which the real binary runs; that needs root (as the test command runs
//! in CI) and `unshare`. Without them the test says why and skips.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use crate::common::process::startup_line;
use crate::common::{eventually, http};

const TOKEN: &str = "recordings-cut-token-0123";

/// `panecast serve` with its recordings on a fresh 256 KiB tmpfs.
struct OnSmallDisk {
    child: Child,
    addr: SocketAddr,
    dir: std::path::PathBuf,
}

impl OnSmallDisk {
    /// None (and why) when a tmpfs cannot be mounted here.
    fn start() -> Result<OnSmallDisk, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root: cannot mount a small tmpfs".into());
        }
        let probe = Command::new("unshare")
            .args(["-m", "true"])
            .stderr(Stdio::null())
            .status();
        if !probe.is_ok_and(|s| s.success()) {
            return Err("unshare -m is not available: cannot mount a private tmpfs".into());
        }
        let dir = std::env::temp_dir().join(format!("panecast-cut-{}", std::process::id()));
        let recordings = dir.join("recordings");
        std::fs::create_dir_all(&recordings).map_err(|e| e.to_string())?;
        let config = dir.join("panecast.toml");
        std::fs::write(
            &config,
            format!("recordings_dir = \"{}\"\n", recordings.display()),
        )
        .map_err(|e| e.to_string())?;
        let script = format!(
            "mount -t tmpfs -o size=256k,mode=0700 tmpfs '{}' || exit 97; exec '{}' serve --listen 127.0.0.1:0 --allow-any-command --config '{}'",
            recordings.display(),
            env!("CARGO_BIN_EXE_panecast"),
            config.display()
        );
        let mut command = Command::new("unshare");
        for (name, _) in std::env::vars() {
            if name.starts_with("PANECAST_") {
                command.env_remove(name);
            }
        }
        let mut child = command
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .env("PANECAST_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let Some(addr) = startup_line(&mut child).1 else {
            let status = child.wait().map_err(|e| e.to_string())?;
            return Err(format!("the tmpfs could not be mounted ({status})"));
        };
        Ok(OnSmallDisk { child, addr, dir })
    }

    fn call(&self, method: &str, path: &str, body: Option<&str>) -> http::Response {
        let auth = format!("Bearer {TOKEN}");
        http(
            self.addr,
            method,
            path,
            &[("Authorization", &auth)],
            body.map(str::as_bytes),
        )
    }
}

impl Drop for OnSmallDisk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn a_recording_cut_by_a_full_disk_says_why_and_keeps_its_duration() {
    let server = match OnSmallDisk::start() {
        Ok(server) => server,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    // A little output, twice, with pauses, then far more than the disk
    // holds. However the flood is cut into writes, the two lines before it
    // are whole events on the disk, the second at 0.3 s or later.
    let body = r#"{"record": true, "command": ["sh", "-c", "echo start; sleep 0.3; echo middle; sleep 0.3; seq 1 200000; sleep 60"]}"#;
    let r = server.call("POST", "/api/sessions", Some(body));
    assert_eq!(r.status, 201, "{}", r.body);
    let recording: Value = eventually("the recording to be cut", || {
        let list = server.call("GET", "/api/recordings", None).json();
        list["recordings"]
            .as_array()
            .and_then(|all| all.first().cloned())
            .filter(|rec| !rec["cut"].is_null())
    });
    assert_eq!(recording["cut"], "disk full", "{recording}");
    assert_eq!(recording["live"], false, "{recording}");
    assert!(
        recording["duration"].as_f64().is_some_and(|d| d >= 0.3),
        "the duration of the whole events kept: {recording}"
    );
    // The file is valid asciicast: every line parses, up to the cut.
    let name = recording["name"].as_str().expect("a name");
    let file = server.call("GET", &format!("/api/recordings/{name}"), None);
    assert_eq!(file.status, 200);
    let mut lines = file.body.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header")).expect("JSON");
    assert_eq!(header["version"], 2);
    let mut last = 0.0;
    for line in lines {
        let event: (f64, String, Value) =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        assert!(["o", "m", "r"].contains(&event.1.as_str()), "{line}");
        last = event.0;
    }
    // The listing's duration is the last whole event's time.
    let duration = recording["duration"].as_f64().expect("a duration");
    assert!(
        (duration - last).abs() < 1e-3,
        "{duration} vs the last event at {last}"
    );
}
