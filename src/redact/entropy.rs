//! The shape gate: does a value look machine-generated (a key, a token, a
//! password) or like a word, an identifier, a number, a version or a path?

/// Counts of character kinds in a value.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Shape {
    /// `a-z`.
    pub lower: usize,
    /// `A-Z`.
    pub upper: usize,
    /// `0-9`.
    pub digit: usize,
    /// Anything else.
    pub other: usize,
}

impl Shape {
    /// Measures `v`.
    pub fn of(v: &[u8]) -> Shape {
        let mut s = Shape::default();
        for &b in v {
            match b {
                b'a'..=b'z' => s.lower += 1,
                b'A'..=b'Z' => s.upper += 1,
                b'0'..=b'9' => s.digit += 1,
                _ => s.other += 1,
            }
        }
        s
    }

    fn letters(&self) -> usize {
        self.lower + self.upper
    }
}

/// Shannon entropy in bits per byte.
pub(super) fn shannon(v: &[u8]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in v {
        counts[b as usize] += 1;
    }
    let n = v.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Only hexadecimal digits.
pub(super) fn is_hex(v: &[u8]) -> bool {
    !v.is_empty() && v.iter().all(u8::is_ascii_hexdigit)
}

/// `8-4-4-4-12` hexadecimal digits.
pub(super) fn is_uuid(v: &[u8]) -> bool {
    v.len() == 36
        && v.iter().enumerate().all(|(i, &b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Words joined by separators: `learn-compatible-interface`, `my_token_v2`,
/// `1.2.3`, `/usr/local/bin`, `value%27with%27quotes`. Every part (between
/// non-alphanumerics and upper-case `%XX` escapes) is a plain word (one
/// case, or capitalised), a number, or at most three characters.
pub(super) fn is_phrase(v: &[u8]) -> bool {
    let mut parts = 0;
    let mut mixed_pieces = 0;
    let mut i = 0;
    while i < v.len() {
        if !v[i].is_ascii_alphanumeric() {
            let escape = v[i] == b'%'
                && v.len() > i + 2
                && v[i + 1..i + 3]
                    .iter()
                    .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b));
            i += if escape { 3 } else { 1 };
            continue;
        }
        let end = v[i..]
            .iter()
            .position(|b| !b.is_ascii_alphanumeric())
            .map_or(v.len(), |p| i + p);
        let part = &v[i..end];
        i = end;
        parts += 1;
        let s = Shape::of(part);
        let plain_word = s.digit == 0
            && (s.upper == 0 || s.lower == 0 || (s.upper == 1 && part[0].is_ascii_uppercase()));
        let number = s.digit == part.len();
        if !(plain_word || number || part.len() <= 3) {
            return false;
        }
        // `k2`, `4w`, `t3b`: letters and digits mixed in a short piece are
        // what a generated password's punctuation cuts it into, not words.
        if !(plain_word || number) {
            mixed_pieces += 1;
        }
    }
    parts >= 2 && mixed_pieces < 3
}

/// Starts like an ISO date: `2025-03-04…`, `1979-05-27T00:32:00`.
fn is_date(v: &[u8]) -> bool {
    v.len() >= 10
        && v[..4].iter().all(u8::is_ascii_digit)
        && v[4] == b'-'
        && v[5..7].iter().all(u8::is_ascii_digit)
        && v[7] == b'-'
        && v[8..10].iter().all(u8::is_ascii_digit)
}

/// A file-system path: starts like one, has no base64 padding or `+`, and no
/// long random-looking segment.
pub(super) fn is_path(v: &[u8]) -> bool {
    let rooted = v.starts_with(b"/")
        || v.starts_with(b"~/")
        || v.starts_with(b"./")
        || v.starts_with(b"../")
        || (v.len() > 2 && v[0].is_ascii_alphabetic() && v[1] == b':' && v[2] == b'\\');
    if !rooted || v.contains(&b'+') || v.contains(&b'=') {
        return false;
    }
    let longest = v
        .split(|b| !b.is_ascii_alphanumeric())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    longest < 16
}

/// Looks like a generated secret (API key, token, signing key): long enough,
/// not a phrase, a number, a version or a path, and diverse enough.
pub(super) fn looks_random(v: &[u8]) -> bool {
    let n = v.len();
    if !(8..=8192).contains(&n) || v.iter().any(|b| b.is_ascii_whitespace()) {
        return false;
    }
    if is_uuid(v) {
        return true;
    }
    if is_hex(v) {
        return n >= 16 && shannon(v) >= 2.5;
    }
    let s = Shape::of(v);
    if s.letters() == 0 || is_phrase(v) || is_path(v) || is_date(v) {
        return false;
    }
    let h = shannon(v);
    if s.digit == 0 {
        // No digits: random letters use both cases often (camelCase has one
        // capital per word), or are single-case with symbols (base64).
        let l = s.letters();
        let mixed = s.upper * 5 >= l && s.lower * 5 >= l;
        return n >= 16 && h >= 3.5 && (mixed || (s.other > 0 && (s.upper == 0 || s.lower == 0)));
    }
    h >= if n >= 16 { 3.0 } else { 2.5 }
}

/// Plausible as a password someone typed: five characters or more, no
/// whitespace, not a path or a URL, not a bare number shorter than six digits.
pub(super) fn looks_like_password(v: &[u8]) -> bool {
    let n = v.len();
    if !(5..=512).contains(&n) || v.iter().any(|b| b.is_ascii_whitespace()) {
        return false;
    }
    if is_path(v) || super::lex::contains(v, b"://") {
        return false;
    }
    let s = Shape::of(v);
    if s.digit == n {
        return n >= 6;
    }
    s.letters() + s.digit > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_values() {
        for v in [
            "a8Fk2LmQ9xZ3pR7t",
            "hunter2hunter2",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9k2k",
            "0f3a9c7e5b1d2f4a6c8e0b2d4f6a8c0e",
            "9b2e7c1a-3f4d-4e5b-8c6d-7e8f9a0b1c2d",
            "QmXkTRbwZPAdnVhyeLGsuCJf",
            "IcyztQMBMehgYtogRQPGDrqizdCTimbZfm",
            "abz12345",
        ] {
            assert!(looks_random(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn not_random_values() {
        for v in [
            "learn-compatible-interface",
            "my_token_v2",
            "getAccessTokenForUser",
            "1.2.3-beta.4",
            "2025-01-02T10:00:00Z",
            "1979-05-27T00:32:00.999999",
            "/home/dev/.ssh/id_ed25519",
            "12345678901234",
            "0000000000000000",
            "short1",
            "Bearer token",
            "MyApplicationSecretName",
            "core.logAllRefUpdates",
            "abcdefghijklmnopqrstuvwxyz",
        ] {
            assert!(!looks_random(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn phrases_and_paths() {
        assert!(is_phrase(b"prod-db-2024"));
        assert!(is_phrase(b"Rails.application"));
        assert!(!is_phrase(b"a8Fk2-LmQ9x"));
        assert!(!is_phrase(b"single"));
        assert!(is_phrase(b"value%27with%27quotes"));
        assert!(is_phrase(b"value-with-'quotes'"));
        assert!(is_phrase(b"v1.2.3-rc1"));
        assert!(!is_phrase(b"7x&k2)q%m9(z!p@4w#v8=n^r*t3b"));
        assert!(is_path(b"/etc/secrets/token"));
        assert!(is_path(b"~/.config/app/credentials.json"));
        assert!(!is_path(b"/a8Fk2LmQ9xZ3pR7tW1vB+c"));
        assert!(!is_path(b"relative/path"));
    }

    #[test]
    fn passwords() {
        assert!(looks_like_password(b"hunter2"));
        assert!(looks_like_password(b"S3cr3t!x"));
        assert!(looks_like_password(b"123456"));
        assert!(!looks_like_password(b"12345"));
        assert!(!looks_like_password(b"pw"));
        assert!(!looks_like_password(b"/home/me"));
        assert!(!looks_like_password(b"https://example.com"));
        assert!(!looks_like_password(b"----"));
    }

    #[test]
    fn uuid_and_hex() {
        assert!(is_uuid(b"123e4567-e89b-12d3-a456-426614174000"));
        assert!(!is_uuid(b"123e4567e89b12d3a456426614174000"));
        assert!(is_hex(b"deadBEEF"));
        assert!(shannon(b"aaaa") < 0.01);
        assert!((shannon(b"abcd") - 2.0).abs() < 1e-9);
    }
}
