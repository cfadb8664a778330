//! `GET /api/sessions/{id}/events`: a session as Server-Sent Events
//! (`screen`, `title`, `bell`, `resize`, `viewer`, `exit`; see
//! [`crate::stream::events`]).
//!
//! A stream transport like the WebSocket and ALiS streams: it takes a
//! viewer slot (`Sessions::join_stream`, so the viewer limits apply to it),
//! shows its holder in the room, and ends when the session's program ends
//! (after the `exit` event), when the server restarts, and when the link
//! that opened it is revoked or expires. It is built on the published
//! screens' watch and polled only as fast as the client reads: a slow
//! reader skips to the latest screen and never holds the session up.

use crate::api::error::ErrorCode;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use tokio::sync::watch;

use crate::access::LinkTicket;
use crate::api::auth::caller::Caller;
use crate::api::error::{ApiError, ErrorBody};
use crate::api::state::AppState;
use crate::session::{Room, SessionHandle, Status, ViewerSlot};
use crate::stream::events::{Event, Events, Member, Resume};
use panecast_term::Snapshot;

/// One event of the stream as an SSE client reads it (also what the
/// OpenAPI document says of each event of the text/event-stream answer).
#[derive(utoipa::ToSchema)]
pub struct StreamEvent {
    /// `screen`, `title`, `bell`, `resize`, `viewer` or `exit`.
    event: String,
    /// The event's JSON (see docs/api.md).
    data: String,
    /// `R.S` (revision and scroll count), on `screen` events.
    id: Option<String>,
}

/// The handler: 200 and the stream, or 429 `too_many_viewers`.
#[utoipa::path(
    get,
    path = "/api/sessions/{id}/events",
    params(
        ("id" = String, Path, description = "The session's id or name"),
        ("Last-Event-ID" = Option<String>, Header, description = "The id of the last `screen` event received (`R.S`): the first event then says what changed since"),
    ),
    responses(
        (status = 200, description = "The event stream: `screen`, `title`, `bell`, `resize`, `viewer`, `exit` with JSON data",
            content_type = "text/event-stream", body = StreamEvent),
        (status = 403, description = "origin_forbidden", body = ErrorBody),
        (status = 429, description = "too_many_viewers: the session's viewer slots, or the credential's share of them, are taken", body = ErrorBody),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    caller: Caller,
    Extension(session): Extension<SessionHandle>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.check_stream_origin(&headers, &state.config.allowed_origins)?;
    let slot = state
        .sessions
        .join_stream(
            &session,
            &caller.grant().principal(),
            panecast_proto::Role::View,
            caller.badge(),
        )
        .map_err(|refusal| ApiError::new(ErrorCode::TooManyViewers, refusal.to_string()))?;
    let resume = headers
        .get("last-event-id")
        .and_then(|id| id.to_str().ok())
        .and_then(Resume::parse);
    let feed = Feed::new(
        session,
        slot,
        state.sessions.watch_restart(),
        caller.grant().link_ticket().cloned(),
        resume,
    );
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await?;
        Some((Ok::<_, Infallible>(sse(event)), feed))
    });
    let ping = Duration::from_millis(state.config.limits.ping_interval_ms);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(ping))
        .into_response())
}

impl From<Event> for StreamEvent {
    fn from(event: Event) -> StreamEvent {
        StreamEvent {
            event: event.name.to_owned(),
            data: event.data.to_string(),
            id: event.id,
        }
    }
}

/// An event as SSE.
fn sse(event: Event) -> SseEvent {
    let StreamEvent { event, data, id } = event.into();
    let sse = SseEvent::default().event(event).data(data);
    match id {
        Some(id) => sse.id(id),
        None => sse,
    }
}

/// Ends when the link is revoked or expires; never without a link.
type Revoked = Pin<Box<dyn Future<Output = ()> + Send>>;

fn revoked(link: Option<LinkTicket>) -> Revoked {
    Box::pin(async move {
        match link {
            Some(ticket) => ticket.ended().await,
            None => std::future::pending().await,
        }
    })
}

/// One client's stream: what it watches and what is still to send.
struct Feed {
    /// Holds the viewer slot for as long as the stream is open.
    _slot: ViewerSlot,
    screens: watch::Receiver<Arc<Snapshot>>,
    /// False once the actor dropped the screens' sender.
    screens_open: bool,
    status: watch::Receiver<Status>,
    room: watch::Receiver<Room>,
    restart: watch::Receiver<bool>,
    revoked: Revoked,
    events: Events,
    queue: VecDeque<Event>,
    /// Nothing follows the queue.
    done: bool,
}

impl Feed {
    fn new(
        session: SessionHandle,
        slot: ViewerSlot,
        restart: watch::Receiver<bool>,
        link: Option<LinkTicket>,
        resume: Option<Resume>,
    ) -> Feed {
        let mut screens = session.subscribe();
        let mut room = session.watch_room();
        let mut events = Events::new(members(&room.borrow_and_update()));
        let mut queue: VecDeque<Event> = events
            .start(Arc::clone(&screens.borrow_and_update()), resume)
            .into();
        let mut status = session.watch_status();
        let exit = exit(&status.borrow_and_update());
        let done = exit.is_some();
        queue.extend(exit);
        Feed {
            _slot: slot,
            screens,
            screens_open: true,
            status,
            room,
            restart,
            revoked: revoked(link),
            events,
            queue,
            done,
        }
    }

    /// The next event to send; `None` once the stream ends.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(event);
            }
            if self.done {
                return None;
            }
            tokio::select! {
                () = &mut self.revoked => self.done = true,
                changed = self.restart.changed() => {
                    self.done = changed.is_err() || *self.restart.borrow_and_update();
                }
                changed = self.screens.changed(), if self.screens_open => match changed {
                    Ok(()) => {
                        let screen = Arc::clone(&self.screens.borrow_and_update());
                        self.queue.extend(self.events.screen(screen));
                    }
                    // The actor is gone: its status says how it ended.
                    Err(_) => self.screens_open = false,
                },
                Ok(()) = self.room.changed() => {
                    let now = members(&self.room.borrow_and_update());
                    self.queue.extend(self.events.room(now));
                }
                changed = self.status.changed() => {
                    let status = self.status.borrow_and_update().clone();
                    if let Some(exit) = exit(&status) {
                        // The final screen was published before the status.
                        let screen = Arc::clone(&self.screens.borrow_and_update());
                        self.queue.extend(self.events.screen(screen));
                        self.queue.push_back(exit);
                        self.done = true;
                    }
                    self.done |= changed.is_err();
                }
            }
        }
    }
}

/// The room's connections, as the `viewer` events describe them.
fn members(room: &Room) -> Vec<Member> {
    room.members()
        .into_iter()
        .map(|(id, badge, role)| Member::new(id, Arc::from(badge.name()), badge.kind(), role))
        .collect()
}

/// The `exit` event, once `status` says the program ended.
fn exit(status: &Status) -> Option<Event> {
    match status {
        Status::Running => None,
        Status::Exited { status, .. } => Some(Events::exit(status.code, status.signal.as_deref())),
    }
}
