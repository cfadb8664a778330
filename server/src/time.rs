//! Wall-clock times as text: RFC 3339 in UTC with milliseconds, by the
//! `time` crate (already in the tree through async-nats).

use std::sync::LazyLock;
use std::time::{SystemTime, UNIX_EPOCH};

use time::format_description::well_known::Rfc3339;
use time::format_description::{self, BorrowedFormatItem};
use time::{OffsetDateTime, PrimitiveDateTime};

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
static MILLIS_UTC: LazyLock<Vec<BorrowedFormatItem<'static>>> = LazyLock::new(|| {
    format_description::parse_borrowed::<1>(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z",
    )
    // A constant description, checked by the tests below.
    .unwrap_or_default()
});

/// Formats a time as RFC 3339 in UTC with millisecond precision (a time
/// before 1970 as 1970, one past the year 9999 as its last millisecond).
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let utc = time::Duration::try_from(since_epoch)
        .ok()
        .and_then(|since| OffsetDateTime::UNIX_EPOCH.checked_add(since))
        .unwrap_or(PrimitiveDateTime::MAX.assume_utc());
    // Every time from 1970 to 9999 formats by this description.
    utc.format(&MILLIS_UTC).unwrap_or_default()
}

/// The time an RFC 3339 `text` names (any offset, any fraction), or `None`
/// for any other text.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .map(SystemTime::from)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(951_782_400_123);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.123Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_735_689_599);
        assert_eq!(rfc3339(t), "2024-12-31T23:59:59.000Z");
        let far = UNIX_EPOCH + Duration::from_secs(u64::from(u32::MAX) * 100);
        assert_eq!(
            rfc3339(far),
            "9999-12-31T23:59:59.999Z",
            "clamped, no panic"
        );
    }

    #[test]
    fn parses_what_it_formats() {
        for millis in [0, 951_782_400_123, 1_735_689_599_000, 4_102_444_800_999] {
            let t = UNIX_EPOCH + Duration::from_millis(millis);
            assert_eq!(parse_rfc3339(&rfc3339(t)), Some(t));
        }
        assert_eq!(
            parse_rfc3339("2000-02-29T00:00:01Z"),
            Some(UNIX_EPOCH + Duration::from_secs(951_782_401))
        );
        assert_eq!(
            parse_rfc3339("2000-02-29T01:00:01.5+01:00"),
            Some(UNIX_EPOCH + Duration::from_millis(951_782_401_500)),
            "another offset, another fraction"
        );
        for bad in [
            "",
            "2000-02-29",
            "2000-13-01T00:00:00Z",
            "2000-02-29T24:00:00Z",
            "2000-02-30T00:00:00Z",
            "+000-02-29T00:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
