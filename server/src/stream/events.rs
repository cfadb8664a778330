//! A session as named events (`screen`, `title`, `bell`, `resize`,
//! `viewer`, `exit`) with JSON data, for the Server-Sent Events stream:
//! the same information as the binary stream, for programs that do not
//! speak it. Pure bookkeeping: it compares each published screen, room and
//! status with the ones before, and the transport sends what it says.
//!
//! A `screen` event's id is `R.S`: the screen's revision (its generation)
//! and its scroll count. A client that comes back with `Last-Event-ID:
//! R.S` gets the rows changed after revision `R` if the screen has not
//! scrolled since (rows keep their revision when they scroll), and the
//! whole screen otherwise.

use std::sync::Arc;

use panecast_proto::{MemberKind, Role};
use serde_json::{json, Value};

use panecast_term::{Row, Snapshot};

/// One event: its name, its id (for `screen` events) and its JSON data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `screen`, `title`, `bell`, `resize`, `viewer` or `exit`.
    pub name: &'static str,
    /// The resumption point, on `screen` events.
    pub id: Option<String>,
    /// The data.
    pub data: Value,
}

impl Event {
    fn new(name: &'static str, data: Value) -> Event {
        Event {
            name,
            id: None,
            data,
        }
    }
}

/// Where a client resumes: what its `Last-Event-ID` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    revision: u64,
    scrolled: u64,
}

impl Resume {
    /// Reads a `Last-Event-ID` (`R.S`); `None` when it is not one.
    pub fn parse(id: &str) -> Option<Resume> {
        let (revision, scrolled) = id.split_once('.')?;
        Some(Resume {
            revision: revision.parse().ok()?,
            scrolled: scrolled.parse().ok()?,
        })
    }
}

/// One connection in the room, as `viewer` events describe it: the
/// transport reads these from the session's room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    id: u64,
    name: Arc<str>,
    kind: MemberKind,
    role: Role,
}

impl Member {
    /// Connection `id` (unique in its room), shown as `name`.
    pub fn new(id: u64, name: Arc<str>, kind: MemberKind, role: Role) -> Member {
        Member {
            id,
            name,
            kind,
            role,
        }
    }
}

/// The events of one client's stream, from the screens, rooms and
/// exits it is shown.
pub struct Events {
    /// The screen the last `screen` event described.
    shown: Option<Arc<Snapshot>>,
    /// Who was in the room.
    members: Vec<Member>,
}

impl Events {
    /// The events of a stream whose room holds `members` when it starts.
    pub fn new(members: Vec<Member>) -> Events {
        Events {
            shown: None,
            members,
        }
    }

    /// The first events: the screen (what changed since `resume`, when
    /// that is known, or all of it) and its title, if it has one.
    pub fn start(&mut self, screen: Arc<Snapshot>, resume: Option<Resume>) -> Vec<Event> {
        let since =
            resume.filter(|r| r.scrolled == screen.scroll_count && r.revision <= screen.generation);
        let changed: Vec<usize> = match since {
            Some(r) => (0..screen.lines.len())
                .filter(|&i| screen.lines[i].generation() > r.revision)
                .collect(),
            None => (0..screen.lines.len()).collect(),
        };
        let mut events = vec![screen_event(&screen, since.is_none(), &changed)];
        if !screen.title.is_empty() {
            events.push(Event::new("title", json!({ "title": &*screen.title })));
        }
        self.shown = Some(screen);
        events
    }

    /// The events a newly published screen makes: `resize`, `title`,
    /// `bell` and `screen` (the rows whose content changed), each when
    /// there is something to say.
    pub fn screen(&mut self, screen: Arc<Snapshot>) -> Vec<Event> {
        let Some(shown) = self.shown.replace(Arc::clone(&screen)) else {
            return self.start(screen, None);
        };
        let mut events = Vec::new();
        let resized = (shown.cols, shown.rows) != (screen.cols, screen.rows);
        if resized {
            events.push(Event::new(
                "resize",
                json!({ "cols": screen.cols, "rows": screen.rows }),
            ));
        }
        if shown.title != screen.title {
            events.push(Event::new("title", json!({ "title": &*screen.title })));
        }
        if screen.bells > shown.bells {
            events.push(Event::new(
                "bell",
                json!({ "count": screen.bells - shown.bells }),
            ));
        }
        let changed: Vec<usize> = (0..screen.lines.len())
            .filter(|&i| resized || differs(shown.lines.get(i), &screen.lines[i]))
            .collect();
        if !changed.is_empty() || shown.cursor != screen.cursor {
            events.push(screen_event(&screen, resized, &changed));
        }
        events
    }

    /// `viewer` events for who joined and left since the room before,
    /// which now holds `now`.
    pub fn room(&mut self, now: Vec<Member>) -> Vec<Event> {
        let viewer = |change: &str, member: &Member| {
            Event::new(
                "viewer",
                json!({
                    "change": change,
                    "name": &*member.name,
                    "kind": kind(member.kind),
                    "role": if member.role == Role::Control { "control" } else { "view" },
                }),
            )
        };
        let left = self
            .members
            .iter()
            .filter(|m| !now.iter().any(|n| n.id == m.id))
            .map(|m| viewer("left", m));
        let joined = now
            .iter()
            .filter(|n| !self.members.iter().any(|m| m.id == n.id))
            .map(|n| viewer("joined", n));
        let events = left.chain(joined).collect();
        self.members = now;
        events
    }

    /// The `exit` event of a program that ended with `code` or by
    /// `signal` (as `strsignal` names it).
    pub fn exit(code: Option<u32>, signal: Option<&str>) -> Event {
        Event::new("exit", json!({ "code": code, "signal": signal }))
    }
}

/// True when `now` shows something else than `before` in its place.
fn differs(before: Option<&Arc<Row>>, now: &Arc<Row>) -> bool {
    before.is_none_or(|before| !Arc::ptr_eq(before, now) && **before != **now)
}

/// A `screen` event with rows `changed` of `screen` (all of them when `full`).
fn screen_event(screen: &Snapshot, full: bool, changed: &[usize]) -> Event {
    let rows: Vec<Value> = changed
        .iter()
        .map(|&i| json!({ "row": i, "text": screen.lines[i].text() }))
        .collect();
    Event {
        name: "screen",
        id: Some(format!("{}.{}", screen.generation, screen.scroll_count)),
        data: json!({
            "revision": screen.generation,
            "cols": screen.cols,
            "rows": screen.rows,
            "cursor": { "row": screen.cursor.row, "col": screen.cursor.col, "visible": screen.cursor.visible },
            "full": full,
            "changed": rows,
        }),
    }
}

/// A member kind's name.
fn kind(kind: MemberKind) -> &'static str {
    match kind {
        MemberKind::Admin => "admin",
        MemberKind::Key => "key",
        MemberKind::Person => "person",
        MemberKind::Link => "link",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    fn changed(event: &Event) -> Vec<(u64, String)> {
        event.data["changed"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["row"].as_u64().unwrap_or(99),
                    r["text"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn screens_give_changed_rows_resize_title_and_bell() {
        let mut term = Term::new(10, 3, 100);
        let mut events = Events::new(Vec::new());
        term.advance(b"one\r\ntwo");
        let first = events.start(Arc::new(term.snapshot()), None);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].data["full"], true);
        assert_eq!(changed(&first[0]).len(), 3);
        term.advance(b"\x1b]2;hi\x07\x07 more");
        let next = events.screen(Arc::new(term.snapshot()));
        let names: Vec<&str> = next.iter().map(|e| e.name).collect();
        assert_eq!(names, ["title", "bell", "screen"]);
        assert_eq!(changed(&next[2]), vec![(1, "two more".to_owned())]);
        // A scroll moves every row: each shows something else.
        term.advance(b"\r\nthree\r\nfour");
        let scrolled = events.screen(Arc::new(term.snapshot()));
        assert_eq!(
            changed(&scrolled[0]),
            vec![
                (0, "two more".to_owned()),
                (1, "three".to_owned()),
                (2, "four".to_owned())
            ]
        );
        term.resize(12, 3);
        let resized = events.screen(Arc::new(term.snapshot()));
        assert_eq!(resized[0].name, "resize");
        assert_eq!(
            resized.last().map(|e| e.data["full"].clone()),
            Some(json!(true))
        );
    }

    #[test]
    fn a_client_resumes_from_its_last_event_id() {
        let mut term = Term::new(10, 3, 100);
        term.advance(b"a\r\nb");
        let before = Arc::new(term.snapshot());
        let id = Events::new(Vec::new()).start(Arc::clone(&before), None)[0]
            .id
            .clone()
            .expect("an id");
        term.advance(b"c");
        let now = Arc::new(term.snapshot());
        let resumed = Events::new(Vec::new()).start(Arc::clone(&now), Resume::parse(&id));
        assert_eq!(resumed[0].data["full"], false);
        assert_eq!(changed(&resumed[0]), vec![(1, "bc".to_owned())]);
        // After a scroll, or with an id it cannot read: the whole screen.
        term.advance(b"\r\nd\r\ne");
        let scrolled = Events::new(Vec::new()).start(Arc::new(term.snapshot()), Resume::parse(&id));
        assert_eq!(scrolled[0].data["full"], true);
        assert_eq!(Resume::parse("garbage"), None);
    }

    #[test]
    fn room_changes_give_joined_and_left_viewers() {
        let member =
            |id, name: &str, role| Member::new(id, Arc::from(name), MemberKind::Person, role);
        let mut events = Events::new(vec![member(1, "ann", Role::Control)]);
        let changes = events.room(vec![member(2, "bob", Role::View)]);
        let said: Vec<(String, String, String)> = changes
            .iter()
            .map(|e| {
                let field = |k: &str| e.data[k].as_str().unwrap_or_default().to_owned();
                (field("change"), field("name"), field("role"))
            })
            .collect();
        assert_eq!(
            said,
            [
                ("left".into(), "ann".into(), "control".into()),
                ("joined".into(), "bob".into(), "view".into())
            ]
        );
        assert!(events.room(vec![member(2, "bob", Role::View)]).is_empty());
        assert_eq!(
            Events::exit(Some(1), Some("Hangup")).data,
            json!({ "code": 1, "signal": "Hangup" })
        );
    }
}
