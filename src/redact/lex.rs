//! Byte-level helpers the detectors share: character classes, runs, line ends
//! and values (quoted or bare). Every class is ASCII, so a span that starts or
//! ends on a class boundary is also a UTF-8 character boundary.

/// `[A-Za-z0-9]`.
pub(super) fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `[A-Za-z0-9_-]`: base64url, and the body of most tokens.
pub(super) fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// `[A-Za-z0-9+/]`: standard base64 without padding.
pub(super) fn b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// Whether the byte before `i` does not continue an alphanumeric word. An
/// escape inside a JSON string (`\n`, `\t`, `\r`) ends the word before it:
/// `…\nghp_…` starts a token.
pub(super) fn starts_word(text: &[u8], i: usize) -> bool {
    i == 0 || !alnum(text[i - 1]) || after_escape(text, i)
}

/// Whether `text[..i]` ends with a JSON escape letter (`\n`, `\t`, `\r`).
pub(super) fn after_escape(text: &[u8], i: usize) -> bool {
    // Any backslashes: inside doubly escaped JSON a line break is `\\n`.
    i >= 2 && matches!(text[i - 1], b'n' | b't' | b'r') && backslashes_before(text, i - 1) > 0
}

/// Whether the byte at `i` does not continue an alphanumeric word.
pub(super) fn ends_word(text: &[u8], i: usize) -> bool {
    i >= text.len() || !alnum(text[i])
}

/// End of the run of `class` bytes starting at `i`, looking at most `max` bytes.
pub(super) fn run(text: &[u8], i: usize, max: usize, class: impl Fn(u8) -> bool) -> usize {
    let limit = text.len().min(i.saturating_add(max));
    let mut j = i;
    while j < limit && class(text[j]) {
        j += 1;
    }
    j
}

/// Start of the run of `class` bytes ending at `i`, looking at most `max` bytes back.
pub(super) fn run_back(text: &[u8], i: usize, max: usize, class: impl Fn(u8) -> bool) -> usize {
    let limit = i.saturating_sub(max);
    let mut j = i;
    while j > limit && class(text[j - 1]) {
        j -= 1;
    }
    j
}

/// Skips spaces and tabs.
pub(super) fn skip_blanks(text: &[u8], i: usize) -> usize {
    run(text, i, 64, |b| b == b' ' || b == b'\t')
}

/// Past blanks and line breaks from `i`, escaped ones (`\n` inside a JSON
/// string) too: where the next argument of a call spread over lines starts.
pub(super) fn skip_spacing(text: &[u8], mut i: usize) -> usize {
    let limit = text.len().min(i + 256);
    while i < limit {
        match (text[i], escape_at(text, i)) {
            (b' ' | b'\t' | b'\n' | b'\r', _) => i += 1,
            (_, Some((_, width))) => i += width,
            _ => break,
        }
    }
    i
}

/// Number of backslashes ending just before `i`.
pub(super) fn backslashes_before(text: &[u8], i: usize) -> usize {
    i - run_back(text, i, 16, |b| b == b'\\')
}

/// The JSON escape (`\n`, `\t`, `\r`; under any number of backslashes, as
/// in doubly escaped JSON) whose backslashes start at `i`: its letter and
/// its width in bytes.
pub(super) fn escape_at(text: &[u8], i: usize) -> Option<(u8, usize)> {
    let letter = run(text, i, 16, |b| b == b'\\');
    match text.get(letter) {
        Some(&c @ (b'n' | b't' | b'r')) if letter > i => Some((c, letter + 1 - i)),
        _ => None,
    }
}

/// Skips the line break at `i` (`\n`, `\r\n`, or one escaped under any
/// number of backslashes), or nothing if there is none.
pub(super) fn skip_break(text: &[u8], mut i: usize) -> usize {
    for _ in 0..4 {
        match (text.get(i), escape_at(text, i)) {
            (Some(b'\r' | b'\n'), _) => i += 1,
            (_, Some((b'n' | b'r', width))) => i += width,
            _ => break,
        }
    }
    i
}

/// Start of the logical line that contains `i`: after a newline or an
/// escaped `\n` or `\r`; at most `max` bytes back.
pub(super) fn line_start(text: &[u8], i: usize, max: usize) -> usize {
    let limit = i.saturating_sub(max);
    let mut j = i;
    while j > limit {
        match text[j - 1] {
            b'\n' | b'\r' => return j,
            b'n' | b'r' if backslashes_before(text, j - 1) > 0 => return j,
            _ => j -= 1,
        }
    }
    limit
}

/// The logical lines of `text`: split at newlines and at the escaped `\n`
/// of a JSON string, as [`line_start`] reads them.
pub(super) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let t = rest?;
        let cut =
            (0..t.len()).find(|&i| t[i] == b'\n' || (t[i] == b'\\' && t.get(i + 1) == Some(&b'n')));
        match cut {
            Some(i) => {
                rest = Some(&t[i + if t[i] == b'\n' { 1 } else { 2 }..]);
                Some(&t[..i])
            }
            None => {
                rest = None;
                Some(t)
            }
        }
    })
}

/// End of the logical line that contains `i`: a newline, an escaped `\n` or
/// `\r` inside a JSON string, or an unescaped `"` that closes that string; at
/// most `max` bytes on.
pub(super) fn line_end(text: &[u8], i: usize, max: usize) -> usize {
    let limit = text.len().min(i.saturating_add(max));
    let mut j = i;
    while j < limit {
        match text[j] {
            b'\n' | b'\r' => return j,
            // The whole run of backslashes: doubly escaped JSON writes `\\n`.
            b'\\' if matches!(escape_at(text, j), Some((b'n' | b'r', _))) => return j,
            b'"' if backslashes_before(text, j) == 0 => return j,
            _ => j += 1,
        }
    }
    limit
}

/// Where the line from `i` ends: at a line break, real or escaped, or `max`
/// bytes on (a quote does not end it, unlike [`line_end`]).
pub(super) fn break_after(text: &[u8], i: usize, max: usize) -> usize {
    let limit = text.len().min(i.saturating_add(max));
    (i..limit)
        .find(|&j| {
            matches!(text[j], b'\n' | b'\r')
                || (text[j] == b'\\' && matches!(escape_at(text, j), Some((b'n' | b'r', _))))
        })
        .unwrap_or(limit)
}

/// Where the command line from `i` ends: a line break (real or escaped), or
/// the end of the JSON string holding it (a quote followed by JSON, not a
/// shell quote such as `echo "$X" | …`).
pub(super) fn command_end(text: &[u8], i: usize) -> usize {
    let limit = text.len().min(i + 1024);
    let mut j = i;
    while j < limit {
        match text[j] {
            b'\n' | b'\r' => return j,
            // The whole run of backslashes: doubly escaped JSON writes `\\n`.
            b'\\' if matches!(escape_at(text, j), Some((b'n' | b'r', _))) => return j,
            // A quote, escaped or not, that JSON punctuation follows ends the
            // string holding the command (`…\"],\"workdir\"…`); a shell
            // quote (`-D \"cn=admin\" -w …`) does not.
            b'"' => {
                let next = skip_blanks(text, j + 1);
                if matches!(text.get(next), None | Some(b',' | b'}' | b']' | b':')) {
                    return j - backslashes_before(text, j);
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
    limit
}

/// A value found after a separator: the byte range of its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Value {
    /// First byte of the content.
    pub start: usize,
    /// End of the content (before a closing quote).
    pub end: usize,
    /// Whether it was enclosed in quotes.
    pub quoted: bool,
}

/// Bytes that end a bare (unquoted) value.
pub(super) fn ends_bare(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\r'
            | b'\n'
            | b'"'
            | b'\''
            | b'`'
            | b'\\'
            | b','
            | b';'
            | b'&'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'<'
            | b'>'
            | b'|'
    ) || b < 0x20
}

/// Longest value considered.
const MAX_VALUE: usize = 4096;

/// The value starting at `i`: quoted with `"`, `'` or `` ` `` (each possibly
/// backslash-escaped, as inside a JSON string), or bare up to [`ends_bare`].
/// A quoted value must close on the same line.
pub(super) fn value_at(text: &[u8], i: usize) -> Option<Value> {
    // A single-quoted value inside a single-quoted shell string
    // (`bash -lc 'X='\''value'\'' cmd'`, as Codex shows its commands).
    if let Some(v) = nested_single_quoted(text, i) {
        return Some(v);
    }
    let slashes = run(text, i, 8, |b| b == b'\\') - i;
    let q = *text.get(i + slashes)?;
    if matches!(q, b'"' | b'\'' | b'`') {
        let start = i + slashes + 1;
        let limit = text.len().min(start + MAX_VALUE);
        let mut j = start;
        while j < limit {
            let b = text[j];
            if b == b'\n' || b == b'\r' {
                return None;
            }
            if b == q {
                let before = backslashes_before(text, j);
                let closes = if slashes == 0 {
                    before.is_multiple_of(2)
                } else {
                    before >= 1
                };
                if closes {
                    let end = if slashes == 0 { j } else { j - before };
                    return Some(Value {
                        start,
                        end,
                        quoted: true,
                    });
                }
            }
            j += 1;
        }
        return None;
    }
    if slashes > 0 {
        return None;
    }
    let end = run(text, i, MAX_VALUE, |b| !ends_bare(b));
    Some(Value {
        start: i,
        end,
        quoted: false,
    })
}

/// The shell's quote inside a single-quoted string.
pub(super) const NESTED_QUOTE: &[u8] = b"'\\''";

/// A value quoted as `'\''value'\''` starting at `i`, closed on its line.
pub(super) fn nested_single_quoted(text: &[u8], i: usize) -> Option<Value> {
    if !text[i..].starts_with(NESTED_QUOTE) {
        return None;
    }
    let start = i + NESTED_QUOTE.len();
    let limit = line_end(text, start, MAX_VALUE);
    let end = start + find(&text[start..limit], NESTED_QUOTE)?;
    Some(Value {
        start,
        end,
        quoted: true,
    })
}

/// Whether `hay` contains `needle` (byte-wise).
pub(super) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// First position of `needle` in `hay`.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    // Values and lines are short: a plain scan for the first byte beats
    // building a searcher each time.
    if hay.len() < 256 {
        let (first, rest) = (needle[0], &needle[1..]);
        return memchr::memchr_iter(first, &hay[..=hay.len() - needle.len()])
            .find(|&i| hay[i + 1..].starts_with(rest));
    }
    memchr::memmem::find(hay, needle)
}

/// Whether `hay` contains `needle`, ignoring ASCII case (`needle` lowercase).
pub(super) fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    needle.len() <= hay.len()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(s: &str, i: usize) -> Option<&str> {
        value_at(s.as_bytes(), i).map(|v| &s[v.start..v.end])
    }

    #[test]
    fn nested_single_quotes_and_spacing() {
        let cmd = r"bash -lc 'X='\''p@ss w'\'' run'";
        let at = cmd.find('=').unwrap() + 1;
        assert_eq!(val(cmd, at), Some("p@ss w"));
        // Not closed on its line: not a nested value.
        assert!(nested_single_quoted(b"'\\''abc\nxyz'\\''", 0).is_none());
        let call = "f(a,\n    \"x\")";
        let after_comma = call.find(',').unwrap() + 1;
        assert_eq!(
            &call[skip_spacing(call.as_bytes(), after_comma)..],
            "\"x\")"
        );
        let escaped = r#"f(a,\n  "x")"#;
        let after_comma = escaped.find(',').unwrap() + 1;
        assert_eq!(
            &escaped[skip_spacing(escaped.as_bytes(), after_comma)..],
            "\"x\")"
        );
    }

    #[test]
    fn values_quoted_escaped_and_bare() {
        assert_eq!(val(r#""abc" x"#, 0), Some("abc"));
        assert_eq!(val(r#"'a"b' x"#, 0), Some("a\"b"));
        assert_eq!(val(r#""a\"b" x"#, 0), Some(r#"a\"b"#));
        assert_eq!(val(r#"\"abc\", x"#, 0), Some("abc"));
        assert_eq!(val(r#"\\\"abc\\\" x"#, 0), Some("abc"));
        assert_eq!(val("abc123\\nNEXT=1", 0), Some("abc123"));
        assert_eq!(val("abc;Port=1", 0), Some("abc"));
        assert_eq!(val("\"open\nline\"", 0), None);
        assert_eq!(val("getpass()", 0), Some("getpass"));
    }

    #[test]
    fn line_ends_at_escapes_and_string_ends() {
        let t = br#"curl -u a:b https://x\nnext"#;
        assert_eq!(line_end(t, 0, 100), 21);
        let t = br#"-H \"X: y\" z" tail"#;
        assert_eq!(line_end(t, 0, 100), 13);
    }

    #[test]
    fn substring_helpers() {
        assert!(contains(b"abcdef", b"cde"));
        assert!(!contains(b"ab", b"abc"));
        assert!(contains_ci(b"xxEXAMPLExx", b"example"));
        assert_eq!(find(b"a-----END", b"-----END"), Some(1));
    }
}
