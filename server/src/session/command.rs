//! The commands a session takes from its handles, and the one way they
//! are served: every kind of session (the live actor, the lingering one,
//! a replay, another node's mirror) is a [`Runtime`], which handles each
//! command in a method of its own, and [`serve`] hands a command to the
//! method that handles it. The trait's methods have no default bodies, so
//! a new command is one enum arm, one method, and an error in every
//! runtime until it handles it.

use std::ops::ControlFlow;
use std::time::Duration;

use tokio::sync::oneshot;

use crate::access::Principal;

use super::search;
use super::{FreezeRequest, Input, InputTag, Reader, SessionError};
use crate::stream::ScrollbackLines;

/// Searches one session's actor works on at once; more are refused.
pub(crate) const MAX_SEARCHES: usize = 4;

/// Where a command that changes the session is answered.
pub(crate) type Reply = oneshot::Sender<Result<(), SessionError>>;

/// Where a search is answered: what was found and the actor time it took.
pub(crate) type SearchReply = oneshot::Sender<Result<(search::Found, Duration), SessionError>>;

/// Where a scrollback read is answered: the lines and the actor time they took.
pub(crate) type ScrollbackReply = oneshot::Sender<(ScrollbackLines, Duration)>;

/// Messages from handles to the session's runtime. A command that changes
/// the session names who it acts for: a mirror asks the session's owner on
/// their behalf, and the owner checks them again.
pub(crate) enum Command {
    /// Input for the child.
    Input {
        input: Input,
        by: Principal,
        /// Its client and number, when it has them: a mirror's owner
        /// applies it once.
        tag: Option<InputTag>,
        reply: Reply,
    },
    /// A new size for the terminal.
    Resize {
        cols: u16,
        rows: u16,
        by: Principal,
        reply: Reply,
    },
    /// Answered with the lines and the actor time they took.
    Scrollback {
        start: u64,
        count: u16,
        /// Who reads: another node's owner charges it too.
        who: Reader,
        reply: ScrollbackReply,
    },
    /// Answered with what was found and the actor time it took, or refused
    /// when [`MAX_SEARCHES`] are under way.
    Search {
        pattern: search::Pattern,
        limit: usize,
        /// Who reads: another node's owner charges it too.
        who: Reader,
        reply: SearchReply,
    },
    /// A marker in the recording.
    Marker(String, Principal, Reply),
    /// The theme a control viewer paints with (answers to colour queries).
    Theme(panecast_proto::Theme, Principal),
    /// End the session: deleted by someone, or (`None`) ended by this
    /// server (shutdown, a name set free).
    Kill(Option<Principal>, oneshot::Sender<()>),
    /// Stop for an upgrade, hand the state back, wait to be thawed.
    Freeze(FreezeRequest),
}

/// A kind of session, as its commands see it: one method a command, each
/// answering its command's reply. Only [`Runtime::kill`] and
/// [`Runtime::closed`] may end the runtime's loop, with its `Stop`.
pub(crate) trait Runtime {
    /// What the runtime's loop ends with.
    type Stop;

    /// [`Command::Input`].
    async fn input(&mut self, input: Input, by: Principal, tag: Option<InputTag>, reply: Reply);

    /// [`Command::Resize`].
    async fn resize(&mut self, cols: u16, rows: u16, by: Principal, reply: Reply);

    /// [`Command::Scrollback`].
    fn scrollback(&mut self, start: u64, count: u16, who: Reader, reply: ScrollbackReply);

    /// [`Command::Search`].
    fn search(&mut self, pattern: search::Pattern, limit: usize, who: Reader, reply: SearchReply);

    /// [`Command::Marker`].
    async fn marker(&mut self, label: String, by: Principal, reply: Reply);

    /// [`Command::Theme`].
    fn theme(&mut self, theme: panecast_proto::Theme, by: Principal);

    /// [`Command::Kill`]: breaks when the runtime ends.
    async fn kill(
        &mut self,
        by: Option<Principal>,
        reply: oneshot::Sender<()>,
    ) -> ControlFlow<Self::Stop>;

    /// [`Command::Freeze`].
    async fn freeze(&mut self, request: FreezeRequest);

    /// Every handle is gone: no command will come any more.
    async fn closed(&mut self) -> Self::Stop;
}

/// Serves the next command from the queue (`None` once every handle is
/// gone) with `runtime`; breaks when the runtime ends.
pub(crate) async fn serve<R: Runtime>(
    runtime: &mut R,
    command: Option<Command>,
) -> ControlFlow<R::Stop> {
    let Some(command) = command else {
        return ControlFlow::Break(runtime.closed().await);
    };
    match command {
        Command::Input {
            input,
            by,
            tag,
            reply,
        } => runtime.input(input, by, tag, reply).await,
        Command::Resize {
            cols,
            rows,
            by,
            reply,
        } => runtime.resize(cols, rows, by, reply).await,
        Command::Scrollback {
            start,
            count,
            who,
            reply,
        } => runtime.scrollback(start, count, who, reply),
        Command::Search {
            pattern,
            limit,
            who,
            reply,
        } => runtime.search(pattern, limit, who, reply),
        Command::Marker(label, by, reply) => runtime.marker(label, by, reply).await,
        Command::Theme(theme, by) => runtime.theme(theme, by),
        Command::Kill(by, reply) => return runtime.kill(by, reply).await,
        Command::Freeze(request) => runtime.freeze(request).await,
    }
    ControlFlow::Continue(())
}
