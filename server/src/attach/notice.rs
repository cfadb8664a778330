//! What the notice on the window's last row says (see [`super::paint`]):
//! while the link is down, while it is being opened again, while typed
//! input waits too long for the server, and for a while after inputs had
//! to be dropped. One line, plain words, like the attach's other messages.

use std::time::Duration;

/// How long a passing note (inputs dropped) stays.
pub const NOTE_FOR: Duration = Duration::from_secs(8);

/// The link is down for `why`; the next try in `retry_in`; `detach` is the
/// detach key's name, if there is one.
pub fn down(why: &str, retry_in: Duration, detach: Option<&str>) -> String {
    let secs = retry_in.as_millis().div_ceil(1000);
    let mut text = format!("panecast: link down ({why}); reconnecting in {secs} s; typing is kept");
    if let Some(key) = detach {
        text.push_str(&format!("; {key} detaches"));
    }
    text
}

/// The link is being opened again after `why`.
pub fn dialing(why: &str, detach: Option<&str>) -> String {
    let mut text = format!("panecast: link down ({why}); reconnecting now; typing is kept");
    if let Some(key) = detach {
        text.push_str(&format!("; {key} detaches"));
    }
    text
}

/// An input has waited `waited` for the server.
pub fn quiet(waited: Duration) -> String {
    format!(
        "panecast: no answer from the server for {} s; typing is kept",
        waited.as_secs()
    )
}

/// `n` inputs could not be kept while the link was down.
pub fn dropped(n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("panecast: {n} input{s} typed while the link was down could not be sent")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_say_what_happens_in_one_line() {
        assert_eq!(
            down(
                "connection reset",
                Duration::from_millis(2100),
                Some("ctrl-\\")
            ),
            "panecast: link down (connection reset); reconnecting in 3 s; typing is kept; \
             ctrl-\\ detaches"
        );
        assert_eq!(
            dropped(1),
            "panecast: 1 input typed while the link was down could not be sent"
        );
        assert!(quiet(Duration::from_millis(2500)).contains(" 2 s"));
        assert!(dialing("x", None).ends_with("now; typing is kept"));
    }
}
