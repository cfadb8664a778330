//! `panecast health [URL]`: one `GET` of `/healthz`, for a container's
//! HEALTHCHECK or a probe on a machine without curl. Plain HTTP/1.1 over
//! TCP, with a deadline; healthy means a 200.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{header, Request, StatusCode, Uri};
use http_body_util::Empty;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// How long connecting and the answer may take together.
const DEADLINE: Duration = Duration::from_secs(5);

/// The health URL of a server listening on `listen` (`host:port`) under
/// `base_path`: an unspecified address (`0.0.0.0`, `[::]`) is reached
/// through loopback.
pub fn default_url(listen: &str, base_path: &str) -> String {
    let (host, port) = listen.rsplit_once(':').unwrap_or((listen, "7681"));
    let host = match host {
        "" | "0.0.0.0" => "127.0.0.1",
        "[::]" => "[::1]",
        other => other,
    };
    format!("http://{host}:{port}{base_path}/healthz")
}

/// Asks `url` once; `Ok` when it answers 200 within the deadline, else what
/// went wrong.
pub async fn check(url: &str) -> Result<(), String> {
    match tokio::time::timeout(DEADLINE, get(url)).await {
        Ok(Ok(StatusCode::OK)) => Ok(()),
        Ok(Ok(status)) => Err(format!("{url} answered {status}")),
        Ok(Err(message)) => Err(message),
        Err(_) => Err(format!("{url} did not answer within {DEADLINE:?}")),
    }
}

async fn get(url: &str) -> Result<StatusCode, String> {
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("'{url}' is not a URL: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!(
            "'{url}': only http:// URLs are checked (probe the plain port, or loopback)"
        ));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("'{url}' names no host"))?
        .clone();
    let port = authority.port_u16().unwrap_or(80);
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let stream = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("cannot connect to {authority}: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("{authority}: {e}"))?;
    tokio::spawn(connection);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let request = Request::get(path)
        .header(header::HOST, authority.as_str())
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("'{url}': {e}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    Ok(response.status())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_url_reaches_the_listener_through_loopback() {
        assert_eq!(
            default_url("0.0.0.0:7681", ""),
            "http://127.0.0.1:7681/healthz"
        );
        assert_eq!(
            default_url("[::]:80", "/term"),
            "http://[::1]:80/term/healthz"
        );
        assert_eq!(
            default_url("10.0.0.5:9000", ""),
            "http://10.0.0.5:9000/healthz"
        );
    }

    #[tokio::test]
    async fn bad_urls_are_errors_not_panics() {
        for url in ["not a url", "https://127.0.0.1:1/healthz", "/healthz"] {
            assert!(check(url).await.is_err(), "{url}");
        }
    }

    #[tokio::test]
    async fn a_closed_port_is_unhealthy() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        drop(listener);
        let err = check(&format!("http://{addr}/healthz"))
            .await
            .expect_err("nothing listens");
        assert!(err.contains("cannot connect"), "{err}");
    }
}
