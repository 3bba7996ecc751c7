//! Text helpers: UTF-8-safe cutting, the bytes/4 token estimate and head+tail truncation.

/// Bytes per token in the estimate Codex uses everywhere.
pub const APPROX_BYTES_PER_TOKEN: usize = 4;

/// Estimated tokens of `bytes` bytes of text: `ceil(bytes / 4)`.
pub fn estimate_tokens(bytes: usize) -> usize {
    bytes.div_ceil(APPROX_BYTES_PER_TOKEN)
}

/// The largest index `<= i` that is a char boundary of `s`.
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index `>= i` that is a char boundary of `s`.
pub fn ceil_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Cuts `s` to at most `max` bytes on a char boundary.
pub fn cut(s: &str, max: usize) -> &str {
    &s[..floor_char_boundary(s, max)]
}

/// The marker placed where text was removed: `…N tokens truncated…`.
pub fn truncation_marker(removed_bytes: usize) -> String {
    format!("…{} tokens truncated…", estimate_tokens(removed_bytes))
}

/// `s` without the bytes `head_end..tail_start`, a truncation marker in their place.
pub fn without_middle(s: &str, head_end: usize, tail_start: usize) -> String {
    let marker = truncation_marker(tail_start - head_end);
    let mut out = String::with_capacity(head_end + marker.len() + s.len() - tail_start);
    out.push_str(&s[..head_end]);
    out.push_str(&marker);
    out.push_str(&s[tail_start..]);
    out
}

/// How far a cut may move to land on whitespace.
const CUT_SNAP_BYTES: usize = 256;

/// Keeps the head and tail of `s` within `max_bytes` (split in half, the head
/// getting `max_bytes / 2`), with a truncation marker in between.
///
/// Cuts land on whitespace when there is some within 256 bytes, so a token
/// (an identifier, a key, a secret) is kept or dropped whole, never halved.
/// Returns the text unchanged when it fits. The marker is not counted in the
/// budget, as in Codex's `truncate_middle_with_token_budget`.
pub fn truncate_middle(s: &str, max_bytes: usize) -> (String, bool) {
    if s.len() <= max_bytes {
        return (s.to_string(), false);
    }
    let mut head_len = floor_char_boundary(s, max_bytes / 2);
    let window_start = head_len.saturating_sub(CUT_SNAP_BYTES);
    if let Some(ws) = s.as_bytes()[window_start..head_len]
        .iter()
        .rposition(|b| b.is_ascii_whitespace())
    {
        head_len = window_start + ws + 1;
    }
    let tail_budget = max_bytes - max_bytes / 2;
    let mut tail_start = ceil_char_boundary(s, s.len() - tail_budget);
    let window_end = (tail_start + CUT_SNAP_BYTES).min(s.len());
    if let Some(ws) = s.as_bytes()[tail_start..window_end]
        .iter()
        .position(|b| b.is_ascii_whitespace())
    {
        tail_start += ws;
    }
    (without_middle(s, head_len, tail_start), true)
}

/// Shortens `s` to one line of at most `max_chars` characters with `…`.
pub fn one_line(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n >= max_chars {
            out.push('…');
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `c` breaks or controls a terminal or a line-based file: C0 and C1
/// controls, DEL, and the Unicode line and paragraph separators.
fn is_breaking(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Whether every character of `s` is plain printable ASCII or one of
/// `allowed`: the byte-wise test that lets text with nothing to escape
/// (nearly all of it) skip decoding characters.
fn plain_ascii(s: &str, allowed: &[u8]) -> bool {
    s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) || allowed.contains(&b))
}

/// Writes `c` as a visible escape (`\n`, `\u{1b}`).
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        other => out.push_str(&format!("\\u{{{:x}}}", other as u32)),
    }
}

/// A value from a log (a path, a branch, an id) made inert for one line of a
/// file or a terminal: every control character but the tab, newline
/// included, becomes a visible escape, so it can never start a line of its
/// own (`# Task Group:`, a front-matter key) or send escape sequences; a tab
/// (legal in a path) stays as it is.
pub fn inert_line(s: &str) -> String {
    let breaks = |c: char| is_breaking(c) && c != '\t';
    if plain_ascii(s, b"\t") || !s.chars().any(breaks) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if breaks(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Multi-line text (a message, a summary) made inert: newlines and tabs
/// stay, CRLF becomes LF, every other control character becomes a visible
/// escape.
pub fn inert_text(s: &str) -> String {
    let keep = |c: char| c == '\n' || c == '\t';
    if plain_ascii(s, b"\n\t") || !s.chars().any(|c| is_breaking(c) && !keep(c)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        // CRLF line ends (a model or agent on another platform) become LF.
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if is_breaking(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_values_become_inert() {
        assert_eq!(inert_line("/w/app"), "/w/app");
        assert_eq!(
            inert_line("/evil\n# Task Group: /x\r\u{1b}[31m\0"),
            "/evil\\n# Task Group: /x\\r\\u{1b}[31m\\u{0}"
        );
        assert_eq!(inert_line("a\u{2028}b"), "a\\u{2028}b");
        assert_eq!(inert_line("/w/tab\there"), "/w/tab\there");
        assert_eq!(inert_line("del\u{7f}"), "del\\u{7f}");
        assert_eq!(inert_text("a\n\tb\u{7f}"), "a\n\tb\\u{7f}");
        assert_eq!(inert_text("a\n\tb — c"), "a\n\tb — c");
        assert_eq!(
            inert_text("line 1\r\n\tline 2\u{1b}[2J\r"),
            "line 1\n\tline 2\\u{1b}[2J\\r"
        );
    }

    #[test]
    fn middle_truncation_keeps_head_and_tail() {
        let s = format!("a{}z", "m".repeat(100));
        let (out, cut) = truncate_middle(&s, 20);
        assert!(cut);
        assert!(out.starts_with("ammmmmmmmm"));
        assert!(out.ends_with("mmmmmmmmmz"));
        assert!(out.contains("tokens truncated"));
        assert_eq!(truncate_middle("short", 20), ("short".to_string(), false));
    }

    #[test]
    fn cuts_land_on_whitespace_so_tokens_stay_whole() {
        let token = "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345";
        let s = format!(
            "{} {token} {} {token} {}",
            "a ".repeat(20),
            "b ".repeat(40),
            "c ".repeat(20)
        );
        for budget in 20..120 {
            let (out, _) = truncate_middle(&s, budget);
            for piece in out.split_whitespace() {
                assert!(
                    !token.contains(piece) || piece == token || piece.len() <= 1,
                    "{budget}: {piece}"
                );
            }
        }
    }

    #[test]
    fn middle_truncation_is_utf8_safe() {
        let s = "é".repeat(50);
        for budget in 1..40 {
            let (out, _) = truncate_middle(&s, budget);
            assert!(
                out.chars()
                    .all(|c| c == 'é' || !c.is_alphabetic() || c.is_ascii())
            );
        }
        assert_eq!(cut("aé", 2), "a");
    }

    #[test]
    fn estimates_tokens_rounding_up() {
        assert_eq!(estimate_tokens(0), 0);
        assert_eq!(estimate_tokens(1), 1);
        assert_eq!(estimate_tokens(8), 2);
        assert_eq!(estimate_tokens(9), 3);
    }
}
