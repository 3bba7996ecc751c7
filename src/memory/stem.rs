//! File names of rollout summaries: `<timestamp>-<4 base-62 chars>[-<slug>]`,
//! as Codex names them, so both tools agree on every file (an id that only
//! looks like a UUIDv7 is the one exception: see `rollout_summary_file_stem`).

use crate::util::ids::{parse_uuid, uuid_v7_secs};
use crate::util::time::file_stamp;

/// Longest slug suffix, in bytes.
const MAX_SLUG_BYTES: usize = 60;
/// One day, in seconds: how far a UUIDv7's time may run ahead of the
/// thread's last update (clock skew) before it is not believed.
const DAY: i64 = 86_400;
/// 9999-12-31T23:59:59Z: the last time a stem's four-digit year can name.
const LAST_FOUR_DIGIT_YEAR: i64 = 253_402_300_799;
/// 62⁴: the range of the four-character hash.
const HASH_SPACE: u32 = 14_776_336;
const ALPHABET: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// The stem (file name without `.md`) of the summary file of a stage-1 output.
pub fn rollout_summary_file_stem(
    thread_id: &str,
    source_updated_at: i64,
    slug: Option<&str>,
) -> String {
    // Codex takes a UUIDv7's time as is. An id that only looks like one
    // (hashed, hand-made) can carry any time, up to a five-digit year that
    // breaks the stem's format; a thread cannot start after it was last
    // updated, so such a time gives way to the update time.
    let ts = uuid_v7_secs(thread_id)
        .filter(|&t| source_updated_at <= 0 || t <= source_updated_at.saturating_add(DAY))
        .filter(|&t| t <= LAST_FOUR_DIGIT_YEAR)
        .unwrap_or(source_updated_at);
    let seed = match parse_uuid(thread_id) {
        Some(b) => u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        None => thread_id
            .bytes()
            .fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(c as u32)),
    };
    let mut v = seed % HASH_SPACE;
    let mut hash = [0u8; 4];
    for slot in hash.iter_mut().rev() {
        *slot = ALPHABET[(v % 62) as usize];
        v /= 62;
    }
    let mut stem = format!("{}-{}", file_stamp(ts), String::from_utf8_lossy(&hash));
    let slug = sanitize_slug(slug.unwrap_or(""));
    if !slug.is_empty() {
        stem.push('-');
        stem.push_str(&slug);
    }
    stem
}

/// Lower-cased ASCII alphanumerics, every other character `_`, at most 60
/// bytes, no trailing `_`.
fn sanitize_slug(slug: &str) -> String {
    let mut out = String::new();
    for c in slug.chars() {
        if out.len() >= MAX_SLUG_BYTES {
            break;
        }
        out.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        });
    }
    out.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0194f5a6-89ab-7cde-8123-456789abcdef";

    #[test]
    fn codex_vectors() {
        assert_eq!(
            rollout_summary_file_stem(ID, 0, None),
            "2025-02-11T15-35-19-jqmb"
        );
        assert_eq!(
            rollout_summary_file_stem(ID, 0, Some("")),
            "2025-02-11T15-35-19-jqmb"
        );
        let long = "Unsafe Slug/With Spaces & Symbols + EXTRA_LONG_12345_67890_ABCDE_fghij_klmno";
        let stem = rollout_summary_file_stem(ID, 0, Some(long));
        assert_eq!(
            stem,
            "2025-02-11T15-35-19-jqmb-unsafe_slug_with_spaces___symbols___extra_long_12345_67890_a"
        );
        assert_eq!(stem.len() - "2025-02-11T15-35-19-jqmb-".len(), 60);
    }

    #[test]
    fn non_v7_ids_use_the_source_time_and_a_string_hash() {
        let stem = rollout_summary_file_stem(
            "cf4def41-21e0-4b91-adb4-5397c1492084",
            1_739_288_119,
            Some("fix-it"),
        );
        assert!(stem.starts_with("2025-02-11T15-35-19-"), "{stem}");
        assert!(stem.ends_with("-fix_it"));
        let other = rollout_summary_file_stem("agent-abc", 1_739_288_119, None);
        assert_eq!(other.len(), "2025-02-11T15-35-19-xxxx".len());
        // A v7-looking id whose time is far after the thread's last update.
        let forged =
            rollout_summary_file_stem("ffff0000-0000-7000-8000-000000000000", 1_739_288_119, None);
        assert!(forged.starts_with("2025-02-11T15-35-19-"), "{forged}");
        // Without an update time, still never a five-digit year.
        let unknown = rollout_summary_file_stem("ffff0000-0000-7000-8000-000000000000", 0, None);
        assert!(unknown.starts_with("1970-01-01T00-00-00-"), "{unknown}");
        assert_eq!(sanitize_slug("__"), "");
        assert_eq!(sanitize_slug("../../etc/passwd"), "______etc_passwd");
    }
}
