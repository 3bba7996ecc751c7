//! Unix-time helpers: the clock, RFC 3339 and the `YYYY-MM-DDTHH-MM-SS` stamps Codex uses.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, now.
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Converts a `SystemTime` to Unix nanoseconds (0 before the epoch).
pub fn system_time_nanos(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos().min(i64::MAX as u128) as i64)
        .unwrap_or(0)
}

/// Parses an RFC 3339 timestamp (`2025-11-17T21:30:28.608Z`) to Unix milliseconds.
pub fn parse_rfc3339_millis(s: &str) -> Option<i64> {
    let t = humantime::parse_rfc3339_weak(s.trim()).ok()?;
    let d = t.duration_since(UNIX_EPOCH).ok()?;
    Some(d.as_millis() as i64)
}

/// Civil date and time in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year, e.g. 2026.
    pub year: i64,
    /// Month 1..=12.
    pub month: u32,
    /// Day 1..=31.
    pub day: u32,
    /// Hour 0..=23.
    pub hour: u32,
    /// Minute 0..=59.
    pub minute: u32,
    /// Second 0..=59.
    pub second: u32,
}

/// Splits Unix seconds into a UTC civil date and time.
pub fn civil_from_secs(secs: i64) -> Civil {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days-from-civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    Civil {
        year: if month <= 2 { y + 1 } else { y },
        month,
        day,
        hour: (rem / 3600) as u32,
        minute: ((rem % 3600) / 60) as u32,
        second: (rem % 60) as u32,
    }
}

/// Unix seconds of a UTC civil date and time.
pub fn secs_from_civil(c: Civil) -> i64 {
    let y = if c.month <= 2 { c.year - 1 } else { c.year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = c.month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + c.day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + c.hour as i64 * 3600 + c.minute as i64 * 60 + c.second as i64
}

/// Formats Unix seconds as RFC 3339 in UTC with a `Z` suffix, no fraction.
pub fn rfc3339(secs: i64) -> String {
    let c = civil_from_secs(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// Formats Unix seconds as Codex's file-name stamp `%Y-%m-%dT%H-%M-%S` (UTC).
pub fn file_stamp(secs: i64) -> String {
    let c = civil_from_secs(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}-{:02}-{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// Formats Unix seconds as a date `YYYY-MM-DD` (UTC).
pub fn date(secs: i64) -> String {
    let c = civil_from_secs(secs);
    format!("{:04}-{:02}-{:02}", c.year, c.month, c.day)
}

/// Parses the first 19 characters of a `%Y-%m-%dT%H-%M-%S` stamp as UTC Unix seconds.
pub fn parse_file_stamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = &s[r];
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b'-' || b[16] != b'-' {
        return None;
    }
    let c = Civil {
        year: digits(0..4)?,
        month: digits(5..7)? as u32,
        day: digits(8..10)? as u32,
        hour: digits(11..13)? as u32,
        minute: digits(14..16)? as u32,
        second: digits(17..19)? as u32,
    };
    let valid_day = c.day >= 1 && c.day <= days_in_month(c.year, c.month);
    if !(1..=12).contains(&c.month) || !valid_day || c.hour > 23 || c.minute > 59 || c.second > 59 {
        return None;
    }
    Some(secs_from_civil(c))
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

/// A future moment for people: `2026-11-30T02:00:00Z (in 3h 20m)`.
pub fn when(secs: i64, now: i64) -> String {
    format!("{} (in {})", rfc3339(secs), human_duration(secs - now))
}

/// Renders a duration for people: `3h 20m`, `2d 4h`, `45s`.
pub fn human_duration(secs: i64) -> String {
    let secs = secs.max(0) as u64;
    let rounded = if secs >= 86_400 {
        secs / 3600 * 3600
    } else if secs >= 3600 {
        secs / 60 * 60
    } else {
        secs
    };
    humantime::format_duration(Duration::from_secs(rounded)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for secs in [0, 951_782_400, 1_739_288_119, 4_102_444_800, -86_400] {
            assert_eq!(secs_from_civil(civil_from_secs(secs)), secs);
        }
        assert_eq!(rfc3339(1_739_288_119), "2025-02-11T15:35:19Z");
        assert_eq!(file_stamp(1_739_288_119), "2025-02-11T15-35-19");
    }

    #[test]
    fn parses_file_stamps() {
        assert_eq!(
            parse_file_stamp("2025-02-11T15-35-19-note.md"),
            Some(1_739_288_119)
        );
        assert_eq!(parse_file_stamp("2025-02-30T15-35-19"), None);
        assert_eq!(parse_file_stamp("2025-02-11 15-35-19"), None);
        assert_eq!(parse_file_stamp("notes.md"), None);
        assert_eq!(parse_file_stamp("2025-0a-11T15-35-19"), None);
    }

    #[test]
    fn parses_rfc3339() {
        assert_eq!(
            parse_rfc3339_millis("2025-11-17T21:30:28.608Z"),
            Some(1_763_415_028_608)
        );
        assert_eq!(parse_rfc3339_millis("yesterday"), None);
    }
}
