//! Built-in TLS as an operator runs it: `panecast serve --tls-cert F
//! --tls-key F` with a self-signed certificate; the API and the WebSocket
//! stream over TLS (tokio-rustls and tokio-tungstenite trusting only that
//! certificate); a new certificate served after SIGHUP without a restart.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_rustls::{client::TlsStream, TlsConnector};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "tls-test-token-0123";
const LIMIT: Duration = Duration::from_secs(10);

/// A fresh self-signed certificate for `localhost`, written to `dir`.
fn certificate(dir: &Path, cert: &Path, key: &Path) -> CertificateDer<'static> {
    std::fs::create_dir_all(dir).expect("a directory");
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("a certificate");
    std::fs::write(cert, certified.cert.pem()).expect("write the certificate");
    std::fs::write(key, certified.key_pair.serialize_pem()).expect("write the key");
    certified.cert.der().clone()
}

struct Served {
    child: Child,
    port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(cert: &Path, key: &Path) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    let mut child = command
        .args(["serve", "--listen", "127.0.0.1:0", "--allow-any-command"])
        .arg("--tls-cert")
        .arg(cert)
        .arg("--tls-key")
        .arg(key)
        .env("PANECAST_TOKEN", TOKEN)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("panecast serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped"))
        .read_line(&mut line)
        .expect("the first line");
    let rest = line
        .split("https://127.0.0.1:")
        .nth(1)
        .unwrap_or_else(|| panic!("no https URL in {line:?}"));
    let port = rest[..rest.find('/').expect("a path")]
        .parse()
        .expect("a port");
    Served { child, port }
}

/// A TLS connection that trusts only `trusted`.
async fn connect(port: u16, trusted: &[CertificateDer<'static>]) -> TlsStream<TcpStream> {
    let mut roots = RootCertStore::empty();
    for cert in trusted {
        roots.add(cert.clone()).expect("a root");
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    let name = ServerName::try_from("localhost").expect("a name");
    tokio::time::timeout(
        LIMIT,
        TlsConnector::from(Arc::new(config)).connect(name, tcp),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds")
}

/// One request over a fresh TLS connection; the status line and the body.
async fn request(port: u16, trusted: &[CertificateDer<'static>], head: &str, body: &str) -> String {
    let mut tls = connect(port, trusted).await;
    let text = format!(
        "{head} HTTP/1.1\r\nHost: localhost:{port}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tls.write_all(text.as_bytes()).await.expect("send");
    let mut answer = String::new();
    tokio::time::timeout(LIMIT, tls.read_to_string(&mut answer))
        .await
        .expect("an answer in time")
        .expect("read");
    answer
}

fn temp_dir() -> PathBuf {
    std::env::temp_dir().join(format!("panecast-tls-test-{}", std::process::id()))
}

#[tokio::test]
async fn the_api_and_the_stream_over_tls_and_a_new_certificate_on_sighup() {
    let dir = temp_dir();
    let (cert, key) = (dir.join("server.crt"), dir.join("server.key"));
    let first = certificate(&dir, &cert, &key);
    let served = serve(&cert, &key);
    let port = served.port;

    let health = request(port, std::slice::from_ref(&first), "GET /healthz", "").await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let created = request(
        port,
        std::slice::from_ref(&first),
        "POST /api/sessions",
        r#"{"command": ["cat"]}"#,
    )
    .await;
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let body = &created[created.find("\r\n\r\n").expect("a body") + 4..];
    let id = serde_json::from_str::<serde_json::Value>(body).expect("JSON")["id"]
        .as_str()
        .expect("an id")
        .to_owned();

    let tls = connect(port, std::slice::from_ref(&first)).await;
    let mut ws_request = format!("wss://localhost:{port}/api/sessions/{id}/ws?role=view")
        .into_client_request()
        .expect("a request");
    ws_request.headers_mut().insert(
        "authorization",
        format!("Bearer {TOKEN}").parse().expect("a header"),
    );
    let (mut ws, response) = tokio_tungstenite::client_async(ws_request, tls)
        .await
        .expect("the upgrade over TLS");
    assert_eq!(response.status(), 101);
    let hello = tokio::time::timeout(LIMIT, ws.next())
        .await
        .expect("a message in time")
        .expect("a message")
        .expect("no error");
    assert!(matches!(hello, Message::Binary(_)), "{hello:?}");

    let second = certificate(&dir, &cert, &key);
    assert_ne!(first, second);
    // SAFETY: kill(2) with a pid this test started and a valid signal.
    let pid = i32::try_from(served.child.id()).expect("a pid");
    assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0);
    let both = [first.clone(), second.clone()];
    let deadline = Instant::now() + LIMIT;
    loop {
        let tls = connect(port, &both).await;
        let presented = tls.get_ref().1.peer_certificates().expect("a certificate")[0].clone();
        if presented == second {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the old certificate is still served"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The stream opened before the reload goes on.
    ws.send(Message::Ping(b"still there".to_vec().into()))
        .await
        .expect("send a ping");
    let pong = loop {
        let message = tokio::time::timeout(LIMIT, ws.next())
            .await
            .expect("an answer in time")
            .expect("the connection is open")
            .expect("no error");
        if let Message::Pong(payload) = message {
            break payload;
        }
    };
    assert_eq!(&pong[..], b"still there");
    drop(served);
    std::fs::remove_dir_all(dir).expect("clean up");
}

/// `panecast health` with `args`, no PANECAST_ variable inherited: its
/// exit status and what it printed.
fn health(args: &[&str]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_panecast"));
    for (name, _) in std::env::vars() {
        if name.starts_with("PANECAST_") {
            command.env_remove(name);
        }
    }
    let out = command
        .arg("health")
        .args(args)
        .output()
        .expect("panecast health runs");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

#[test]
fn health_probes_a_tls_only_server_through_its_certificate() {
    // Not under temp_dir(): the other test removes that when it ends.
    let dir = std::env::temp_dir().join(format!("panecast-tls-health-{}", std::process::id()));
    let (cert, key) = (dir.join("server.crt"), dir.join("server.key"));
    certificate(&dir, &cert, &key);
    let served = serve(&cert, &key);
    let listen = format!("127.0.0.1:{}", served.port);
    let cert_arg = cert.to_str().expect("a UTF-8 path");
    // As a container's HEALTHCHECK runs it: serve's address and certificate,
    // reached by IP though the certificate names localhost.
    let (healthy, said) = health(&["--listen", &listen, "--tls-cert", cert_arg]);
    assert!(healthy, "{said}");
    // Without the certificate, a self-signed server is not trusted.
    let url = format!("https://localhost:{}/healthz", served.port);
    let (healthy, said) = health(&[&url]);
    assert!(!healthy && said.contains("certificate"), "{said}");
    // Plain http to the TLS port is not health either.
    let (healthy, said) = health(&[&format!("http://{listen}/healthz")]);
    assert!(!healthy, "{said}");
    // Another certificate pinned: refused.
    let other = dir.join("other");
    let (other_cert, other_key) = (other.join("o.crt"), other.join("o.key"));
    certificate(&other, &other_cert, &other_key);
    let other_arg = other_cert.to_str().expect("a UTF-8 path");
    let (healthy, said) = health(&["--listen", &listen, "--tls-cert", other_arg]);
    assert!(!healthy, "{said}");
    drop(served);
    std::fs::remove_dir_all(dir).expect("clean up");
}
