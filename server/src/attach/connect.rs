//! Opens a session's WebSocket stream as the web page does: subprotocol
//! `panecast`, the credential as `panecast.token.T` (never in the URL),
//! over TLS for https URLs.

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

/// Opens the stream of `target` for `role` with `token` (none: only a
/// server without authentication would take it), over `tls` for https.
pub async fn connect(
    target: &Target,
    role: &str,
    token: Option<&str>,
    tls: &TlsConnector,
) -> Result<Stream, ConnectError> {
    tokio::time::timeout(CONNECT_TIMEOUT, open(target, role, token, tls))
        .await
        .map_err(|_| {
            ConnectError::Failed(format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()))
        })?
}

/// How long a reconnection after a restart in place keeps trying.
const RECONNECT_FOR: Duration = Duration::from_secs(10);
/// The pause between two tries.
const RETRY_AFTER: Duration = Duration::from_millis(100);

/// [`connect`] again after the server restarted in place: the new image
/// takes connections from the same listening socket, so the first try
/// usually works; a connection that fails is tried again for a while, a
/// refusal is final.
pub async fn reconnect(
    target: &Target,
    role: &str,
    token: Option<&str>,
    tls: &TlsConnector,
) -> Result<Stream, ConnectError> {
    let deadline = tokio::time::Instant::now() + RECONNECT_FOR;
    loop {
        match connect(target, role, token, tls).await {
            Err(ConnectError::Failed(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(RETRY_AFTER).await;
            }
            other => return other,
        }
    }
}

async fn open(
    target: &Target,
    role: &str,
    token: Option<&str>,
    tls: &TlsConnector,
) -> Result<Stream, ConnectError> {
    let failed = |e: &dyn std::fmt::Display| ConnectError::Failed(e.to_string());
    let mut request = target
        .stream_url(role)
        .into_client_request()
        .map_err(|e| failed(&e))?;
    let protocols = match token {
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
        let tls = tls
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
    fn refusals_are_read_from_the_api_json() {
        assert_eq!(
            api_reason(br#"{"error":"missing or invalid token","code":"unauthorized"}"#),
            "unauthorized: missing or invalid token"
        );
        assert_eq!(api_reason(b"Bad\ngateway"), "Badgateway");
    }
}
