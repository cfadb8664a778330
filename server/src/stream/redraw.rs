//! Redraws: a session's screen rendered as ANSI for the ALiS stream, once
//! per published screen for every ALiS viewer of the session together, on
//! a blocking thread (never on the async workers), and paced: a new render
//! starts no sooner than [`MIN_INTERVAL`] after the last one, nor sooner
//! than the last one took, so rendering takes at most half a core however
//! fast the program prints and however many viewers watch.

use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::{sleep_until, Instant};

use crate::render::{self, Format};
use panecast_term::Snapshot;

/// Shortest time between two renders.
pub const MIN_INTERVAL: Duration = Duration::from_millis(33);

/// One published screen, drawn.
#[derive(Debug)]
pub struct Redraw {
    /// The screen's size.
    pub cols: u16,
    /// The screen's height.
    pub rows: u16,
    /// The ANSI that redraws it from any state.
    pub text: String,
}

/// The latest redraw of one session, shared by its ALiS viewers. The task
/// that renders lives while a viewer holds the feed, and ends with the
/// session after publishing the final screen.
pub struct RedrawFeed {
    latest: watch::Receiver<Option<Arc<Redraw>>>,
    task: tokio::task::AbortHandle,
}

impl Drop for RedrawFeed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl RedrawFeed {
    /// A receiver of redraws: the current screen's comes first (it may
    /// take a render), then one per later screen, the latest only. Its
    /// `changed` fails once the session has ended and the final screen's
    /// redraw has been read.
    pub fn subscribe(&self) -> watch::Receiver<Option<Arc<Redraw>>> {
        let mut latest = self.latest.clone();
        latest.mark_changed();
        latest
    }
}

/// Where a session keeps its feed while ALiS viewers hold it.
#[derive(Default)]
pub struct RedrawSlot(Mutex<Weak<RedrawFeed>>);

impl RedrawSlot {
    /// The session's feed, started on `screens` if no viewer holds one.
    pub fn feed(
        &self,
        screens: impl FnOnce() -> watch::Receiver<Arc<Snapshot>>,
    ) -> Arc<RedrawFeed> {
        // The slot is one pointer, consistent after any panic.
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(feed) = slot.upgrade() {
            return feed;
        }
        let (tx, latest) = watch::channel(None);
        let task = tokio::spawn(render_screens(screens(), tx)).abort_handle();
        let feed = Arc::new(RedrawFeed { latest, task });
        *slot = Arc::downgrade(&feed);
        feed
    }
}

/// Renders each screen `screens` publishes (the latest, paced) into `out`,
/// until the session ends (after its final screen) or nobody listens.
async fn render_screens(
    mut screens: watch::Receiver<Arc<Snapshot>>,
    out: watch::Sender<Option<Arc<Redraw>>>,
) {
    screens.mark_changed();
    let mut next = Instant::now();
    let mut drawn: Option<Arc<Snapshot>> = None;
    loop {
        tokio::select! {
            changed = screens.changed() => {
                if changed.is_err() {
                    // Ended: the final screen is the one last published.
                    let last = screens.borrow().clone();
                    if !drawn.is_some_and(|d| Arc::ptr_eq(&d, &last)) {
                        publish(&out, last).await;
                    }
                    return;
                }
            }
            () = out.closed() => return,
        }
        sleep_until(next).await;
        let screen = screens.borrow_and_update().clone();
        let started = Instant::now();
        if !publish(&out, Arc::clone(&screen)).await {
            return;
        }
        drawn = Some(screen);
        next = Instant::now() + MIN_INTERVAL.max(started.elapsed());
    }
}

/// Renders `screen` on a blocking thread and publishes it; false when that
/// failed (the runtime is shutting down).
async fn publish(out: &watch::Sender<Option<Arc<Redraw>>>, screen: Arc<Snapshot>) -> bool {
    let drawn = tokio::task::spawn_blocking(move || Redraw {
        cols: screen.cols,
        rows: screen.rows,
        text: redraw(&screen),
    })
    .await;
    match drawn {
        Ok(drawn) => {
            out.send_replace(Some(Arc::new(drawn)));
            true
        }
        Err(_) => false,
    }
}

/// The ANSI that redraws a screen from any state: leave the alternate
/// screen unless the screen is on it, then the full redraw.
fn redraw(screen: &Snapshot) -> String {
    let body = render::render(screen, Format::Ansi);
    if screen.alternate {
        body
    } else {
        format!("\x1b[?1049l{body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use panecast_term::Term;

    #[tokio::test]
    async fn viewers_share_one_render_per_screen_and_see_the_final_one() {
        let mut term = Term::new(20, 3, 0);
        term.advance(b"first");
        let (tx, rx) = watch::channel(Arc::new(term.snapshot()));
        let slot = RedrawSlot::default();
        let a = slot.feed(|| rx.clone());
        let b = slot.feed(|| unreachable!("the feed is running"));
        assert!(Arc::ptr_eq(&a, &b));
        let (mut ra, mut rb) = (a.subscribe(), b.subscribe());
        let first = ra
            .wait_for(Option::is_some)
            .await
            .expect("a redraw")
            .clone()
            .expect("some");
        let same = rb
            .wait_for(Option::is_some)
            .await
            .expect("a redraw")
            .clone();
        assert!(
            Arc::ptr_eq(&first, &same.expect("some")),
            "one render for both"
        );
        assert!(first.text.contains("first"));
        term.advance(b"\r\nlast");
        tx.send_replace(Arc::new(term.snapshot()));
        drop(tx);
        let mut seen = String::new();
        while ra.changed().await.is_ok() {
            seen = ra.borrow_and_update().as_ref().expect("some").text.clone();
        }
        assert!(seen.contains("last"), "the final screen: {seen:?}");
    }
}
