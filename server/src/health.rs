//! `panecast health [URL]`: one `GET` of `/healthz`, for a container's
//! HEALTHCHECK or a probe on a machine without curl, over http or https
//! (trusting the Mozilla roots and the server's own certificate, so that a
//! TLS-only server with a self-signed one can be probed), with a deadline;
//! healthy means a 200.

use std::time::Duration;

use axum::http::{Request, StatusCode};
use tokio_rustls::TlsConnector;

use crate::http_client::{send, HttpError};

/// How long connecting and the answer may take together.
const DEADLINE: Duration = Duration::from_secs(5);

/// The health URL of a server listening on `listen` (`host:port`) under
/// `base_path`, over https when it serves TLS: an unspecified address
/// (`0.0.0.0`, `[::]`) is reached through loopback.
pub fn default_url(listen: &str, base_path: &str, https: bool) -> String {
    let (host, port) = listen.rsplit_once(':').unwrap_or((listen, "7681"));
    let host = match host {
        "" | "0.0.0.0" => "127.0.0.1",
        "[::]" => "[::1]",
        other => other,
    };
    let scheme = if https { "https" } else { "http" };
    format!("{scheme}://{host}:{port}{base_path}/healthz")
}

/// Asks `url` once (TLS by `tls`); `Ok` when it answers 200 within the
/// deadline, else what went wrong.
pub async fn check(url: &str, tls: &TlsConnector) -> Result<(), HealthError> {
    let request = Request::get(url)
        .body(Vec::new())
        .map_err(|source| HealthError::NotAUrl {
            url: url.to_owned(),
            source,
        })?;
    match send(request, tls, DEADLINE).await {
        Ok(answer) if answer.status() == StatusCode::OK => Ok(()),
        Ok(answer) => Err(HealthError::Status {
            url: url.to_owned(),
            status: answer.status(),
        }),
        Err(source) => Err(HealthError::Unreachable {
            url: url.to_owned(),
            source,
        }),
    }
}

/// Why a server is not healthy, or could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    /// The URL given is none.
    #[error("'{url}' is not a URL: {source}")]
    NotAUrl {
        /// The URL given.
        url: String,
        /// Why.
        source: axum::http::Error,
    },
    /// The server answered, but not 200.
    #[error("{url} answered {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// Its answer.
        status: StatusCode,
    },
    /// No answer within the deadline.
    #[error("{url}: {source}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// Why.
        source: HttpError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_url_reaches_the_listener_through_loopback() {
        assert_eq!(
            default_url("0.0.0.0:7681", "", false),
            "http://127.0.0.1:7681/healthz"
        );
        assert_eq!(
            default_url("[::]:80", "/term", false),
            "http://[::1]:80/term/healthz"
        );
        assert_eq!(
            default_url("10.0.0.5:9000", "", true),
            "https://10.0.0.5:9000/healthz"
        );
    }

    #[tokio::test]
    async fn bad_urls_are_errors_not_panics() {
        for url in [
            "not a url",
            "https://127.0.0.1:1/healthz",
            "/healthz",
            "ftp://h/",
        ] {
            assert!(check(url, &crate::tls::CLIENT).await.is_err(), "{url}");
        }
    }

    #[tokio::test]
    async fn a_closed_port_is_unhealthy() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("address");
        drop(listener);
        let err = check(&format!("http://{addr}/healthz"), &crate::tls::CLIENT)
            .await
            .expect_err("nothing listens");
        assert!(matches!(err, HealthError::Unreachable { .. }), "{err}");
        assert!(err.to_string().contains("cannot connect"), "{err}");
    }
}
