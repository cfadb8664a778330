//! Wall-clock times as text: RFC 3339 in UTC, without a date crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// Formats a time as RFC 3339 in UTC with millisecond precision.
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since_epoch.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        since_epoch.subsec_millis()
    )
}

/// The time [`rfc3339`] wrote as `text` (`YYYY-MM-DDTHH:MM:SS.mmmZ`, the
/// fraction optional), or `None` for any other text.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let (date, rest) = text.strip_suffix('Z')?.split_once('T')?;
    let (clock, millis) = match rest.split_once('.') {
        Some((clock, fraction)) if fraction.len() == 3 => (clock, fraction.parse::<u64>().ok()?),
        Some(_) => return None,
        None => (rest, 0),
    };
    let numbers = |text: &str, parts: usize| -> Option<Vec<u64>> {
        let numbers: Vec<u64> = text
            .split(['-', ':'])
            .map(|n| {
                n.parse()
                    .ok()
                    .filter(|_| n.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect::<Option<_>>()?;
        (numbers.len() == parts).then_some(numbers)
    };
    let (date, clock) = (numbers(date, 3)?, numbers(clock, 3)?);
    let (year, month, day) = (date[0], date[1], date[2]);
    if year < 1970 || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if clock[0] > 23 || clock[1] > 59 || clock[2] > 60 {
        return None;
    }
    let secs =
        days_from_civil(year, month, day) * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2];
    Some(UNIX_EPOCH + std::time::Duration::from_millis(secs * 1000 + millis))
}

/// The day count since 1970-01-01 of a proleptic Gregorian date from 1970
/// on (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let yoe = year % 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
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
        for bad in [
            "",
            "2000-02-29",
            "2000-02-29T00:00:00.1Z",
            "2000-13-01T00:00:00Z",
            "2000-02-29T24:00:00Z",
            "2000-02-29T00:00:00+01:00",
            "+000-02-29T00:00:00Z",
            "1969-12-31T23:59:59Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
