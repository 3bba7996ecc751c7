//! Cutting text without exposing half a secret.
//!
//! Many secrets are recognised by their context (`password: …`, `--token …`,
//! `Authorization: Bearer …`), and that context sits on the same line. A cut
//! that falls on a line boundary keeps every line whole, so text can be cut
//! first and redacted afterwards (cheaper: only what is kept is scanned).
//! When no line boundary is near, or the text holds a private-key block
//! (which spans lines), there are no line cuts: the text must be redacted
//! before it is cut.

use crate::util::text::{truncate_middle, without_middle};

/// A cut side may shrink to this fraction of its budget to reach a newline.
const MIN_SIDE_FRACTION: usize = 4;

/// Keeps the head and tail of `text` within `max` bytes with a marker between.
///
/// The result is safe to redact afterwards: either both cuts fell on line
/// boundaries, or the text was redacted before cutting.
pub fn cut_middle(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    if let Some((head_end, tail_start)) = line_cuts(text.as_bytes(), max) {
        return without_middle(text, head_end, tail_start);
    }
    truncate_middle(&super::redact(text), max).0
}

/// Cut positions just after a newline: the head ends within its half of the
/// budget, the tail starts within the other half. `None` when a side would
/// shrink below a quarter of its half, and for text holding a private-key
/// block: its lines are only recognised together, so it is redacted first.
pub fn line_cuts(bytes: &[u8], max: usize) -> Option<(usize, usize)> {
    cuts_after(bytes, max, b'\n', |_| true)
}

/// [`line_cuts`] where a line ends at a byte `end` at index `i` for which
/// `is_line_end(i)` holds (e.g. the `n` of a `\n` escape in a JSON string).
pub fn cuts_after(
    bytes: &[u8],
    max: usize,
    end: u8,
    is_line_end: impl Fn(usize) -> bool,
) -> Option<(usize, usize)> {
    if memchr::memmem::find(bytes, b"PRIVATE KEY").is_some() {
        return None;
    }
    let half = max / 2;
    let head_end =
        memchr::memrchr_iter(end, &bytes[..half.min(bytes.len())]).find(|&i| is_line_end(i))? + 1;
    let tail_budget = max - half;
    let from = bytes.len().checked_sub(tail_budget)?;
    let tail_start =
        from + memchr::memchr_iter(end, &bytes[from..]).find(|&i| is_line_end(from + i))? + 1;
    let long_enough = head_end >= half / MIN_SIDE_FRACTION
        && bytes.len() - tail_start >= tail_budget / MIN_SIDE_FRACTION;
    (long_enough && head_end < tail_start).then_some((head_end, tail_start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_lines_and_keeps_context_with_its_secret() {
        let secret = format!("hunter2{}", "Zq9".repeat(6));
        let mut text: String = (0..200).map(|i| format!("log line {i}\n")).collect();
        text.push_str(&format!("db password: {secret}\n"));
        text.push_str(&(0..200).map(|i| format!("more {i}\n")).collect::<String>());
        for max in (200..2000).step_by(37) {
            let cut = cut_middle(&text, max);
            let redacted = super::super::redact(&cut);
            if redacted.contains("hunter2") {
                panic!("{max}: secret survived:\n{redacted}");
            }
            assert!(
                cut.lines()
                    .all(|l| text.contains(l) || l.contains("tokens truncated"))
            );
        }
    }

    #[test]
    fn one_long_line_is_redacted_before_the_cut() {
        let secret = format!("sk-proj-{}", "a1B2c3D4e5".repeat(5));
        let text = format!(
            "{} --api-key {secret} {}",
            "word ".repeat(400),
            "tail ".repeat(400)
        );
        for max in [100, 500, 1000, 2100, 2500] {
            let cut = cut_middle(&text, max);
            assert!(!cut.contains(&secret[..20]), "{max}");
        }
    }

    #[test]
    fn private_key_blocks_are_redacted_first() {
        let body: String = (0..40)
            .map(|i| format!("{}\n", format!("MIIEv{i:03}").repeat(8)))
            .collect();
        let text = format!(
            "{}-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----\n{}",
            "x\n".repeat(100),
            "y\n".repeat(100)
        );
        let cut = cut_middle(&text, 600);
        assert!(!cut.contains("MIIEv0"), "{cut}");
    }
}
