//! The server's own HTTP client (the OpenID flow talking to its provider,
//! `panecast health`): one request per connection over hyper (already the
//! server's HTTP stack), TLS by rustls through the connector given.
//! Bounded in time and in the size of the answer.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{header, HeaderValue, Request, Response, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::TlsConnector;

/// The largest answer read (a discovery document, a key set, tokens).
const MAX_ANSWER: usize = 1 << 20;

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The URL is not an http(s) URL with a host.
    #[error("cannot request {0}")]
    BadUrl(String),
    /// Connecting, TLS or HTTP failed.
    #[error("{0}")]
    Io(String),
    /// No answer in time.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

fn io(error: impl std::fmt::Display) -> HttpError {
    HttpError::Io(error.to_string())
}

/// Sends `request` (TLS by `tls` for an https URL) and reads the whole
/// answer, all within `limit`.
pub async fn send(
    request: Request<Vec<u8>>,
    tls: &TlsConnector,
    limit: Duration,
) -> Result<Response<Vec<u8>>, HttpError> {
    tokio::time::timeout(limit, exchange(request, tls))
        .await
        .map_err(|_| HttpError::Timeout(limit))?
}

async fn exchange(
    request: Request<Vec<u8>>,
    tls: &TlsConnector,
) -> Result<Response<Vec<u8>>, HttpError> {
    let uri = request.uri().clone();
    let bad = || HttpError::BadUrl(uri.to_string());
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        _ => return Err(bad()),
    };
    let authority = uri.authority().ok_or_else(bad)?.clone();
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
    let (parts, body) = request.into_parts();
    let mut request = Request::from_parts(parts, Full::new(Bytes::from(body)));
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    *request.uri_mut() = path.parse::<Uri>().map_err(|_| bad())?;
    let host_header = HeaderValue::from_str(authority.as_str()).map_err(|_| bad())?;
    request.headers_mut().insert(header::HOST, host_header);
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(|e| HttpError::Io(format!("cannot connect to {authority}: {e}")))?;
    if https {
        let name = ServerName::try_from(host.to_owned()).map_err(|_| bad())?;
        let stream = tls.connect(name, tcp).await.map_err(io)?;
        over(stream, request).await
    } else {
        over(tcp, request).await
    }
}

async fn over<S>(stream: S, request: Request<Full<Bytes>>) -> Result<Response<Vec<u8>>, HttpError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(io)?;
    let driver = tokio::spawn(connection);
    let answer = sender.send_request(request).await.map_err(io);
    let answer = match answer {
        Ok(answer) => {
            let (parts, body) = answer.into_parts();
            let body = Limited::new(body, MAX_ANSWER).collect().await.map_err(io);
            body.map(|b| Response::from_parts(parts, b.to_bytes().to_vec()))
        }
        Err(e) => Err(e),
    };
    driver.abort();
    answer
}
