//! The WebSocket stream, `GET /api/sessions/{id}/ws?role=view|control`.
//!
//! One task per connection. It waits on the session's `watch` of screens and
//! sends each viewer only what it lacks (see [`crate::stream`]); while its
//! socket is slow it simply does not look, so it skips screens and the
//! session never waits for it. Client messages are decoded with
//! `panecast-proto` and turned into input by the session actor, with the
//! terminal's current modes.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use panecast_proto::{self as proto, close, ClientMessage, Role, ServerMessage};
use serde::Deserialize;
use tokio::time::{interval, Instant, MissedTickBehavior};

use super::error::ApiError;
use super::AppState;
use crate::input::{Key, KeyCode, Modifiers};
use crate::session::{Input, SessionError, SessionHandle, Status, ViewerSlot};
use crate::stream::ViewerState;

/// How often the server pings an idle connection.
const PING_EVERY: Duration = Duration::from_secs(15);
/// A connection that sends nothing (not even a pong) for this long is dead.
const DEAD_AFTER: Duration = Duration::from_secs(45);
/// Input a connection may send per second, in bytes, and its burst.
const INPUT_RATE: f64 = 1024.0 * 1024.0;
const INPUT_BURST: f64 = 4.0 * 1024.0 * 1024.0;

/// The query of the upgrade request.
#[derive(Deserialize)]
pub struct WsQuery {
    role: Option<String>,
    token: Option<String>,
}

/// Checks the session, role and origin, then upgrades.
pub async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<WsQuery>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let session = state
        .sessions
        .get(&id)
        .ok_or_else(|| ApiError::no_session(&id))?;
    let role = match query.role.as_deref() {
        None | Some("control") => Role::Control,
        Some("view") => Role::View,
        Some(other) => {
            return Err(ApiError::bad_request(
                "bad_role",
                format!("role must be 'view' or 'control', not '{other}'"),
            ))
        }
    };
    let token_in_url = query.token.as_deref().is_some_and(|t| t == &*state.token);
    if !origin_allowed(&headers, &state.config.allowed_origins, token_in_url) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "origin_forbidden",
            "this page's origin may not open the stream; add it to allowed_origins or pass the token in the URL",
        ));
    }
    let max_viewers = state.config.limits.max_viewers;
    Ok(ws
        .max_message_size(proto::limits::MAX_CLIENT_MESSAGE)
        .max_frame_size(proto::limits::MAX_CLIENT_MESSAGE)
        .on_upgrade(move |socket| async move {
            match session.join_viewer(max_viewers) {
                Some(slot) => Viewer::new(socket, session, role, slot).run().await,
                None => refuse(socket, close::TOO_MANY_VIEWERS, "too many viewers").await,
            }
        }))
}

/// Same origin (the Origin's host is the Host header), a configured origin,
/// no Origin at all (not a browser), or the token given in the URL (the page
/// knows the secret, so this is not a cross-site request riding a cookie).
fn origin_allowed(headers: &HeaderMap, allowed: &[String], token_in_url: bool) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    if token_in_url || allowed.iter().any(|a| a == origin) {
        return true;
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin.split_once("://").map(|(_, rest)| rest);
    host.is_some() && origin_host == host
}

async fn refuse(mut socket: WebSocket, code: u16, reason: &str) {
    let error = ServerMessage::Error {
        code,
        message: reason.to_string(),
    };
    let _ = socket.send(Message::Binary(error.encode().into())).await;
    let _ = socket.send(close_message(code, reason)).await;
}

fn close_message(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

/// Why a connection ends: a close code and reason, sent after an `Error`
/// message when `explain` is set.
struct Ending {
    code: u16,
    reason: String,
    explain: bool,
}

impl Ending {
    fn error(code: u16, reason: impl Into<String>) -> Ending {
        Ending {
            code,
            reason: reason.into(),
            explain: true,
        }
    }

    fn quiet(code: u16, reason: &str) -> Ending {
        Ending {
            code,
            reason: reason.to_string(),
            explain: false,
        }
    }
}

/// A token bucket for input bytes.
struct InputBudget {
    tokens: f64,
    at: Instant,
}

impl InputBudget {
    fn new() -> InputBudget {
        InputBudget {
            tokens: INPUT_BURST,
            at: Instant::now(),
        }
    }

    fn take(&mut self, bytes: usize) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * INPUT_RATE;
        self.tokens = (self.tokens + refill).min(INPUT_BURST);
        self.at = now;
        if self.tokens < bytes as f64 {
            return false;
        }
        self.tokens -= bytes as f64;
        true
    }
}

/// One connection.
struct Viewer {
    socket: WebSocket,
    session: SessionHandle,
    role: Role,
    state: ViewerState,
    budget: InputBudget,
    heard: Instant,
    exit_sent: bool,
    _slot: ViewerSlot,
}

impl Viewer {
    fn new(socket: WebSocket, session: SessionHandle, role: Role, slot: ViewerSlot) -> Viewer {
        Viewer {
            socket,
            session,
            role,
            state: ViewerState::new(),
            budget: InputBudget::new(),
            heard: Instant::now(),
            exit_sent: false,
            _slot: slot,
        }
    }

    async fn run(mut self) {
        let ending = match self.serve().await {
            Ok(ending) | Err(ending) => ending,
        };
        if ending.explain {
            let error = ServerMessage::Error {
                code: ending.code,
                message: ending.reason.clone(),
            };
            let _ = self.socket.send(Message::Binary(error.encode().into())).await;
        }
        let _ = self.socket.send(close_message(ending.code, &ending.reason)).await;
    }

    async fn send(&mut self, bytes: Vec<u8>) -> Result<(), Ending> {
        self.socket
            .send(Message::Binary(bytes.into()))
            .await
            .map_err(|_| Ending::quiet(close::NORMAL, "gone"))
    }

    /// The connection's life; returns how it ends.
    async fn serve(&mut self) -> Result<Ending, Ending> {
        let mut screens = self.session.subscribe();
        let mut status = self.session.watch_status();
        let cache = self.session.frame_cache();
        let first = self.session.screen();
        let hello = ServerMessage::Hello(proto::Hello {
            version: proto::PROTOCOL_VERSION,
            session_id: self.session.id().to_string(),
            role: self.role,
            cols: first.cols,
            rows: first.rows,
        });
        self.send(hello.encode()).await?;
        let mut ping = interval(PING_EVERY);
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                message = self.socket.recv() => match message {
                    None => return Ok(Ending::quiet(close::NORMAL, "closed")),
                    Some(Err(error)) => return Ok(receive_error(&error)),
                    Some(Ok(message)) => {
                        self.heard = Instant::now();
                        self.client_message(message).await?;
                    }
                },
                changed = screens.changed() => {
                    if changed.is_err() {
                        let code = if self.exit_sent { close::SESSION_ENDED } else { close::SESSION_DELETED };
                        return Ok(Ending::quiet(code, "the session is over"));
                    }
                    let screen = screens.borrow_and_update().clone();
                    let mut out = Vec::new();
                    self.state.update(&screen, &cache, &mut out);
                    for message in out {
                        self.send(message).await?;
                    }
                },
                changed = status.changed(), if !self.exit_sent => {
                    let current = status.borrow_and_update().clone();
                    if let Status::Exited { status: exit, .. } = current {
                        // The final screen first, then the exit.
                        let screen = self.session.screen();
                        let mut out = Vec::new();
                        self.state.update(&screen, &cache, &mut out);
                        let code = match exit.signal {
                            Some(_) => None,
                            None => exit.code.map(|c| c as i32),
                        };
                        out.push(ServerMessage::Exit { code }.encode());
                        for message in out {
                            self.send(message).await?;
                        }
                        self.exit_sent = true;
                    } else if changed.is_err() {
                        self.exit_sent = true;
                    }
                },
                _ = ping.tick() => {
                    if self.heard.elapsed() > DEAD_AFTER {
                        return Ok(Ending::quiet(close::IDLE_TIMEOUT, "no answer to pings"));
                    }
                    self.socket
                        .send(Message::Ping(Default::default()))
                        .await
                        .map_err(|_| Ending::quiet(close::NORMAL, "gone"))?;
                },
            }
        }
    }

    /// Handles one message from the client.
    async fn client_message(&mut self, message: Message) -> Result<(), Ending> {
        let bytes = match message {
            Message::Binary(bytes) => bytes,
            Message::Text(_) => {
                return Err(Ending::error(
                    close::UNSUPPORTED_DATA,
                    "text messages are not part of the protocol",
                ))
            }
            Message::Close(_) => return Err(Ending::quiet(close::NORMAL, "closed")),
            Message::Ping(_) | Message::Pong(_) => return Ok(()),
        };
        let message = ClientMessage::decode(&bytes)
            .map_err(|e| Ending::error(e.close_code(), e.to_string()))?;
        if !message.allowed_for(self.role) {
            return Err(Ending::error(
                close::POLICY_VIOLATION,
                "a view connection cannot send input",
            ));
        }
        let input = match message {
            ClientMessage::Ping { token } => {
                return self.send(ServerMessage::Pong { token }.encode()).await;
            }
            ClientMessage::ScrollbackRequest { start, count } => {
                let lines = self
                    .session
                    .scrollback(start, count)
                    .await
                    .map_err(|_| Ending::quiet(close::SESSION_ENDED, "the session is over"))?;
                return self.send(ServerMessage::Scrollback(lines).encode()).await;
            }
            ClientMessage::Resize { cols, rows } => {
                return match self.session.resize(cols, rows).await {
                    Ok(()) | Err(SessionError::Exited) => Ok(()),
                    Err(error) => self.warn(&error.to_string()).await,
                };
            }
            ClientMessage::Key { key, mods } => match wire_key(key, mods) {
                Some(key) => Input::Keys(vec![key]),
                None => return Ok(()),
            },
            ClientMessage::Text { text } => Input::Bytes(text.into_bytes()),
            ClientMessage::Paste { text } => Input::Paste(text),
            ClientMessage::Mouse(event) => Input::Mouse(event),
            ClientMessage::Focus { focused } => Input::Focus(focused),
        };
        if !self.budget.take(input.size()) {
            return self.warn("input dropped: over the input rate limit").await;
        }
        match self.session.send_input(input).await {
            Ok(()) | Err(SessionError::Exited) => Ok(()),
            Err(error) => self.warn(&error.to_string()).await,
        }
    }

    /// Tells the client some input was dropped; the connection stays.
    async fn warn(&mut self, message: &str) -> Result<(), Ending> {
        let error = ServerMessage::Error {
            code: close::INPUT_DROPPED,
            message: message.to_string(),
        };
        self.send(error.encode()).await
    }
}

/// The close for an error reading the socket: a message over the size
/// limit is 1009; anything else means the connection broke.
fn receive_error(error: &axum::Error) -> Ending {
    let text = error.to_string();
    if text.contains("too long") || text.contains("too big") || text.contains("Space limit") {
        Ending::quiet(close::MESSAGE_TOO_BIG, "message too big")
    } else {
        Ending::quiet(close::PROTOCOL_ERROR, "broken connection")
    }
}

/// A key event from the wire as a key the session encodes; keypad keys are
/// sent as the characters they type.
fn wire_key(key: proto::Key, mods: proto::Modifiers) -> Option<Key> {
    use proto::NamedKey as N;
    let code = match key {
        proto::Key::Char(' ') => KeyCode::Space,
        proto::Key::Char(c) => KeyCode::Char(c),
        proto::Key::Named(named) => match named {
            N::Enter | N::KpEnter => KeyCode::Enter,
            N::Tab => KeyCode::Tab,
            N::Backspace => KeyCode::Backspace,
            N::Escape => KeyCode::Escape,
            N::Up => KeyCode::Up,
            N::Down => KeyCode::Down,
            N::Left => KeyCode::Left,
            N::Right => KeyCode::Right,
            N::Home => KeyCode::Home,
            N::End => KeyCode::End,
            N::PageUp => KeyCode::PageUp,
            N::PageDown => KeyCode::PageDown,
            N::Insert => KeyCode::Insert,
            N::Delete => KeyCode::Delete,
            N::KpDecimal => KeyCode::Char('.'),
            N::KpDivide => KeyCode::Char('/'),
            N::KpMultiply => KeyCode::Char('*'),
            N::KpSubtract => KeyCode::Char('-'),
            N::KpAdd => KeyCode::Char('+'),
            N::KpEqual => KeyCode::Char('='),
            other => {
                let code = other.code();
                match code {
                    0x20..=0x37 => KeyCode::F(code - 0x1f),
                    0x40..=0x49 => KeyCode::Char((b'0' + code - 0x40) as char),
                    _ => return None,
                }
            }
        },
    };
    Some(Key {
        code,
        mods: Modifiers {
            shift: mods.contains(proto::Modifiers::SHIFT),
            alt: mods.contains(proto::Modifiers::ALT) || mods.contains(proto::Modifiers::META),
            ctrl: mods.contains(proto::Modifiers::CTRL),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    #[test]
    fn origins() {
        let none: Vec<String> = Vec::new();
        assert!(origin_allowed(&headers(None, "127.0.0.1:7681"), &none, false));
        assert!(origin_allowed(&headers(Some("http://127.0.0.1:7681"), "127.0.0.1:7681"), &none, false));
        assert!(!origin_allowed(&headers(Some("https://evil.example"), "127.0.0.1:7681"), &none, false));
        assert!(origin_allowed(&headers(Some("https://evil.example"), "127.0.0.1:7681"), &none, true));
        let allowed = vec!["https://dash.example".to_string()];
        assert!(origin_allowed(&headers(Some("https://dash.example"), "127.0.0.1:7681"), &allowed, false));
    }

    #[test]
    fn keys_from_the_wire() {
        let ctrl_c = wire_key(proto::Key::Char('c'), proto::Modifiers::CTRL).unwrap();
        assert_eq!(ctrl_c.code, KeyCode::Char('c'));
        assert!(ctrl_c.mods.ctrl);
        let f5 = proto::Key::Named(proto::NamedKey::from_code(0x24).unwrap());
        assert_eq!(wire_key(f5, proto::Modifiers::NONE).unwrap().code, KeyCode::F(5));
        let kp7 = proto::Key::Named(proto::NamedKey::from_code(0x47).unwrap());
        assert_eq!(wire_key(kp7, proto::Modifiers::NONE).unwrap().code, KeyCode::Char('7'));
    }

    #[test]
    fn the_input_budget_refills() {
        let mut budget = InputBudget::new();
        assert!(budget.take(INPUT_BURST as usize));
        assert!(!budget.take(1024));
    }
}
