//! Tokens recognised by a marker inside them rather than a leading prefix:
//! Telegram bot tokens (`<bot id>:AA…`), Microsoft Entra (Azure AD) client
//! secrets (`…8Q~…`) and Terraform Cloud tokens (`….atlasv1.…`).

use super::Finding;
use super::lex::{alnum, run, run_back, word};
use super::placeholders::is_harmless;

fn push(out: &mut Vec<Finding>, text: &[u8], rule: &'static str, start: usize, end: usize) {
    if !is_harmless(&text[start..end]) {
        out.push(Finding { rule, start, end });
    }
}

/// `123456789:AA` + 33 base64url characters; the bot id may follow `/bot`.
pub(super) fn telegram(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b":AA") {
        return;
    }
    let digits = run_back(text, hit, 12, |b| b.is_ascii_digit());
    if !(8..=10).contains(&(hit - digits)) {
        return;
    }
    let bounded = digits == 0 || !alnum(text[digits - 1]) || text[..digits].ends_with(b"bot");
    let end = run(text, hit + 1, 64, word);
    if bounded && end - hit - 1 == 35 {
        push(out, text, "telegram_bot_token", digits, end);
    }
}

fn entra_byte(b: u8) -> bool {
    word(b) || b == b'~' || b == b'.'
}

/// Entra ID client secret: 3 characters, a digit, `Q~`, then 31–34 more.
pub(super) fn azure_client_secret(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"Q~") || hit < 4 || !text[hit - 1].is_ascii_digit() {
        return;
    }
    let start = hit - 4;
    if !text[start..hit - 1].iter().all(|&b| entra_byte(b))
        || (start > 0 && entra_byte(text[start - 1]))
    {
        return;
    }
    let end = run(text, hit + 2, 40, entra_byte);
    if (31..=34).contains(&(end - hit - 2)) && !text.get(end).is_some_and(|&b| entra_byte(b)) {
        push(out, text, "azure_client_secret", start, end);
    }
}

/// Terraform Cloud / Enterprise: 14 alphanumerics, `.atlasv1.`, 60–70 more.
pub(super) fn terraform(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let start = run_back(text, hit, 15, alnum);
    if hit - start != 14 || (start > 0 && word(text[start - 1])) {
        return;
    }
    let end = run(text, hit_end, 80, |b| word(b) || b == b'=');
    if (60..=70).contains(&(end - hit_end)) {
        push(out, text, "terraform_token", start, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn telegram_tokens() {
        let body = "AAHk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L";
        let t = format!("TELEGRAM=123456789:{body} x");
        let mut out = Vec::new();
        telegram(t.as_bytes(), t.find(":AA").unwrap(), &mut out);
        assert_eq!(&t[out[0].start..out[0].end], format!("123456789:{body}"));
        let url = format!("https://api.telegram.org/bot123456789:{body}/getMe");
        out.clear();
        telegram(url.as_bytes(), url.find(":AA").unwrap(), &mut out);
        assert_eq!(out.len(), 1);
        out.clear();
        let short = "12:AAHk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L";
        telegram(short.as_bytes(), 2, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn entra_and_terraform() {
        let s = "secret: Ab18Q~k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8";
        let mut out = Vec::new();
        azure_client_secret(s.as_bytes(), s.find("Q~").unwrap(), &mut out);
        assert_eq!(
            &s[out[0].start..out[0].end],
            "Ab18Q~k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8"
        );
        out.clear();
        let body = "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8L";
        let t = format!("token = \"Ab1Cd2Ef3Gh4Ij.atlasv1.{body}\"");
        let hit = t.find(".atlasv1.").unwrap();
        terraform(t.as_bytes(), hit, hit + 9, &mut out);
        assert_eq!(out.len(), 1);
    }
}
