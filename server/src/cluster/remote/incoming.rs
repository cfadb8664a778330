//! An ask from another node, opened: answered, and judged with this
//! node's own credentials and configuration.

use std::sync::Arc;

use async_nats::Subject;

use super::ask::{encode, Answer};
use crate::access::{Action, Denied, Grant, Principal, Target};
use crate::cluster::{Bus, Kind};
use crate::session::{Gate, SessionError};

/// One ask, opened: who sent it, where its answer goes, and what judges
/// it.
pub(super) struct Incoming {
    pub(super) bus: Bus,
    pub(super) gate: Arc<dyn Gate>,
    /// The node that sealed it.
    pub(super) from: String,
    pub(super) reply: Subject,
}

impl Incoming {
    /// Sends `answer`, sealed for the asker's reply subject; a lost answer
    /// is the asker's timeout.
    pub(super) async fn respond(&self, answer: &Answer) {
        let sent = self
            .bus
            .publish(Kind::Answer, self.reply.clone(), &encode(answer))
            .await;
        if let Err(e) = sent {
            tracing::debug!(error = %e, "cannot answer an ask");
        }
    }

    /// The grant `by` has here, when it may do `action` on `target`; the
    /// answer that refuses it otherwise (see [`Incoming::judged`]).
    pub(super) fn allowed(
        &self,
        by: &Principal,
        action: Action,
        target: Option<Target<'_>>,
    ) -> Result<Grant, Answer> {
        let about = target.map(|t| t.id).unwrap_or_default();
        self.judged(by, about, |grant| grant.check(action, target))
            .map_err(|denied| match denied {
                Denied::NotFound => Answer::NoSession,
                Denied::Forbidden(why) => Answer::Refused(SessionError::Denied(why)),
            })
    }

    /// The grant `by` has here, when `check` passes it; why not otherwise,
    /// logged with `about` (what was asked about). The asking node checked
    /// the same, so a refusal here means the nodes' configurations differ,
    /// or the ask did not come from a node's own check.
    pub(super) fn judged(
        &self,
        by: &Principal,
        about: &str,
        check: impl FnOnce(&Grant) -> Result<(), Denied>,
    ) -> Result<Grant, Denied> {
        let checked = self
            .gate
            .regrant(by)
            .ok_or(Denied::Forbidden(
                "no such credential on this node".to_owned(),
            ))
            .and_then(|grant| check(&grant).map(|()| grant));
        if let Err(denied) = &checked {
            let why = match denied {
                Denied::NotFound => "outside its scope",
                Denied::Forbidden(why) => why.as_str(),
            };
            self.denied(by, about, why);
        }
        checked
    }

    /// Counts and logs an ask this node refused for who it acts for.
    pub(super) fn denied(&self, by: &Principal, about: &str, why: &str) {
        self.bus.count_denied();
        tracing::warn!(
            target: "panecast::audit",
            event = "bus_denied",
            node = %self.from,
            credential = %by.credential,
            about,
            reason = why,
            "another node asked for something its caller may not do here: refused"
        );
    }
}
