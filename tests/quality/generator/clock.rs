//! Dates without a date crate: Unix milliseconds to the civil (UTC) date and
//! time the session files carry.

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// A UTC date and time.
pub struct Civil {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
}

/// The civil UTC time of `ms` (Unix milliseconds).
pub fn civil(ms: i64) -> Civil {
    let days = ms.div_euclid(DAY_MS);
    let in_day = ms.rem_euclid(DAY_MS);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    Civil {
        year,
        month,
        day,
        hour: (in_day / 3_600_000) as u32,
        minute: (in_day / 60_000 % 60) as u32,
        second: (in_day / 1000 % 60) as u32,
        millis: (in_day % 1000) as u32,
    }
}

/// `2026-03-02T10:00:07.250Z`.
pub fn rfc3339(ms: i64) -> String {
    let c = civil(ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second, c.millis
    )
}

/// `2026-03-02`.
pub fn date(ms: i64) -> String {
    let c = civil(ms);
    format!("{:04}-{:02}-{:02}", c.year, c.month, c.day)
}

/// The stamp of a Codex rollout file name: `2026-03-02T10-00-07`.
pub fn file_stamp(ms: i64) -> String {
    let c = civil(ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}-{:02}-{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}
