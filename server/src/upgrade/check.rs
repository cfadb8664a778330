//! `panecast check-handover FILE`: the binary that is about to be
//! re-executed reads the state the running server wrote and validates all
//! of it, so that a binary that could not take the sessions back is never
//! executed. Exit 0 when it can, else non-zero with the reason.

use std::path::Path;

use super::Handover;

/// Reads and validates the state at `path`: a one-line summary, or why
/// this binary cannot take it.
pub fn check(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let handover = Handover::decode(&bytes).map_err(|e| e.to_string())?;
    let sessions = handover.validate().map_err(|e| e.to_string())?;
    let running = sessions
        .iter()
        .filter(|(s, _)| s.status().running())
        .count();
    Ok(format!(
        "hand-over state of pid {}: {} sessions ({running} running), {} links, {} listening sockets",
        handover.pid,
        sessions.len(),
        handover.links.len(),
        handover.listeners.len()
    ))
}
