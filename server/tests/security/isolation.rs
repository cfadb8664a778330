//! Sessions walled off from each other and from the server: each runs as a
//! uid of its own with its own pty and HOME; none can open another's pty,
//! signal its processes, read the server's token from a file or the
//! server's environment, or read recordings; ending a session ends every
//! process it started, escaped ones included, and never signals a pid that
//! may have been reused. These need root (as CI runs them); elsewhere they
//! print why they skip. The checks that run the binary as a child are in
//! `tests/isolation_processes.rs`.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::json;

use crate::common::isolation::{cgroup_dir, fresh_dir, is_root, runs_as_root};
use crate::common::{alive, eventually, session_id, test_config, Server};

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
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
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

#[test]
fn recordings_are_closed_to_sessions() {
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
    let server = Server::start(test_config());
    let id = session_id(&server.create(&["sh", "-c", ESCAPE], json!({})));
    let pid = server.background_pid(&id);
    assert!(alive(pid), "the job started");
    assert_eq!(server.delete(&id).status, 200);
    assert!(!alive(pid), "the job ended with the DELETE");
}

#[test]
fn a_named_users_sessions_are_ended_by_their_cgroup() {
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
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
    if !runs_as_root() {
        return;
    }
    let Some(parent) = cgroup_dir() else {
        return;
    };
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
