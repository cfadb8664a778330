//! Which recordings retention deletes: finished ones past the age limit,
//! then the oldest finished ones until the rest fit the total size. Live
//! recordings are never deleted, but their bytes count.

use std::time::SystemTime;

use crate::config::RecordingLimits;

/// A file retention may delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its name.
    pub name: String,
    /// When it was last written.
    pub modified: SystemTime,
    /// Its size.
    pub bytes: u64,
    /// Whether it is still being written.
    pub live: bool,
}

/// The names to delete, oldest first.
pub fn plan(mut files: Vec<Candidate>, now: SystemTime, limits: &RecordingLimits) -> Vec<String> {
    files.sort_by(|a, b| (a.modified, &a.name).cmp(&(b.modified, &b.name)));
    let mut total: u64 = files.iter().map(|f| f.bytes).sum();
    let mut doomed = Vec::new();
    for file in files.into_iter().filter(|f| !f.live) {
        let too_old = limits
            .max_age()
            .is_some_and(|max| now.duration_since(file.modified).is_ok_and(|age| age > max));
        if too_old || total > limits.max_total_bytes {
            total -= file.bytes;
            doomed.push(file.name);
        }
    }
    doomed
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn file(name: &str, age_days: u64, bytes: u64, live: bool, now: SystemTime) -> Candidate {
        Candidate {
            name: name.to_owned(),
            modified: now - Duration::from_secs(age_days * 86_400 + 1),
            bytes,
            live,
        }
    }

    #[test]
    fn old_files_go_then_the_oldest_until_the_rest_fit() {
        let now = SystemTime::now();
        let limits = RecordingLimits {
            max_total_bytes: 250,
            max_age_days: 30,
            ..RecordingLimits::default()
        };
        let files = vec![
            file("new", 0, 100, false, now),
            file("ancient", 40, 10, false, now),
            file("older", 5, 100, false, now),
            file("old", 3, 100, false, now),
            file("live", 50, 50, true, now),
        ];
        // 360 bytes: "ancient" is too old (350 left), "older" is the oldest
        // finished one (250 left, which fits); the live one stays.
        assert_eq!(plan(files, now, &limits), ["ancient", "older"]);
    }

    #[test]
    fn nothing_goes_within_the_limits() {
        let now = SystemTime::now();
        let limits = RecordingLimits {
            max_age_days: 0,
            ..RecordingLimits::default()
        };
        let files = vec![file("a", 1000, 10, false, now)];
        assert!(plan(files, now, &limits).is_empty());
    }
}
