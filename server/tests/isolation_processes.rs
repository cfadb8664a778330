//! Isolation checks that run the `panecast` binary as a child and wait for
//! it: a token file sessions cannot read and the server refuses when others
//! may, and a server started without root (how it says so, and that it does
//! not take a root-owned cgroup of its name). They live in a test binary of
//! their own because a server running in-process reaps children it did not
//! start (it adopts a session's escaped processes), and would take the exit
//! of a binary these tests wait for. These need root (as CI runs them);
//! elsewhere they print why they skip.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use common::isolation::{cgroup_dir, fresh_dir, runs_as_root};
use common::{eventually, http, session_id};

/// The real binary, started with `args`; its address, or its exit and stderr.
fn start_binary(
    args: &[&str],
    pre: Option<fn() -> std::io::Result<()>>,
) -> Result<(Child, std::net::SocketAddr), (i32, String)> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--allow-any-command"])
        .args(args)
        .env_remove("PANECAST_TOKEN")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(pre) = pre {
        // SAFETY: the closures given only make async-signal-safe calls.
        unsafe { command.pre_exec(pre) };
    }
    let mut child = command.spawn().expect("the panecast binary");
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line);
    if line.is_empty() {
        let status = child.wait().expect("the server's exit");
        let mut stderr = String::new();
        let _ = child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr);
        return Err((status.code().unwrap_or(-1), stderr));
    }
    Ok((child, common::address_in_startup_line(&line)))
}

/// Stops a server started by [`start_binary`] and returns its logs.
fn stop_binary(mut child: Child) -> String {
    // SAFETY: kill only sends SIGTERM to the server this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    let mut logs = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut logs);
    }
    logs
}

fn call(
    addr: std::net::SocketAddr,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> http::Response {
    let auth = format!("Bearer {token}");
    let body = body.map(|b| b.to_string());
    http(
        addr,
        method,
        path,
        &[("Authorization", &auth)],
        body.as_deref().map(str::as_bytes),
    )
}

#[test]
fn a_session_cannot_read_the_token_from_its_file_or_the_servers_environment() {
    if !runs_as_root() {
        return;
    }
    const TOKEN: &str = "isolation-token-0123456789abcdef";
    let dir = fresh_dir("token");
    let file = dir.join("token");
    std::fs::write(&file, TOKEN).expect("write the token");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let (server, addr) = start_binary(&["--token-file", file.to_str().expect("utf-8")], None)
        .expect("the server starts");
    let steal = format!(
        "cat {}; cat /proc/$PPID/environ; echo done=1; exec cat",
        file.display()
    );
    let created = call(
        addr,
        TOKEN,
        "POST",
        "/api/sessions",
        Some(json!({"command": ["sh", "-c", steal]})),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let id = session_id(&created.json());
    let screen = eventually("the attempts", || {
        let screen = call(
            addr,
            TOKEN,
            "GET",
            &format!("/api/sessions/{id}/screen?format=text"),
            None,
        )
        .body;
        screen.contains("done=1").then_some(screen)
    });
    assert!(!screen.contains(TOKEN), "the token leaked: {screen}");
    assert_eq!(screen.matches("Permission denied").count(), 2, "{screen}");
    stop_binary(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_token_file_others_may_read_is_refused_at_start() {
    if !runs_as_root() {
        return;
    }
    let dir = fresh_dir("open-token");
    let file = dir.join("token");
    std::fs::write(&file, "isolation-token-0123456789abcdef").expect("write the token");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let refused = start_binary(&["--token-file", file.to_str().expect("utf-8")], None);
    let Err((code, stderr)) = refused else {
        panic!("a server started with a token file others may read");
    };
    assert_eq!(code, 1);
    assert!(
        stderr.contains("may be read by other users (mode 644)")
            && stderr.contains(&format!("run chmod 600 {}", file.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_unprivileged_server_starts_warns_once_and_reports_none() {
    if !runs_as_root() {
        return;
    }
    fn drop_to_nobody() -> std::io::Result<()> {
        // SAFETY: raw system calls between fork and exec.
        unsafe {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(65534, 65534, 65534) != 0
                || libc::setresuid(65534, 65534, 65534) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
    let dir = fresh_dir("unprivileged");
    let file = dir.join("token");
    std::fs::write(&file, "isolation-token-0123456789abcdef").expect("write the token");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (server, addr) = start_binary(
        &["--token-file", file.to_str().expect("utf-8")],
        Some(drop_to_nobody),
    )
    .expect("an unprivileged server starts, even with a token file others may read");
    let health = http(addr, "GET", "/healthz", &[], None).json();
    assert_eq!(health["isolation"], "none", "{health}");
    let logs = stop_binary(server);
    assert_eq!(
        logs.matches("sessions cannot be walled off").count(),
        1,
        "{logs}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Where [`collide_then_drop_to_nobody`] makes the root-owned directory:
/// the cgroup's path, with `/panecast-` after it.
static COLLISION_PREFIX: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Between fork and exec: makes, as root, the cgroup a server of this pid
/// would make (`panecast-PID-0`), then drops to nobody, so that the server
/// finds a directory of its name it may not write in, as it does when a
/// dead root server had its pid.
fn collide_then_drop_to_nobody() -> std::io::Result<()> {
    let prefix = COLLISION_PREFIX.get().expect("set before the spawn");
    // No allocation between fork and exec: the path is built on the stack.
    let mut path = [0u8; 4096];
    let mut len = prefix.len();
    path[..len].copy_from_slice(prefix);
    // SAFETY: getpid cannot fail.
    let mut pid = unsafe { libc::getpid() } as u32;
    let mut digits = [0u8; 10];
    let mut count = 0;
    loop {
        digits[count] = b'0' + (pid % 10) as u8;
        count += 1;
        pid /= 10;
        if pid == 0 {
            break;
        }
    }
    for digit in digits[..count].iter().rev() {
        path[len] = *digit;
        len += 1;
    }
    path[len..len + 2].copy_from_slice(b"-0");
    // The byte after is 0: the path is terminated.
    // SAFETY: raw system calls between fork and exec, on a terminated path.
    unsafe {
        if libc::mkdir(path.as_ptr().cast(), 0o755) != 0
            || libc::setgroups(0, std::ptr::null()) != 0
            || libc::setresgid(65534, 65534, 65534) != 0
            || libc::setresuid(65534, 65534, 65534) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[test]
fn an_unprivileged_server_does_not_take_a_root_owned_cgroup_of_its_name() {
    if !runs_as_root() {
        return;
    }
    let Some(parent) = cgroup_dir() else {
        return;
    };
    let prefix = parent.join("panecast-");
    COLLISION_PREFIX.get_or_init(|| prefix.as_os_str().as_encoded_bytes().to_vec());
    let (server, addr) = start_binary(&[], Some(collide_then_drop_to_nobody))
        .expect("an unprivileged server starts");
    let collision = parent.join(format!("panecast-{}-0", server.id()));
    let made = collision.exists();
    let health = http(addr, "GET", "/healthz", &[], None).json();
    // Stopped and cleaned up before asserting: a failed assertion must not
    // leave the server running.
    let logs = stop_binary(server);
    let _ = std::fs::remove_dir(&collision);
    assert!(made, "the colliding directory was made");
    assert_eq!(health["isolation"], "none", "{health}");
    assert!(logs.contains("sessions cannot be walled off"), "{logs}");
}
