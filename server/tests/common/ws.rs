//! A WebSocket client of the stream, for the tests and the stream benchmark
//! (`examples/stream_bench.rs` includes this file): connects with
//! tokio-tungstenite, decodes every server message with `panecast-proto`
//! and keeps a model of the screen by applying frames exactly as
//! PROTOCOL.md "Applying a frame" says.
//!
//! This file depends on nothing else in `tests/common`, so the benchmark
//! can include it on its own.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use panecast_proto::{self as proto, ClientMessage, ServerMessage};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::{timeout_at, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Bytes;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::WebSocketStream;

/// The client's copy of the screen, built only from what the server sent.
///
/// Rows are kept as the decoded wire lines: applying a frame replaces a
/// sent row as a whole (its cells, the blanks after them with the fill
/// style, and its wrapped flag), so the line is the row. A blank row is the
/// empty line.
#[derive(Debug, Default, Clone)]
pub struct Model {
    /// The `Hello`, once received.
    pub hello: Option<proto::Hello>,
    /// Screen width of the last frame.
    pub cols: u16,
    /// Screen height of the last frame.
    pub rows: u16,
    /// The rows, top to bottom.
    pub lines: Vec<proto::Line>,
    /// Style definitions received on this connection.
    pub styles: HashMap<u32, proto::Style>,
    /// The cursor of the last frame.
    pub cursor: proto::Cursor,
    /// The modes of the last frame.
    pub modes: proto::Modes,
    /// The title.
    pub title: String,
    /// Sequence number of the last frame.
    pub last_seq: Option<u64>,
    /// Frames applied.
    pub frames: u64,
    /// Of which full.
    pub full_frames: u64,
    /// The size of every full frame, in order.
    pub full_sizes: Vec<(u16, u16)>,
    /// Bells received.
    pub bells: u64,
    /// The `Exit`, once received: `Some(code)` (`None` for a signal).
    pub exit: Option<Option<i32>>,
    /// `Error` messages received, as (code, message).
    pub errors: Vec<(u16, String)>,
    /// `Scrollback` answers received.
    pub scrollback: Vec<proto::Scrollback>,
    /// `Pong` tokens received.
    pub pongs: Vec<u64>,
    /// Texts of `Clipboard` messages, in order.
    pub clipboard: Vec<String>,
    /// `FileOffer` messages, as (name, data), in order.
    pub files: Vec<(String, Vec<u8>)>,
    /// The latest `Presence`: (view, control).
    pub presence: Option<(u32, u32)>,
    /// The latest `ReplayState`.
    pub replay: Option<proto::ReplayState>,
    /// The latest `Room`.
    pub room: Option<proto::Room>,
    /// `Image` messages, in the order they came.
    pub images: Vec<proto::Image>,
    /// `Sync` messages, in the order they came.
    pub syncs: Vec<proto::Sync>,
    /// A model carried over to a new connection that resumes: its first
    /// frame may be a diff.
    pub resuming: bool,
}

/// What `Model::apply` saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Hello,
    Styles,
    Frame,
    Bell,
    Presence,
    Exit,
    Error,
    Scrollback,
    Pong,
    Clipboard,
    FileOffer,
    Replay,
    Room,
    Image,
    Sync,
}

impl Model {
    /// Applies one server message, checking what the protocol promises:
    /// `Hello` first, frames numbered from 0 with no gap, the first frame
    /// full, styles defined before a frame uses them.
    pub fn apply(&mut self, bytes: &[u8]) -> Result<Kind, String> {
        let message =
            ServerMessage::decode(bytes).map_err(|e| format!("undecodable message: {e}"))?;
        if self.hello.is_none()
            && !matches!(
                message,
                ServerMessage::Hello(_) | ServerMessage::Error { .. }
            )
        {
            return Err(format!("the first message is not Hello: {message:?}"));
        }
        Ok(match message {
            ServerMessage::Hello(hello) => {
                if self.hello.is_some() {
                    return Err("a second Hello".into());
                }
                self.hello = Some(hello);
                Kind::Hello
            }
            ServerMessage::Styles(styles) => {
                if styles.reset {
                    self.styles.clear();
                }
                for def in styles.defs {
                    self.styles.insert(def.id, def.style);
                }
                Kind::Styles
            }
            ServerMessage::Frame(frame) => {
                self.frame(frame)?;
                Kind::Frame
            }
            ServerMessage::Bell => {
                self.bells += 1;
                Kind::Bell
            }
            ServerMessage::Exit { code } => {
                self.exit = Some(code);
                Kind::Exit
            }
            ServerMessage::Error { code, message } => {
                self.errors.push((code, message));
                Kind::Error
            }
            ServerMessage::Scrollback(scrollback) => {
                for line in &scrollback.lines {
                    self.check_styles(line)?;
                }
                self.scrollback.push(scrollback);
                Kind::Scrollback
            }
            ServerMessage::Pong { token } => {
                self.pongs.push(token);
                Kind::Pong
            }
            ServerMessage::Clipboard { text } => {
                self.clipboard.push(text);
                Kind::Clipboard
            }
            ServerMessage::FileOffer { name, data } => {
                self.files.push((name, data));
                Kind::FileOffer
            }
            ServerMessage::Presence { view, control } => {
                if self.frames == 0 {
                    return Err("Presence before the first frame".into());
                }
                self.presence = Some((view, control));
                Kind::Presence
            }
            ServerMessage::Room(room) => {
                if self.frames == 0 {
                    return Err("Room before the first frame".into());
                }
                self.room = Some(room);
                Kind::Room
            }
            ServerMessage::Image(image) => {
                if self.images.iter().any(|i| i.hash == image.hash) {
                    return Err("an image sent twice".into());
                }
                self.images.push(image);
                Kind::Image
            }
            ServerMessage::Sync(sync) => {
                self.syncs.push(sync);
                Kind::Sync
            }
            ServerMessage::ReplayState(state) => {
                if self.frames == 0 {
                    return Err("ReplayState before the first frame".into());
                }
                self.replay = Some(state);
                Kind::Replay
            }
        })
    }

    /// PROTOCOL.md, "Applying a frame".
    fn frame(&mut self, frame: proto::Frame) -> Result<(), String> {
        let expected = self.last_seq.map_or(0, |s| s + 1);
        if frame.seq != expected {
            return Err(format!("frame seq {} where {expected} was due", frame.seq));
        }
        if self.last_seq.is_none() && !frame.full && !self.resuming {
            return Err("the first frame is not full".into());
        }
        self.last_seq = Some(frame.seq);
        self.frames += 1;
        let rows = frame.rows as usize;
        // 1. A full frame (or, defensively, a size change) blanks the grid.
        if frame.full || frame.cols != self.cols || frame.rows != self.rows {
            if !frame.full {
                return Err("the size changed without a full frame".into());
            }
            self.full_frames += 1;
            self.full_sizes.push((frame.cols, frame.rows));
            self.cols = frame.cols;
            self.rows = frame.rows;
            self.lines = vec![proto::Line::default(); rows];
        } else if frame.scroll > 0 {
            // 2. The scroll hint shifts rows up; the bottom ones become blank.
            let n = (frame.scroll as usize).min(rows);
            self.lines.drain(..n);
            self.lines.resize(rows, proto::Line::default());
        }
        // 3. Each sent row is replaced by its line.
        for sent in frame.lines {
            self.check_styles(&sent.line)?;
            let slot = self
                .lines
                .get_mut(sent.row as usize)
                .ok_or_else(|| format!("row {} outside the screen", sent.row))?;
            *slot = sent.line;
        }
        // 4. Cursor, modes, title.
        self.cursor = frame.cursor;
        self.modes = frame.modes;
        if let Some(title) = frame.title {
            self.title = title;
        }
        Ok(())
    }

    /// Every piece of `line` names an image already sent.
    fn check_images(&self, line: &proto::Line) -> Result<(), String> {
        for piece in line.images() {
            if !self.images.iter().any(|i| i.hash == piece.hash) {
                return Err("an image placed before it was sent".into());
            }
        }
        Ok(())
    }

    fn check_styles(&self, line: &proto::Line) -> Result<(), String> {
        self.check_images(line)?;
        let used = line.runs().iter().map(|r| r.style).chain([line.fill()]);
        for id in used {
            if id != 0 && !self.styles.contains_key(&id) {
                return Err(format!("style {id} used before it was defined"));
            }
        }
        Ok(())
    }

    /// This screen, kept for a new connection that resumes from it (the
    /// stream's `resume`): the connection's own state starts anew, the
    /// rows, styles, cursor and title stay.
    pub fn resumed(&self) -> Model {
        Model {
            hello: None,
            last_seq: None,
            frames: 0,
            images: Vec::new(),
            syncs: Vec::new(),
            resuming: true,
            ..self.clone()
        }
    }

    /// Row `r` as text: each cell's text, a wide cell's spacer adding
    /// nothing, blanks as spaces; trailing spaces trimmed.
    pub fn row_text(&self, r: usize) -> String {
        let Some(line) = self.lines.get(r) else {
            return String::new();
        };
        let mut text = String::new();
        for cell in line.cells() {
            text.push_str(cell.text);
        }
        text.trim_end().to_owned()
    }

    /// The text of the cell that starts at `row`, `col` (`" "` for a blank
    /// cell, `None` for a wide cell's spacer or outside the screen).
    pub fn cell_text(&self, row: usize, col: u16) -> Option<&str> {
        let line = self.lines.get(row)?;
        if col >= self.cols {
            return None;
        }
        if col >= line.columns() {
            return Some(" ");
        }
        line.cells().find(|c| c.col == col).map(|c| c.text)
    }

    /// Every row as text (see [`Model::row_text`]).
    pub fn text(&self) -> Vec<String> {
        (0..self.lines.len()).map(|r| self.row_text(r)).collect()
    }

    /// The style of the cell at `row`, `col` (`None` for the default style),
    /// resolved through the definitions received.
    pub fn style_at(&self, row: usize, col: u16) -> Option<&proto::Style> {
        let line = self.lines.get(row)?;
        let id = line
            .cells()
            .find(|c| c.col <= col && col < c.col + c.width as u16)
            .map_or(line.fill(), |c| c.style);
        self.styles.get(&id)
    }
}

/// A connection refused during the upgrade: the HTTP status and body.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub body: String,
}

/// How the server closed a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closed {
    /// The close frame's code, if one arrived.
    pub code: Option<u16>,
    /// Its reason.
    pub reason: String,
}

/// One connection to the stream.
pub struct Client {
    ws: WebSocketStream<TcpStream>,
    /// The screen as this client knows it.
    pub model: Model,
    /// Bytes of every binary message received.
    pub bytes: u64,
    /// How the server closed the connection, once it did.
    pub closed: Option<Closed>,
}

/// The path of the stream of session `id` for `role` (`None`: no role given).
pub fn ws_path(id: &str, role: Option<&str>) -> String {
    match role {
        Some(role) => format!("/api/sessions/{id}/ws?role={role}"),
        None => format!("/api/sessions/{id}/ws"),
    }
}

/// Opens `path` (with its query) on `addr` with extra request headers.
/// `recv_buffer` sets the socket's receive buffer (a small one makes a
/// client that stops reading hold the server up sooner).
pub async fn connect(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    recv_buffer: Option<u32>,
) -> Result<Client, Refused> {
    let socket = TcpSocket::new_v4().expect("a socket");
    if let Some(size) = recv_buffer {
        socket
            .set_recv_buffer_size(size)
            .expect("receive buffer size");
    }
    let stream = socket.connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut request = format!("ws://{addr}{path}")
        .into_client_request()
        .expect("a request");
    for (name, value) in headers {
        let name: tokio_tungstenite::tungstenite::http::HeaderName =
            name.parse().expect("a header name");
        request
            .headers_mut()
            .insert(name, HeaderValue::from_str(value).expect("a header value"));
    }
    match tokio_tungstenite::client_async(request, stream).await {
        Ok((ws, _response)) => Ok(Client {
            ws,
            model: Model::default(),
            bytes: 0,
            closed: None,
        }),
        Err(WsError::Http(response)) => Err(Refused {
            status: response.status().as_u16(),
            body: response
                .body()
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
        }),
        Err(e) => panic!("upgrade failed: {e}"),
    }
}

/// Opens `path` as a page of a refused origin would: the server accepts
/// the upgrade only to close it with 4006; panics if anything but an
/// `Error` (the reason) comes before the close. How it closed.
pub async fn refused_for_origin(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Closed {
    let mut client = match connect(addr, path, headers, None).await {
        Ok(client) => client,
        Err(refused) => panic!("refused in HTTP ({refused:?}), not closed with the reason"),
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while let Some(bytes) = client.next_raw(deadline).await {
        assert_eq!(
            bytes.first(),
            Some(&0x06),
            "only an Error may come before the close, not {bytes:?}"
        );
    }
    let closed = client.closed.clone().expect("closed within 5 s");
    assert_eq!(
        closed.code,
        Some(proto::close::ORIGIN_FORBIDDEN),
        "{closed:?}"
    );
    closed
}

/// Opens the stream of session `id` with the bearer `token`, expecting it
/// to be accepted.
pub async fn open(addr: SocketAddr, token: &str, id: &str, role: &str) -> Client {
    let auth = format!("Bearer {token}");
    connect(
        addr,
        &ws_path(id, Some(role)),
        &[("Authorization", &auth)],
        None,
    )
    .await
    .unwrap_or_else(|r| panic!("the upgrade was refused: {} {}", r.status, r.body))
}

/// As [`open`], asking for compressed frames (`deflate=1`), as the web
/// client and `panecast attach` do.
pub async fn open_deflated(addr: SocketAddr, token: &str, id: &str, role: &str) -> Client {
    let auth = format!("Bearer {token}");
    let path = format!("{}&deflate=1", ws_path(id, Some(role)));
    connect(addr, &path, &[("Authorization", &auth)], None)
        .await
        .unwrap_or_else(|r| panic!("the upgrade was refused: {} {}", r.status, r.body))
}

impl Client {
    /// Sends a protocol message.
    pub async fn send(&mut self, message: &ClientMessage) {
        self.send_raw(Message::Binary(message.encode().into()))
            .await;
    }

    /// Sends any WebSocket message. A failure (the server closed) is not
    /// an error here: the test looks at how the connection was closed.
    pub async fn send_raw(&mut self, message: Message) {
        let _ = self.ws.send(message).await;
    }

    /// Reads one message and applies it. `None` once the connection is
    /// closed (see [`Client::closed`]) or at the deadline.
    pub async fn next(&mut self, deadline: Instant) -> Option<Kind> {
        let bytes = self.next_raw(deadline).await?;
        Some(self.model.apply(&bytes).unwrap_or_else(|e| panic!("{e}")))
    }

    /// Reads one binary message without applying it (pings are answered
    /// on the way). `None` once the connection is closed or at the deadline.
    pub async fn next_raw(&mut self, deadline: Instant) -> Option<Bytes> {
        loop {
            if self.closed.is_some() {
                return None;
            }
            let message = match timeout_at(deadline, self.ws.next()).await {
                Err(_) => return None,
                Ok(None) | Ok(Some(Err(_))) => {
                    self.closed.get_or_insert(Closed {
                        code: None,
                        reason: "the connection ended without a close frame".into(),
                    });
                    return None;
                }
                Ok(Some(Ok(message))) => message,
            };
            match message {
                Message::Binary(bytes) => {
                    self.bytes += bytes.len() as u64;
                    return Some(bytes);
                }
                Message::Close(frame) => {
                    self.closed = Some(close_of(frame));
                    return None;
                }
                Message::Text(text) => panic!("the server sent a text message: {text}"),
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
            }
        }
    }

    /// Reads until `done` holds for the model, or panics after `limit`
    /// with `what` and the model's text.
    pub async fn until(
        &mut self,
        what: &str,
        limit: Duration,
        mut done: impl FnMut(&Model) -> bool,
    ) {
        let deadline = Instant::now() + limit;
        while !done(&self.model) {
            if self.next(deadline).await.is_none() {
                panic!(
                    "{what}: {} (closed: {:?}); the model shows:\n{}",
                    if self.closed.is_some() {
                        "the connection closed"
                    } else {
                        "timed out"
                    },
                    self.closed,
                    self.model.text().join("\n")
                );
            }
        }
    }

    /// Reads until the server closes the connection (applying what comes
    /// before), and returns how it closed; panics after `limit`.
    pub async fn close_code(&mut self, limit: Duration) -> Closed {
        let deadline = Instant::now() + limit;
        while self.closed.is_none() {
            if self.next(deadline).await.is_none() && self.closed.is_none() {
                panic!("the server did not close the connection in {limit:?}");
            }
        }
        self.closed.clone().expect("closed")
    }

    /// Closes from this side with code 1000 and waits for the server's answer.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.next(deadline).await.is_some() {}
    }
}

fn close_of(frame: Option<CloseFrame>) -> Closed {
    match frame {
        Some(frame) => Closed {
            code: Some(frame.code.into()),
            reason: frame.reason.to_string(),
        },
        None => Closed {
            code: None,
            reason: String::new(),
        },
    }
}
