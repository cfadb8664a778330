//! The WebSocket stream, `GET /api/sessions/{id}/ws?role=view|control`.
//!
//! One task per connection. It waits on the session's `watch` of screens and
//! sends each viewer only what it lacks (see [`crate::stream`]); while its
//! socket is slow it simply does not look, so it skips screens and the
//! session never waits for it. Client messages are decoded with
//! `panecast-proto` and turned into input by the session actor, with the
//! terminal's current modes.
//!
//! Its rooms: this module upgrades the request and picks the role;
//! [`viewer`] is the connection's life (the select loop and its end),
//! [`writing`] sends frames and messages, [`reading`] handles what the
//! client sends, and [`closing`] says how a connection ends.

mod closing;
mod echo;
mod reading;
mod viewer;
mod writing;

use crate::api::error::ErrorCode;
use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Extension;
use panecast_proto::{self as proto, close, Role};
use serde::Deserialize;

use crate::access::Role as AccessRole;
use crate::api::auth::caller::Caller;
use crate::api::auth::guard::{stream_role, PROTOCOL};
use crate::api::error::{ApiError, ErrorBody};
use crate::api::origin_refusal::OriginRefusal;
use crate::api::state::AppState;
use crate::config::ClipboardAccess;
use crate::session::{SessionHandle, StreamRefusal};
use closing::{close_with, Ending};
pub(in crate::api) use viewer::Viewer;

/// Frames up to this size are read whole, so that a message over the 1 MiB
/// limit is refused (1009) with the stream still in step, and the client,
/// which is done sending, reads the close. A bigger frame is refused from
/// its header, unread: the close is sent, but a client still busy sending
/// the rest may see the connection reset instead.
const FRAME_LIMIT: usize = 2 * proto::limits::MAX_CLIENT_MESSAGE;
/// The socket's read buffer: clients send little (tungstenite's default of
/// 128 KiB a connection adds up with hundreds of viewers).
const READ_BUFFER: usize = 4096;
/// The query of the upgrade request.
#[derive(Deserialize)]
pub struct WsQuery {
    role: Option<String>,
    /// 1: the client takes compressed frames (PROTOCOL.md, 0x0F).
    deflate: Option<u8>,
    /// The client's own id (32 hex digits): its numbered inputs are
    /// applied once, across reconnects.
    client: Option<String>,
    /// The number of the client's first input message on this
    /// connection (default 1).
    input: Option<u64>,
    /// The revision of a `Sync` whose screen the client still holds: the
    /// first frame brings it from there.
    resume: Option<String>,
}

/// Where a client stands when it connects: who it is, how it numbers its
/// inputs, what it holds.
pub(in crate::api) struct Resuming {
    /// Its id.
    pub client: Option<u128>,
    /// Its first input's number on this connection.
    pub input: u64,
    /// The screen it holds.
    pub revision: Option<proto::Revision>,
}

impl WsQuery {
    /// The client's id, input numbering and revision; `bad_query` when one
    /// is malformed.
    fn resuming(&self) -> Result<Resuming, ApiError> {
        let bad = |what: &str| ApiError::new(ErrorCode::BadQuery, what.to_owned());
        let client = match &self.client {
            Some(text) => Some(
                crate::session::InputTag::parse_client(text)
                    .ok_or_else(|| bad("client must be 32 hex digits"))?,
            ),
            None => None,
        };
        let input = match self.input {
            None => 1,
            Some(0) => return Err(bad("input counts from 1")),
            Some(n) => n,
        };
        let revision = match &self.resume {
            Some(text) => Some(proto::Revision::from_query(text).ok_or_else(|| {
                bad("resume must be a Sync's revision: six numbers joined by dots")
            })?),
            None => None,
        };
        Ok(Resuming {
            client,
            input,
            revision,
        })
    }
}

/// Whether a stream's `deflate` query parameter asks for compressed
/// frames: absent or 0 no, 1 yes, anything else `bad_query`.
pub(in crate::api) fn deflate_asked(deflate: Option<u8>) -> Result<bool, ApiError> {
    match deflate {
        None | Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(other) => Err(ApiError::new(
            ErrorCode::BadQuery,
            format!("deflate must be 0 or 1, not {other}"),
        )),
    }
}

/// The answer to a request on a stream route that is not a WebSocket
/// upgrade: 426, as JSON like every other error.
pub(in crate::api) fn not_an_upgrade(rejection: WebSocketUpgradeRejection) -> ApiError {
    ApiError::new(ErrorCode::UpgradeRequired, rejection.body_text())
}

/// Checks the origin (for a cookie-borne credential) and the role, then
/// upgrades. The guard has authenticated the caller and found the session
/// within its scope.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/ws",
    params(
        ("id" = String, Path, description = "The session's id or name"),
        ("role" = Option<String>, Query, description = "`control` (default) or `view`"),
        ("deflate" = Option<u8>, Query, description = "1: send frames compressed (PROTOCOL.md, 0x0F); 0 (default): plain", minimum = 0, maximum = 1),
        ("client" = Option<String>, Query, description = "The client's own id, 32 hex digits: its numbered inputs are applied once, across reconnects (PROTOCOL.md, Sync)", pattern = "^[0-9a-fA-F]{32}$"),
        ("input" = Option<u64>, Query, description = "The number of the client's first input message on this connection (default 1)", minimum = 1),
        ("resume" = Option<String>, Query, description = "The revision of the last Sync whose screen the client holds: the first frame brings it from there", pattern = "^[0-9]+(\\.[0-9]+){5}$"),
    ),
    responses(
        (status = 101, description = "Switching to the WebSocket stream (proto/PROTOCOL.md); closed at once with 4006 and why when a cookie-borne credential comes from another origin"),
        (status = 400, description = "bad_role, bad_query", body = ErrorBody),
        (status = 426, description = "upgrade_required: not a WebSocket upgrade request", body = ErrorBody),
    )
)]
pub async fn upgrade(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    query: Result<Query<WsQuery>, QueryRejection>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let ws = ws.map_err(not_an_upgrade)?;
    if let Err(refused) = caller.check_stream_origin(&headers, &state.config.allowed_origins) {
        return Ok(refuse_origin(ws, PROTOCOL, refused));
    }
    let deflate = deflate_asked(query.deflate)?;
    let resuming = query.resuming()?;
    let asked = match query.role.as_deref() {
        None | Some("control") => AccessRole::Control,
        Some("view") => AccessRole::View,
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::BadRole,
                format!("role must be 'view' or 'control', not '{other}'"),
            ))
        }
    };
    let role = stream_role(caller.grant(), asked);
    let clipboard =
        state.config.clipboard == ClipboardAccess::Control && role.wire() == Role::Control;
    let files = role.wire() == Role::Control
        && crate::api::handlers::files::enabled(&state, session.info().profile.as_deref());
    let predict = session
        .info()
        .profile
        .as_deref()
        .and_then(|name| state.config.profiles.get(name))
        .is_none_or(|profile| profile.predict);
    let ping_every = state.config.limits.ping_interval();
    let sessions = std::sync::Arc::clone(&state.sessions);
    Ok(ws
        .protocols([PROTOCOL])
        .read_buffer_size(READ_BUFFER)
        .max_message_size(proto::limits::MAX_CLIENT_MESSAGE)
        .max_frame_size(FRAME_LIMIT)
        .on_upgrade(move |mut socket| async move {
            let joined = sessions.join_stream(
                &session,
                &caller.grant().principal(),
                role.wire(),
                caller.badge(),
            );
            match joined {
                Ok(slot) => {
                    Viewer::new(socket, session, caller, role, slot, ping_every, sessions)
                        .with_clipboard(clipboard)
                        .with_files(files)
                        .with_prediction(predict)
                        .with_deflate(deflate)
                        .resuming(resuming)
                        .run()
                        .await
                }
                Err(refusal) => refuse(&mut socket, refusal).await,
            }
        }))
}

/// Answers an upgrade whose Origin was refused: accepted only to be closed
/// at once with 4006 (an `Error` and the close, both saying what would
/// allow it), since a page's WebSocket cannot read an HTTP refusal's body
/// and would retry it for ever. Nothing of the session is sent.
pub(in crate::api) fn refuse_origin(
    ws: WebSocketUpgrade,
    protocol: &'static str,
    refused: OriginRefusal,
) -> Response {
    ws.protocols([protocol])
        .on_upgrade(move |mut socket| async move {
            let ending = Ending::error(close::ORIGIN_FORBIDDEN, refused.fix());
            close_with(&mut socket, ending).await;
        })
}

/// Closes a stream that found no place among the session's viewers: 4029
/// with the reason.
pub(in crate::api) async fn refuse(socket: &mut WebSocket, refusal: StreamRefusal) {
    let ending = Ending::error(close::TOO_MANY_VIEWERS, refusal.to_string());
    close_with(socket, ending).await;
}
