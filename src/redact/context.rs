//! Secrets recognised by what is near them: the AWS secret access key next to
//! an access key id, the Twilio auth token next to an account SID, a Discord
//! bot token near the word "discord".

use super::Finding;
use super::entropy::{Shape, looks_random};
use super::lex::{alnum, b64, ends_word, run, starts_word, word};
use super::placeholders::is_harmless;

/// How far from its anchor a companion secret is looked for.
const WINDOW: usize = 300;

/// Calls `f(start, end)` for every maximal run of `class` bytes that lies in
/// `from..to` (runs crossing the window edge are measured in full).
fn runs(
    text: &[u8],
    from: usize,
    to: usize,
    class: impl Fn(u8) -> bool,
    mut f: impl FnMut(usize, usize),
) {
    let mut i = from;
    if i > 0 && class(text[i - 1]) {
        i = run(text, i, to - i, &class);
    }
    while i < to {
        if class(text[i]) {
            let end = run(text, i, usize::MAX, &class);
            f(i, end);
            i = end;
        } else {
            i += 1;
        }
    }
}

/// After an AWS access key id at `key_start..key_end`: a 40-character base64
/// run nearby (CSV exports, `aws configure` transcripts, prose).
pub(super) fn aws_secret_near(
    text: &[u8],
    key_start: usize,
    key_end: usize,
    out: &mut Vec<Finding>,
) {
    let from = key_start.saturating_sub(WINDOW);
    let to = text.len().min(key_end + WINDOW);
    let class = |b: u8| b64(b) || b == b'=';
    runs(text, from, to, class, |s, e| {
        let v = &text[s..e];
        let shape = Shape::of(v);
        if e - s == 40 && shape.upper > 0 && shape.lower > 0 && looks_random(v) && !is_harmless(v) {
            out.push(Finding {
                rule: "aws_secret_access_key",
                start: s,
                end: e,
            });
        }
    });
}

/// `AC` + 32 hex (a Twilio account SID, not itself secret) followed by
/// `:<auth token>` or with a 32-character token shortly after.
pub(super) fn twilio(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"AC") || !starts_word(text, hit) {
        return;
    }
    let sid_end = run(text, hit + 2, 33, |b| {
        b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
    });
    if sid_end - hit != 34 || !ends_word(text, sid_end) {
        return;
    }
    let to = text.len().min(sid_end + WINDOW);
    let mut found = None;
    runs(text, sid_end, to, alnum, |s, e| {
        if found.is_none() && e - s == 32 && looks_random(&text[s..e]) && !is_harmless(&text[s..e])
        {
            found = Some((s, e));
        }
    });
    if let Some((start, end)) = found {
        out.push(Finding {
            rule: "twilio_auth_token",
            start,
            end,
        });
    }
}

/// A Discord bot token (`<base64 user id>.<6>.<27+>`) within a few lines
/// after the word "discord".
pub(super) fn discord_bot_token(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 2 * WINDOW);
    let class = |b: u8| word(b) || b == b'.';
    runs(text, hit_end, to, class, |s, e| {
        let v = &text[s..e];
        let mut parts = v.split(|&b| b == b'.');
        let (Some(a), Some(b), Some(c), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return;
        };
        let shaped = matches!(a.first(), Some(b'M' | b'N' | b'O'))
            && (23..=28).contains(&a.len())
            && (6..=7).contains(&b.len())
            && (27..=40).contains(&c.len());
        if shaped && looks_random(c) && !is_harmless(v) {
            out.push(Finding {
                rule: "discord_bot_token",
                start: s,
                end: e,
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L/2LmQ+9x";

    #[test]
    fn aws_secret_next_to_key_id() {
        let t = format!("User,AKIA2B3C4D5E6F7G8H9J,{SECRET}\n");
        let mut out = Vec::new();
        aws_secret_near(t.as_bytes(), 5, 25, &mut out);
        assert_eq!(&t[out[0].start..out[0].end], SECRET);
        out.clear();
        let sha = "AKIA2B3C4D5E6F7G8H9J commit 0123456789abcdef0123456789abcdef01234567";
        aws_secret_near(sha.as_bytes(), 0, 20, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn twilio_pairs() {
        let sid = "AC0123456789abcdef0123456789abcdef";
        let t = format!("curl -u {sid}:k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L x");
        let mut out = Vec::new();
        twilio(t.as_bytes(), 8, &mut out);
        assert_eq!(
            &t[out[0].start..out[0].end],
            "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L"
        );
        out.clear();
        twilio(
            format!("/Accounts/{sid}/Messages.json").as_bytes(),
            10,
            &mut out,
        );
        assert!(out.is_empty());
    }

    #[test]
    fn discord_near_keyword() {
        let tok = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gx7kQ2.k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lx";
        let t = format!("import discord\nclient.run(\"{tok}\")");
        let mut out = Vec::new();
        discord_bot_token(t.as_bytes(), 14, &mut out);
        assert_eq!(&t[out[0].start..out[0].end], tok);
    }
}
