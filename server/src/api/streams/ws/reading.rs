//! What the client sends: decoded with `panecast-proto`, checked against
//! the connection's role, and turned into input, resizes, scrollback
//! answers or replay controls.

use axum::extract::ws::Message;
use panecast_proto::{self as proto, close, ClientMessage, ServerMessage};

use super::closing::Ending;
use super::viewer::Viewer;
use crate::input::{Key, KeyCode, KeyEvent, ModifierKey, Modifiers};
use crate::session::{Input, SessionError};
use crate::stream::rebase_scrollback;

impl Viewer {
    /// Handles one message from the client.
    pub(super) async fn client_message(&mut self, message: Message) -> Result<(), Ending> {
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
        let replay = self.session.is_replay();
        if !message.allowed_for(self.role.wire(), replay) {
            let reason = match (&message, replay) {
                (ClientMessage::Replay(_), false) => "replay controls need a replay",
                (_, true) => "a replay takes no input",
                (_, false) => "a view connection cannot send input",
            };
            return Err(Ending::error(close::POLICY_VIOLATION, reason));
        }
        let input = match message {
            ClientMessage::Ping { token } => {
                return self.send_message(ServerMessage::Pong { token }).await;
            }
            ClientMessage::Received { bytes } => {
                return self
                    .flow
                    .received(bytes, tokio::time::Instant::now())
                    .map_err(|e| Ending::error(close::PROTOCOL_ERROR, e.to_string()));
            }
            ClientMessage::Replay(control) => {
                // An error means the replay is over; the status says so next.
                let _ = self.session.control_replay(control).await;
                return Ok(());
            }
            ClientMessage::ScrollbackRequest { start, count } => {
                let who = self.caller.reader();
                let lines = match self.session.scrollback(start, count, &who).await {
                    Ok(lines) => lines,
                    Err(SessionError::ReadsPaced) => {
                        return self.warn(&SessionError::ReadsPaced.to_string()).await;
                    }
                    // The session is over; the status says so next.
                    Err(_) => return Ok(()),
                };
                // Index the lines from the screen this client was last sent.
                self.update(self.session.screen()).await?;
                let shown = self.state.scroll_count().unwrap_or(lines.scroll_count);
                let answer = rebase_scrollback(lines.answer, lines.scroll_count, shown);
                let mut out = Vec::new();
                self.state.define_answer_styles(&lines.styles, &mut out);
                self.state.send_answer_images(&lines.images, &mut out);
                for message in out {
                    self.send(Message::Binary(message.into())).await?;
                }
                return self.send_message(ServerMessage::Scrollback(answer)).await;
            }
            ClientMessage::Theme { theme } => {
                let by = self.caller.grant().principal();
                self.session.set_theme(self.role.wire(), theme, &by).await;
                return Ok(());
            }
            ClientMessage::Resize { cols, rows } => {
                let resized = self.session.resize_window(&self.slot, cols, rows).await;
                return match resized {
                    Ok(()) | Err(SessionError::Exited) => Ok(()),
                    Err(error) => self.warn(&error.to_string()).await,
                };
            }
            ClientMessage::TakeControl => {
                return match self.session.take_control(&self.slot).await {
                    Ok(()) | Err(SessionError::Exited) => Ok(()),
                    Err(error) => self.warn(&error.to_string()).await,
                };
            }
            ClientMessage::Key { key, mods, event } => match wire_key(key, mods, event) {
                Some(key) => Input::Keys(vec![key]),
                None => return Ok(()),
            },
            ClientMessage::Text { text } => Input::Bytes(text.into_bytes()),
            ClientMessage::Paste { text } => Input::Paste(text),
            ClientMessage::Mouse(event) => Input::Mouse(event),
            ClientMessage::Focus { focused } => Input::Focus(focused),
        };
        let (tag, seq) = self.echoes.number();
        let sent = self
            .session
            .send_input(input, &self.caller.grant().principal(), tag)
            .await;
        // Applied, or dropped: either way its echo time starts, so the
        // client judges its prediction of it.
        self.echoes.written(seq, tokio::time::Instant::now());
        match sent {
            Ok(()) | Err(SessionError::Exited) => Ok(()),
            Err(error) => self.warn(&error.to_string()).await,
        }
    }

    /// Tells the client some input was dropped; the connection stays.
    pub(super) async fn warn(&mut self, message: &str) -> Result<(), Ending> {
        self.send_message(ServerMessage::Error {
            code: close::INPUT_DROPPED,
            message: message.to_string(),
        })
        .await
    }
}

/// A key event from the wire as a key the session encodes; keypad keys are
/// sent as the characters they type.
fn wire_key(key: proto::Key, mods: proto::Modifiers, event: proto::KeyEvent) -> Option<Key> {
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
            N::ShiftLeft => KeyCode::Modifier(ModifierKey::LeftShift),
            N::ShiftRight => KeyCode::Modifier(ModifierKey::RightShift),
            N::ControlLeft => KeyCode::Modifier(ModifierKey::LeftControl),
            N::ControlRight => KeyCode::Modifier(ModifierKey::RightControl),
            N::AltLeft => KeyCode::Modifier(ModifierKey::LeftAlt),
            N::AltRight => KeyCode::Modifier(ModifierKey::RightAlt),
            N::MetaLeft => KeyCode::Modifier(ModifierKey::LeftMeta),
            N::MetaRight => KeyCode::Modifier(ModifierKey::RightMeta),
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
        event: match event {
            proto::KeyEvent::Press => KeyEvent::Press,
            proto::KeyEvent::Repeat => KeyEvent::Repeat,
            proto::KeyEvent::Release => KeyEvent::Release,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_the_wire() {
        let ctrl_c = wire_key(
            proto::Key::Char('c'),
            proto::Modifiers::CTRL,
            proto::KeyEvent::Press,
        )
        .unwrap();
        assert_eq!(ctrl_c.code, KeyCode::Char('c'));
        assert!(ctrl_c.mods.ctrl);
        let f5 = proto::Key::Named(proto::NamedKey::from_code(0x24).unwrap());
        assert_eq!(
            wire_key(f5, proto::Modifiers::NONE, proto::KeyEvent::Press)
                .unwrap()
                .code,
            KeyCode::F(5)
        );
        let kp7 = proto::Key::Named(proto::NamedKey::from_code(0x47).unwrap());
        assert_eq!(
            wire_key(kp7, proto::Modifiers::NONE, proto::KeyEvent::Press)
                .unwrap()
                .code,
            KeyCode::Char('7')
        );
        let release = wire_key(f5, proto::Modifiers::SHIFT, proto::KeyEvent::Release).unwrap();
        assert_eq!(release.event, KeyEvent::Release);
        assert!(release.mods.shift);
    }
}
