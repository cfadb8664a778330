//! Opens a session's WebSocket stream as the web page does: subprotocol
//! `panecast`, the credential as `panecast.token.T` (never in the URL),
//! over TLS for https URLs.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axum::http::HeaderValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::TlsConnector;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Error as WsError;
use tokio_tungstenite::WebSocketStream;

use super::target::Target;
use crate::api::{PROTOCOL, TOKEN_PROTOCOL};

/// The longest connecting (TCP, TLS and the upgrade) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// A byte stream a WebSocket runs on: TCP or TLS over TCP.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// An open stream.
pub type Stream = WebSocketStream<Box<dyn Io>>;

/// Why the stream could not be opened.
#[derive(Debug)]
pub enum ConnectError {
    /// The server answered the upgrade with an HTTP error.
    Refused {
        /// The HTTP status.
        status: u16,
        /// The API's error code and message, when the body is the API's JSON.
        reason: String,
    },
    /// No connection, TLS failed, or the server does not speak the stream.
    Failed(String),
}

/// What a connection is opened with: the session, the role asked for, the
/// credential, the TLS roots.
#[derive(Clone)]
pub struct Dialer {
    /// The session's stream (its id once a `Hello` said it).
    pub target: Target,
    /// "view" or "control".
    pub role: &'static str,
    /// The credential (none: only a server without authentication takes it).
    pub token: Option<String>,
    /// For https URLs.
    pub tls: TlsConnector,
}

/// A connection being opened.
pub type Dialing = Pin<Box<dyn Future<Output = Result<Stream, ConnectError>> + Send>>;

impl Dialer {
    /// Opens the stream with `query` (`a=1&b=2`) added to its URL.
    pub fn dial(&self, query: &str) -> Dialing {
        let dialer = self.clone();
        let url = format!("{}&{query}", self.target.stream_url(self.role));
        Box::pin(async move {
            tokio::time::timeout(CONNECT_TIMEOUT, open(&dialer, &url))
                .await
                .map_err(|_| {
                    ConnectError::Failed(format!(
                        "no answer within {} s",
                        CONNECT_TIMEOUT.as_secs()
                    ))
                })?
        })
    }
}

/// The longest pause between two tries to connect again.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// How long to wait before the try after `attempt` failed ones (from 0),
/// with `random` in [0, 1) for the jitter: 0.5 s doubling up to 10 s, each
/// between 0.7 and 1.3 of that, so that many clients cut off at once do not
/// come back at once (as the web client).
pub fn backoff(attempt: u32, random: f64) -> Duration {
    let base = Duration::from_millis(500) * 2u32.pow(attempt.min(10));
    base.min(MAX_BACKOFF)
        .mul_f64(0.7 + 0.6 * random.clamp(0.0, 1.0))
}

async fn open(dialer: &Dialer, url: &str) -> Result<Stream, ConnectError> {
    let target = &dialer.target;
    let failed = |e: &dyn std::fmt::Display| ConnectError::Failed(e.to_string());
    let mut request = url.into_client_request().map_err(|e| failed(&e))?;
    let protocols = match &dialer.token {
        Some(token) => format!("{PROTOCOL}, {TOKEN_PROTOCOL}{token}"),
        None => PROTOCOL.to_owned(),
    };
    let protocols = HeaderValue::from_str(&protocols)
        .map_err(|_| ConnectError::Failed("the token holds characters no header may".into()))?;
    request
        .headers_mut()
        .insert("Sec-WebSocket-Protocol", protocols);
    let tcp = TcpStream::connect((target.host.as_str(), target.port))
        .await
        .map_err(|e| {
            ConnectError::Failed(format!("cannot connect to {}: {e}", target.authority))
        })?;
    let _ = tcp.set_nodelay(true);
    let io: Box<dyn Io> = if target.tls {
        let name = ServerName::try_from(target.host.clone())
            .map_err(|_| ConnectError::Failed(format!("'{}' is no host name", target.host)))?;
        let tls = dialer
            .tls
            .connect(name, tcp)
            .await
            .map_err(|e| ConnectError::Failed(format!("TLS with {}: {e}", target.authority)))?;
        Box::new(tls)
    } else {
        Box::new(tcp)
    };
    match tokio_tungstenite::client_async(request, io).await {
        Ok((stream, _)) => Ok(stream),
        Err(WsError::Http(response)) => Err(ConnectError::Refused {
            status: response.status().as_u16(),
            reason: api_reason(response.body().as_deref().unwrap_or_default()),
        }),
        Err(e) => Err(failed(&e)),
    }
}

/// `code: message` from the API's JSON error body, or the body's text.
fn api_reason(body: &[u8]) -> String {
    let json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get(name))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    match (field("code"), field("error")) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        _ => String::from_utf8_lossy(body)
            .chars()
            .filter(|c| !c.is_control())
            .take(200)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_doubles_up_to_ten_seconds_with_jitter() {
        assert_eq!(backoff(0, 0.5), Duration::from_millis(500));
        assert_eq!(backoff(1, 0.5), Duration::from_secs(1));
        assert_eq!(backoff(30, 0.5), Duration::from_secs(10));
        assert_eq!(backoff(0, 0.0), Duration::from_millis(350));
        assert_eq!(backoff(30, 1.0), Duration::from_secs(13));
    }

    #[test]
    fn refusals_are_read_from_the_api_json() {
        assert_eq!(
            api_reason(br#"{"error":"missing or invalid token","code":"unauthorized"}"#),
            "unauthorized: missing or invalid token"
        );
        assert_eq!(api_reason(b"Bad\ngateway"), "Badgateway");
    }
}
