//! How a connection ends: the close code and reason (and an `Error`
//! before it when the client should be told), sent within a bound.

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use panecast_proto::{self as proto, close, ServerMessage};
use std::time::Duration;
use tokio::time::{timeout_at, Instant};

/// How long closing may take: sending the `Error` and the close, and
/// waiting for the client's close in answer.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// WebSocket close reasons are limited to 123 bytes.
const MAX_CLOSE_REASON: usize = 123;

/// Why a connection ends, and how to close it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Ending {
    /// The close code.
    pub(super) code: u16,
    /// The close reason (clipped to 123 bytes when sent).
    pub(super) reason: String,
    /// Send an `Error` with the code and reason before the close.
    explain: bool,
    /// False when the socket is gone or stuck: nothing more is sent.
    close: bool,
}

impl Ending {
    /// An error the client is told about, then closed with.
    pub(super) fn error(code: u16, reason: impl Into<String>) -> Ending {
        Ending {
            code,
            reason: reason.into(),
            explain: true,
            close: true,
        }
    }

    /// A close with no `Error` before it.
    pub(super) fn quiet(code: u16, reason: &str) -> Ending {
        Ending {
            code,
            reason: reason.to_string(),
            explain: false,
            close: true,
        }
    }

    /// The socket is closed, broken or stuck: just drop it.
    pub(super) fn gone() -> Ending {
        Ending {
            code: close::NORMAL,
            reason: String::new(),
            explain: false,
            close: false,
        }
    }
}

/// Ends a connection: the `Error` (if any), the close, then the client's
/// close in answer (read and dropped), all within [`CLOSE_WAIT`].
pub(super) async fn close_with(socket: &mut WebSocket, ending: Ending) {
    if !ending.close {
        return;
    }
    let deadline = Instant::now() + CLOSE_WAIT;
    if ending.explain {
        let error = ServerMessage::Error {
            code: ending.code,
            message: clip(&ending.reason, proto::limits::MAX_ERROR_MESSAGE).to_string(),
        };
        let _ = timeout_at(
            deadline,
            socket.send(Message::Binary(error.encode().into())),
        )
        .await;
    }
    let frame = CloseFrame {
        code: ending.code,
        reason: clip(&ending.reason, MAX_CLOSE_REASON).into(),
    };
    let _ = timeout_at(deadline, socket.send(Message::Close(Some(frame)))).await;
    // Reading on to the client's close keeps the connection from being
    // reset under the close frame. (After a read error there is nothing
    // more to read, and this ends at once.)
    let _ = timeout_at(deadline, async {
        while let Some(Ok(message)) = socket.recv().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
pub(super) fn clip(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The close for an error reading the socket: a message over the size
/// limit is 1009, a WebSocket protocol error 1002; anything else means the
/// connection broke. (axum wraps the WebSocket library's error, which is
/// matched by its type.)
pub(super) fn receive_error(error: &axum::Error) -> Ending {
    use std::error::Error as _;
    use tokio_tungstenite::tungstenite::error::{CapacityError, Error as WsError};
    match error.source().and_then(|e| e.downcast_ref::<WsError>()) {
        Some(WsError::Capacity(CapacityError::MessageTooLong { .. })) => Ending::error(
            close::MESSAGE_TOO_BIG,
            "message too big: the limit is 1 MiB",
        ),
        Some(WsError::Protocol(e)) => Ending::error(
            close::PROTOCOL_ERROR,
            clip(&format!("WebSocket protocol error: {e}"), MAX_CLOSE_REASON).to_string(),
        ),
        _ => Ending::gone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receive_errors_are_told_apart_by_type() {
        use tokio_tungstenite::tungstenite::error::{
            CapacityError, Error as WsError, ProtocolError,
        };
        let too_long = axum::Error::new(WsError::Capacity(CapacityError::MessageTooLong {
            size: 3 << 20,
            max_size: 2 << 20,
        }));
        assert_eq!(receive_error(&too_long).code, close::MESSAGE_TOO_BIG);
        let masked = axum::Error::new(WsError::Protocol(ProtocolError::UnmaskedFrameFromClient));
        let ending = receive_error(&masked);
        assert_eq!(ending.code, close::PROTOCOL_ERROR);
        assert!(ending.reason.len() <= MAX_CLOSE_REASON, "{}", ending.reason);
        let broken = axum::Error::new(WsError::ConnectionClosed);
        assert_eq!(receive_error(&broken), Ending::gone());
        // Text that merely mentions a protocol error is no protocol error.
        let io = axum::Error::new(std::io::Error::other("protocol error: Message too long"));
        assert_eq!(receive_error(&io), Ending::gone());
    }
}
