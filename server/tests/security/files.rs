//! Files in and out of a session: every refusal of the file routes. A
//! profile without `files` moves none, a name or path that could leave
//! the working directory is refused, the cap holds whether or not the
//! body says its length, nothing half-written is left, and the files are
//! read and written as the session's user, never as the server's.

use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use panecast::config::{Config, Profile};
use serde_json::json;

use crate::common::{session_id, Response, Server, TOKEN};
use crate::support::{as_, keyed_config, CONTROL_KEY, STARTER_KEY, VIEW_KEY};

/// The cap the cases use.
const CAP: u64 = 64 * 1024;

/// The keyed config with a `files` profile (`/bin/sh`, files on) and a
/// cap of [`CAP`].
fn files_config() -> Config {
    let mut config = keyed_config();
    config.profiles.insert(
        "files".to_owned(),
        Profile {
            command: Some("/bin/sh".to_owned()),
            files: true,
            ..Profile::default()
        },
    );
    config.limits.upload_bytes = CAP;
    config
}

fn start(server: &Server, profile: &str) -> String {
    let body = json!({ "profile": profile }).to_string();
    let r = server.call("POST", "/api/sessions", Some(&body));
    assert_eq!(r.status, 201, "{}", r.body);
    session_id(&r.json())
}

fn put(server: &Server, id: &str, name: &str, body: &[u8]) -> Response {
    let auth = format!("Bearer {TOKEN}");
    server.raw(
        "PUT",
        &format!("/api/sessions/{id}/files/{name}"),
        &[("Authorization", &auth)],
        Some(body),
    )
}

fn get(server: &Server, id: &str, path: &str) -> Response {
    server.call(
        "GET",
        &format!("/api/sessions/{id}/files?path={path}"),
        None,
    )
}

/// The session's working directory (where uploads land).
fn directory(server: &Server, id: &str) -> PathBuf {
    let r = put(server, id, "probe", b"");
    assert_eq!(r.status, 201, "{}", r.body);
    let dir = PathBuf::from(r.json()["directory"].as_str().expect("a directory"));
    std::fs::remove_file(dir.join("probe")).expect("removed");
    dir
}

fn entries(dir: &PathBuf) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("listed")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| !n.starts_with(".profile") && !n.starts_with(".sh_history"))
        .collect();
    names.sort();
    names
}

fn root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_profile_without_files_moves_none() {
    let server = Server::start(files_config());
    let shell = start(&server, "shell");
    let r = put(&server, &shell, "x", b"x");
    assert_eq!((r.status, r.code().as_str()), (403, "files_disabled"));
    let r = get(&server, &shell, "x");
    assert_eq!((r.status, r.code().as_str()), (403, "files_disabled"));
    // A command given in the request has no profile: no files either.
    let command = session_id(&server.create(&["sleep", "60"], json!({})));
    let r = put(&server, &command, "x", b"x");
    assert_eq!((r.status, r.code().as_str()), (403, "files_disabled"));
}

#[test]
fn a_view_key_and_a_foreign_session_are_refused() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let path = format!("/api/sessions/{id}/files/x");
    let r = as_(&server, VIEW_KEY, "PUT", &path, Some("x"));
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    let r = as_(
        &server,
        VIEW_KEY,
        "GET",
        &format!("/api/sessions/{id}/files?path=x"),
        None,
    );
    assert_eq!((r.status, r.code().as_str()), (403, "forbidden"));
    // The starter key is scoped to no session: this one does not exist for it.
    let r = as_(&server, STARTER_KEY, "PUT", &path, Some("x"));
    assert_eq!((r.status, r.code().as_str()), (404, "session_not_found"));
    let r = as_(
        &server,
        STARTER_KEY,
        "GET",
        &format!("/api/sessions/{id}/files?path=x"),
        None,
    );
    assert_eq!((r.status, r.code().as_str()), (404, "session_not_found"));
    // The control key may.
    let r = as_(&server, CONTROL_KEY, "PUT", &path, Some("x"));
    assert_eq!(r.status, 201, "{}", r.body);
}

#[test]
fn bad_names_are_refused_and_nothing_is_written() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let dir = directory(&server, &id);
    let before = entries(&dir);
    let long = "x".repeat(256);
    for name in [
        "a%2Fb",
        "%2Fetc%2Fpasswd",
        "..",
        "%2E%2E",
        ".",
        "%2E",
        "a%00b",
        &long,
    ] {
        let r = put(&server, &id, name, b"x");
        assert_eq!((r.status, r.code().as_str()), (400, "bad_name"), "{name}");
    }
    assert_eq!(entries(&dir), before);
}

#[test]
fn paths_out_of_the_working_directory_are_refused() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    server.run_line(&id,
        "mkdir -p sub && echo inside > sub/f && ln -s /etc/passwd far && ln -s ../.. sub/up && ln -s sub/f near",
        1,
    );
    let r = get(&server, &id, "near");
    assert_eq!((r.status, r.body.as_str()), (200, "inside\n"));
    for path in [
        "../etc/passwd",
        "sub/../../etc/passwd",
        "far",
        "sub/up/etc/passwd",
    ] {
        let r = get(&server, &id, path);
        assert_eq!(
            (r.status, r.code().as_str()),
            (403, "outside_cwd"),
            "{path}"
        );
    }
    for path in ["%2Fetc%2Fpasswd", "a%00b", ""] {
        let r = get(&server, &id, path);
        assert_eq!((r.status, r.code().as_str()), (400, "bad_path"), "{path:?}");
    }
    let r = get(&server, &id, "missing");
    assert_eq!((r.status, r.code().as_str()), (404, "file_not_found"));
    let r = get(&server, &id, "sub");
    assert_eq!((r.status, r.code().as_str()), (400, "not_a_file"));
}

#[test]
fn an_existing_name_or_link_is_not_replaced_unless_asked_and_a_link_is_never_followed() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let dir = directory(&server, &id);
    let outside = std::env::temp_dir().join(format!("panecast-victim-{id}"));
    std::fs::write(&outside, b"keep me").expect("written");
    server.run_line(
        &id,
        &format!("echo old > kept; ln -s {} link", outside.display()),
        1,
    );
    let r = put(&server, &id, "kept", b"new");
    assert_eq!((r.status, r.code().as_str()), (409, "file_exists"));
    assert_eq!(std::fs::read(dir.join("kept")).expect("read"), b"old\n");
    let r = put(&server, &id, "link", b"new");
    assert_eq!((r.status, r.code().as_str()), (409, "file_exists"));
    // Replacing the link replaces the link, not what it points to.
    let r = put(&server, &id, "link?overwrite=true", b"new");
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(std::fs::read(&outside).expect("read"), b"keep me");
    assert!(!std::fs::symlink_metadata(dir.join("link"))
        .expect("there")
        .is_symlink());
    std::fs::remove_file(&outside).expect("removed");
}

#[test]
fn an_upload_over_the_cap_is_refused_with_or_without_its_length_and_leaves_nothing() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let dir = directory(&server, &id);
    let before = entries(&dir);
    let over = vec![b'x'; usize::try_from(CAP).expect("small") + 1];
    let r = put(&server, &id, "big", &over);
    assert_eq!((r.status, r.code().as_str()), (413, "too_large"));
    // Chunked: no length said, refused once the cap is passed.
    let (status, body) = chunked_put(&server, &format!("/api/sessions/{id}/files/big"), &over);
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("too_large"), "{body}");
    let at_cap = &over[1..];
    let r = put(&server, &id, "fits", at_cap);
    assert_eq!(r.status, 201, "{}", r.body);
    crate::common::eventually("the cut upload's temporary file to go", || {
        (entries(&dir).len() == before.len() + 1).then_some(())
    });
    let mut after = before.clone();
    after.push("fits".to_owned());
    after.sort();
    assert_eq!(entries(&dir), after, "no 'big', no temporary file");
    // A download over the cap is refused too.
    server.run_line(&id, &format!("head -c {} /dev/zero > large", CAP + 1), 1);
    let r = get(&server, &id, "large");
    assert_eq!((r.status, r.code().as_str()), (413, "too_large"));
}

#[test]
fn a_declared_length_over_the_cap_is_refused_before_the_body_is_sent() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    // Ten gigabytes announced, none sent: an answer proves nothing was
    // waited for.
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "PUT /api/sessions/{id}/files/huge HTTP/1.1\r\nHost: {}\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Length: 10000000000\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).expect("head");
    let mut answer = [0u8; 12];
    stream
        .read_exact(&mut answer)
        .expect("an answer without the body");
    assert_eq!(&answer, b"HTTP/1.1 413");
}

/// A chunked PUT of `body` with the admin token: the status and the body.
fn chunked_put(server: &Server, path: &str, body: &[u8]) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .expect("timeout");
    let head = format!(
        "PUT {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).expect("head");
    for chunk in body.chunks(8192) {
        let sent = stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .and_then(|()| stream.write_all(chunk))
            .and_then(|()| stream.write_all(b"\r\n"));
        if sent.is_err() {
            // The server answered and closed: the answer is read below.
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

#[test]
fn files_are_read_and_written_as_the_sessions_user() {
    if !root() {
        eprintln!("skipped: needs root (the server changes uids only as root)");
        return;
    }
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let r = put(&server, &id, "mine", b"x");
    assert_eq!(r.status, 201, "{}", r.body);
    let dir = PathBuf::from(r.json()["directory"].as_str().expect("a directory"));
    let pid = server.session(&id)["pid"].as_u64().expect("a pid");
    let session_uid = std::fs::metadata(format!("/proc/{pid}"))
        .expect("process")
        .uid();
    assert_ne!(session_uid, 0, "the session has a uid of its own");
    let file = std::fs::metadata(dir.join("mine")).expect("written");
    assert_eq!(
        file.uid(),
        session_uid,
        "owned by the session's uid, not root"
    );
    // Where root could write and the session's user may not: refused.
    server.run_line(&id, "cd /", 1);
    let r = put(&server, &id, "planted", b"x");
    assert_eq!((r.status, r.code().as_str()), (403, "file_denied"));
    assert!(!std::path::Path::new("/planted").exists());
    // What root could read and the session's user may not: refused.
    server.run_line(&id, "cd /etc", 2);
    let r = get(&server, &id, "shadow");
    assert_eq!((r.status, r.code().as_str()), (403, "file_denied"));
}

#[test]
fn a_cross_site_upload_riding_the_cookie_is_refused() {
    let server = Server::start(files_config());
    let id = start(&server, "files");
    let dir = directory(&server, &id);
    let cookie = format!("panecast_token={TOKEN}");
    let same = format!("http://{}", server.addr);
    let path = format!("/api/sessions/{id}/files/planted");
    for (what, origin, content_type) in [
        (
            "a foreign site",
            Some("https://evil.example"),
            "application/octet-stream",
        ),
        ("no Origin", None, "application/octet-stream"),
        (
            "a form (multipart)",
            Some(same.as_str()),
            "multipart/form-data; boundary=x",
        ),
        ("a form (text/plain)", Some(same.as_str()), "text/plain"),
    ] {
        let mut headers = vec![("Cookie", cookie.as_str()), ("Content-Type", content_type)];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        let r = server.raw("PUT", &path, &headers, Some(b"x"));
        assert_eq!((r.status, r.code().as_str()), (403, "csrf"), "{what}");
    }
    assert!(!dir.join("planted").exists());
    // The session's own page, sending raw bytes: allowed.
    let r = server.raw(
        "PUT",
        &path,
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/octet-stream"),
            ("Origin", &same),
        ],
        Some(b"x"),
    );
    assert_eq!(r.status, 201, "{}", r.body);
}
