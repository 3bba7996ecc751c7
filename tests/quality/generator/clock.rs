//! Session times in Unix milliseconds, formatted as the session files carry
//! them, on top of memkit's own UTC calendar helpers.

use memkit::util::time;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// `2026-03-02T10:00:07.250Z`.
pub fn rfc3339(ms: i64) -> String {
    let seconds = time::rfc3339(ms.div_euclid(1000));
    let whole = seconds.trim_end_matches('Z');
    format!("{whole}.{:03}Z", ms.rem_euclid(1000))
}

/// `2026-03-02`.
pub fn date(ms: i64) -> String {
    time::date(ms.div_euclid(1000))
}

/// The stamp of a Codex rollout file name: `2026-03-02T10-00-07`.
pub fn file_stamp(ms: i64) -> String {
    time::file_stamp(ms.div_euclid(1000))
}
