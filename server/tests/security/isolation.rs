//! Sessions walled off from each other and from the server: each runs as a
//! uid of its own with its own pty and HOME; none can open another's pty,
//! signal its processes, read the server's token from a file or the
//! server's environment, or read recordings; ending a session ends every
//! process it started, escaped ones included, and never signals a pid that
//! may have been reused. These need root (as CI runs them); elsewhere they
//! print why they skip.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::common::{alive, eventually, http, session_id, test_config, Server};

/// True when this test runs as root, which isolation needs.
fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

macro_rules! needs_root {
    () => {
        if !is_root() {
            eprintln!("skipped: sessions get uids of their own only from a server running as root");
            return;
        }
    };
}

/// A directory of its own for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("panecast-isolation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a test directory");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// Waits for `KEY=VALUE` on the session's screen and returns VALUE.
fn field(server: &Server, id: &str, key: &str) -> String {
    let marker = format!("{key}=");
    let screen = server.wait_screen(id, key, |s| s.contains(&marker));
    screen
        .split(&marker)
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_default()
        .to_owned()
}

/// A process this test started, killed and reaped when dropped.
struct Stray(Child);

impl Drop for Stray {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn sessions_run_as_uids_of_their_own_with_a_private_home_and_pty() {
    needs_root!();
    let server = Server::start(test_config());
    let show = "echo uid=$(id -u) gid=$(id -g); echo home=$HOME; echo cwd=$(pwd); echo tty=$(tty); exec cat";
    let sessions: Vec<(String, u32, String, String)> = (0..2)
        .map(|_| {
            let id = session_id(&server.create(&["sh", "-c", show], json!({})));
            let uid: u32 = field(&server, &id, "uid").parse().expect("a uid");
            assert_eq!(
                field(&server, &id, "gid"),
                uid.to_string(),
                "a group of its own"
            );
            let home = field(&server, &id, "home");
            assert_eq!(
                field(&server, &id, "cwd"),
                home,
                "the working directory is HOME"
            );
            (id.clone(), uid, home, field(&server, &id, "tty"))
        })
        .collect();
    let (a, b) = (&sessions[0], &sessions[1]);
    assert_ne!(a.1, b.1, "each session has its own uid");
    for (_, uid, home, tty) in &sessions {
        assert!(
            (60600..=61099).contains(uid),
            "uid {uid} is from session_uids"
        );
        let meta = std::fs::metadata(home).expect("the home exists");
        assert_eq!((meta.uid(), meta.mode() & 0o777), (*uid, 0o700), "{home}");
        let meta = std::fs::metadata(tty).expect("the pty exists");
        assert_eq!((meta.uid(), meta.mode() & 0o777), (*uid, 0o600), "{tty}");
    }
    for (id, _, home, _) in &sessions {
        assert_eq!(server.delete(id).status, 200);
        assert!(!Path::new(home).exists(), "the home goes with the session");
    }
}

#[test]
fn what_a_sessions_uid_leaves_in_tmp_goes_with_it() {
    needs_root!();
    let server = Server::start(test_config());
    let left = PathBuf::from(format!("/tmp/panecast-left-{}", std::process::id()));
    let write = format!(
        "umask 077; echo secret > {0}; echo wrote=$?; exec cat",
        left.display()
    );
    let id = session_id(&server.create(&["sh", "-c", &write], json!({})));
    assert_eq!(field(&server, &id, "wrote"), "0");
    assert!(left.exists(), "the session wrote its file");
    assert_eq!(server.delete(&id).status, 200);
    assert!(!left.exists(), "the file went with the session's uid");
}

#[test]
fn a_session_cannot_open_another_sessions_pty_or_signal_its_processes() {
    needs_root!();
    let server = Server::start(test_config());
    let victim = session_id(&server.create(&["sh", "-c", "echo tty=$(tty); exec cat"], json!({})));
    let tty = field(&server, &victim, "tty");
    let pid = server.session(&victim)["pid"].as_u64().expect("a pid");
    let attack = format!("cat {tty}; echo read=$?; kill -9 {pid}; echo kill=$?; exec cat");
    let attacker = session_id(&server.create(&["sh", "-c", &attack], json!({})));
    assert_eq!(field(&server, &attacker, "read"), "1");
    assert_eq!(field(&server, &attacker, "kill"), "1");
    let screen = server.screen(&attacker);
    assert!(screen.contains("Permission denied"), "{screen}");
    assert!(screen.contains("Operation not permitted"), "{screen}");
    assert_eq!(server.session(&victim)["running"], true);
}

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
    Ok((child, crate::common::address_in_startup_line(&line)))
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
    needs_root!();
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
    needs_root!();
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
fn recordings_are_closed_to_sessions() {
    needs_root!();
    let dir = fresh_dir("recordings");
    let recordings = dir.join("recordings");
    let mut config = test_config();
    config.recordings_dir = recordings.clone();
    let server = Server::start(config);
    let recorded = server.create(
        &["sh", "-c", "echo secret-words; exec cat"],
        json!({"record": true}),
    );
    let name = recorded["recording"].as_str().expect("recorded").to_owned();
    let file = recordings.join(format!("{name}.cast"));
    let mode = |path: &Path| std::fs::metadata(path).expect("exists").mode() & 0o777;
    assert_eq!(mode(&recordings), 0o700);
    assert_eq!(mode(&file), 0o600);
    let peek = format!(
        "ls {0}; echo ls=$?; cat {1}; echo cat=$?; exec cat",
        recordings.display(),
        file.display()
    );
    let thief = session_id(&server.create(&["sh", "-c", &peek], json!({})));
    assert_eq!(field(&server, &thief, "ls"), "2");
    assert_eq!(field(&server, &thief, "cat"), "1");
    assert!(!server.screen(&thief).contains("secret-words"));
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

/// A job that leaves the session's process group, its terminal session,
/// its parent and its marker variable, and prints its pid.
const ESCAPE: &str =
    "setsid -f env -u PANECAST_SESSION sh -c 'echo bg=$$; exec sleep 1000'; exec cat";

#[test]
fn delete_ends_a_job_that_left_the_session_its_parent_and_its_marker() {
    needs_root!();
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", ESCAPE], json!({})));
    let pid = server.background_pid(&id);
    assert!(alive(pid), "the job started");
    assert_eq!(server.delete(&id).status, 200);
    assert!(!alive(pid), "the job ended with the DELETE");
}

#[test]
fn a_named_users_sessions_are_ended_by_their_cgroup() {
    needs_root!();
    let mut config = test_config();
    let profile: panecast::config::Profile = toml::from_str(&format!(
        "command = \"sh\"\nargs = [\"-c\", {ESCAPE:?}]\nuser = \"nobody\"\ncwd = \"/tmp\"\n"
    ))
    .expect("a profile");
    config.profiles.insert("nobody".to_owned(), profile);
    let server = Server::start(config);
    let created = server.call("POST", "/api/sessions", Some(r#"{"profile": "nobody"}"#));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = session_id(&created.json());
    let pid = server.background_pid(&id);
    let cgroup = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
    if !cgroup.contains("/panecast-") {
        server.delete(&id);
        eprintln!("skipped: no cgroup v2 hierarchy the server may write to ({cgroup:?})");
        return;
    }
    let uid = std::fs::metadata(format!("/proc/{pid}"))
        .expect("the job")
        .uid();
    assert_eq!(uid, 65534, "the job runs as nobody");
    assert_eq!(server.delete(&id).status, 200);
    assert!(!alive(pid), "the job ended with its cgroup");
}

#[test]
fn the_uid_pool_never_hands_out_a_uid_a_process_has() {
    needs_root!();
    let (first, second) = (62000, 62001);
    let mut config = test_config();
    config.session_uids = [first, second];
    let server = Server::start(config);
    let mut stray = Command::new("sleep");
    stray.arg("1000").uid(first).gid(first);
    let stray = Stray(stray.spawn().expect("a process of the first uid"));
    let id = session_id(&server.create(&["sh", "-c", "echo uid=$(id -u); exec cat"], json!({})));
    assert_eq!(field(&server, &id, "uid"), second.to_string());
    let full = server.call("POST", "/api/sessions", Some(r#"{"command": ["cat"]}"#));
    assert_eq!(
        (full.status, full.code()),
        (429, "too_many_sessions".to_owned()),
        "{}",
        full.body
    );
    assert!(
        full.body
            .contains("every session uid (62000 to 62001) is in use"),
        "{}",
        full.body
    );
    drop(stray);
    let id = session_id(&server.create(&["sh", "-c", "echo uid=$(id -u); exec cat"], json!({})));
    assert_eq!(
        field(&server, &id, "uid"),
        first.to_string(),
        "free once its process is gone"
    );
}

#[test]
fn delete_after_the_program_was_reaped_spares_processes_that_reused_its_pid() {
    needs_root!();
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["true"], json!({})));
    let pid = server.wait_exit(&id)["pid"].as_u64().expect("a pid") as i32;
    // Make the kernel hand the reaped program's pid to a new process that
    // leads a terminal session of its own with a member, as the processes
    // killed in the trial did.
    let leader = (0..50).find_map(|_| {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).ok()?;
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 1000 & wait"]);
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let stray = Stray(command.spawn().ok()?);
        (stray.0.id() as i32 == pid).then_some(stray)
    });
    let Some(leader) = leader else {
        eprintln!("skipped: could not get pid {pid} again through /proc/sys/kernel/ns_last_pid");
        return;
    };
    let member = eventually("the new session's member", || session_member(pid));
    assert_eq!(server.delete(&id).status, 200);
    assert!(
        alive(leader.0.id()),
        "the process that reused the pid lives"
    );
    assert!(alive(member), "the member of its session lives");
    // SAFETY: kill only sends SIGKILL to the sleep this test started.
    unsafe { libc::kill(member as i32, libc::SIGKILL) };
}

/// A live process, other than its leader, of the terminal session `sid`.
fn session_member(sid: i32) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != sid as u32 && alive(pid))
        .find(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            rest.split_whitespace().nth(3) == Some(&sid.to_string())
        })
}

#[test]
fn a_home_left_by_a_server_that_died_is_removed_at_start() {
    needs_root!();
    let homes = test_config().session_homes;
    std::fs::create_dir_all(&homes).expect("the homes directory");
    let stale = homes.join(format!("stale-{}", std::process::id()));
    std::fs::create_dir_all(&stale).expect("a stale home");
    std::os::unix::fs::chown(&stale, Some(62010), Some(62010)).expect("chown");
    let server = Server::start(test_config());
    // Answered once the server has started, and so looked at its homes.
    assert_eq!(server.raw("GET", "/healthz", &[], None).status, 200);
    assert!(!stale.exists(), "the stale home was removed");
}

#[test]
fn healthz_reports_the_isolation() {
    let server = Server::start(test_config());
    let health = server.raw("GET", "/healthz", &[], None).json();
    let expected = if is_root() { "uid" } else { "none" };
    assert_eq!(health["isolation"], expected, "{health}");
}

#[test]
fn an_unprivileged_server_starts_warns_once_and_reports_none() {
    needs_root!();
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

/// The cgroup v2 directory this test process is in, where a server it
/// starts makes its root; `None` where there is none, or its kernel has no
/// `cgroup.kill` (the server then makes no cgroups).
fn own_cgroup_dir() -> Option<PathBuf> {
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = mountinfo.lines().find_map(|line| {
        let (fields, after) = line.split_once(" - ")?;
        after
            .starts_with("cgroup2 ")
            .then(|| fields.split(' ').nth(4).map(PathBuf::from))?
    })?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = cgroups.lines().find_map(|line| line.strip_prefix("0::"))?;
    let dir = mount.join(own.trim_start_matches('/'));
    let probe = dir.join(format!("panecast-probe-{}", std::process::id()));
    std::fs::create_dir(&probe).ok()?;
    let kill = probe.join("cgroup.kill").exists();
    let _ = std::fs::remove_dir(&probe);
    kill.then_some(dir)
}

macro_rules! needs_cgroups {
    () => {
        match own_cgroup_dir() {
            Some(dir) => dir,
            None => {
                eprintln!(
                    "skipped: no cgroup v2 hierarchy with cgroup.kill that root may write to"
                );
                return;
            }
        }
    };
}

/// A pid no process can have: the kernel's bound (pids stay below it).
/// Not a child's that exited: a server running in this process reaps
/// children it did not start, and a test's own wait would race it.
fn dead_pid() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|max| max.trim().parse().ok())
        .expect("/proc/sys/kernel/pid_max")
}

#[test]
fn cgroups_left_by_servers_that_died_are_removed_at_start() {
    needs_root!();
    let parent = needs_cgroups!();
    let stale = parent.join(format!("panecast-{}-0", dead_pid()));
    let _ = std::fs::create_dir(&stale);
    std::fs::create_dir(stale.join("0123abcd")).expect("a stale session's cgroup");
    // A live process's root stays, whoever made it: init's (this test
    // process's own name is taken by the servers it runs).
    let live = parent.join("panecast-1-0");
    let made_live = std::fs::create_dir(&live).is_ok();
    let server = Server::start(test_config());
    assert_eq!(server.raw("GET", "/healthz", &[], None).status, 200);
    let (stale_left, live_kept) = (stale.exists(), live.exists());
    if made_live {
        let _ = std::fs::remove_dir(&live);
    }
    assert!(!stale_left, "the dead server's cgroups were removed");
    assert!(live_kept, "the live process's root stayed");
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
    needs_root!();
    let parent = needs_cgroups!();
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
