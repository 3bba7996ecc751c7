//! Tokens recognised by a marker inside them rather than a leading prefix:
//! Telegram bot tokens (`<bot id>:AA…`), Firebase Cloud Messaging server
//! keys (`AAAA…:APA91b…`), Microsoft Entra (Azure AD) client
//! secrets (`…8Q~…`), Terraform Cloud tokens (`….atlasv1.…`), Salesforce
//! access tokens (`00D…!…`), Mailchimp keys (`…-us12`), Azure DevOps
//! tokens (`…AZDO…`), 1Password account Secret Keys (`A3-…`), Rancher
//! API tokens (`token-xxxxx:…`), password hashes in crypt(3) form
//! (`$6$salt$hash`, `$2y$10$…`, `$apr1$…`, `$argon2id$…`) and NTLM hashes
//! as `secretsdump` prints them (`user:rid:<lm>:<nt>:::`).

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

/// A Firebase Cloud Messaging legacy server key: `AAAA` and 7 base64url
/// characters, `:APA91b`, then 130 or more (a device's registration token
/// has the same tail after a random head, and is no secret).
pub(super) fn fcm_server_key(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b":APA91b") {
        return;
    }
    let start = run_back(text, hit, 12, word);
    if hit - start != 11 || !text[start..].starts_with(b"AAAA") {
        return;
    }
    let end = run(text, hit + 1, 200, word);
    let tail = end - (hit + 1);
    if tail >= 136 {
        push(out, text, "fcm_server_key", start, end);
    }
}

/// A k3s join token: `K10`, the CA's 64-hex hash, `::server:` or
/// `::node:` (keyword at `hit..hit_end`), then the 32-hex password.
pub(super) fn k3s_token(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    // (`K10`'s own digits are hex too: the hash is the 64 digits before.)
    let Some(hash) = hit.checked_sub(64).filter(|&h| h >= 3) else {
        return;
    };
    if !text[hash..hit].iter().all(u8::is_ascii_hexdigit)
        || !text[hash - 3..hash].eq_ignore_ascii_case(b"K10")
    {
        return;
    }
    let start = hash - 3;
    let end = run(text, hit_end, 64, alnum);
    if end - hit_end >= 16 && (start == 0 || !word(text[start - 1])) {
        push(out, text, "k3s_token", start, end);
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

/// A Salesforce access token: the 15-character org id (`00D…`), `!`, then
/// 80 or more characters of `[A-Za-z0-9._]`.
pub(super) fn salesforce(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"00D") || (hit > 0 && alnum(text[hit - 1])) {
        return;
    }
    let org_end = run(text, hit, 18, alnum);
    if !(15..=18).contains(&(org_end - hit)) || text.get(org_end) != Some(&b'!') {
        return;
    }
    let end = run(text, org_end + 1, 256, |b| {
        alnum(b) || b == b'.' || b == b'_'
    });
    if end - org_end > 80 {
        push(out, text, "salesforce_token", hit, end);
    }
}

/// A Mailchimp API key: 32 hex digits, `-us`, the data centre's number.
pub(super) fn mailchimp(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let start = run_back(text, hit, 33, |b| {
        b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
    });
    if hit - start != 32 || (start > 0 && word(text[start - 1])) {
        return;
    }
    let end = run(text, hit + 3, 3, |b| b.is_ascii_digit());
    if (1..=2).contains(&(end - hit - 3)) && !text.get(end).is_some_and(|&b| alnum(b)) {
        push(out, text, "mailchimp_api_key", start, end);
    }
}

/// A New Relic license (ingest) key: 36 hex digits, then `NRAL`.
pub(super) fn new_relic_license(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"NRAL") {
        return;
    }
    let start = run_back(text, hit, 37, |b| b.is_ascii_hexdigit());
    let end = hit + 4;
    if hit - start == 36
        && (start == 0 || !word(text[start - 1]))
        && !text.get(end).is_some_and(|&b| word(b))
    {
        push(out, text, "new_relic_license_key", start, end);
    }
}

/// An Azure DevOps personal access token (2024 format): 76 characters,
/// `AZDO`, 4 more.
pub(super) fn azure_devops(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"AZDO") {
        return;
    }
    let start = run_back(text, hit, 77, alnum);
    let end = run(text, hit + 4, 5, alnum);
    if hit - start == 76
        && end - hit - 4 == 4
        && (start == 0 || !word(text[start - 1]))
        && !text.get(end).is_some_and(|&b| word(b))
    {
        push(out, text, "azure_devops_pat", start, end);
    }
}

/// A 1Password account Secret Key: `A3-`, then groups of 6, 6, 5, 5, 5 and 5
/// upper-case letters and digits, separated by dashes.
pub(super) fn onepassword_secret_key(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"A3-") || (hit > 0 && word(text[hit - 1])) {
        return;
    }
    let upper_digit = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit();
    let mut end = hit + 2;
    for len in [6, 6, 5, 5, 5, 5] {
        if text.get(end) != Some(&b'-') {
            return;
        }
        let group_end = run(text, end + 1, len + 1, upper_digit);
        if group_end - end - 1 != len {
            return;
        }
        end = group_end;
    }
    if !text.get(end).is_some_and(|&b| word(b) || b == b'-') {
        push(out, text, "onepassword_secret_key", hit, end);
    }
}

/// A Rancher API token: `token-`, a 5-character key id, `:`, then 54 lower-case
/// letters and digits. It goes whole: clients send both halves together as
/// one bearer token.
pub(super) fn rancher_token(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let lower_digit = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if hit > 0 && (word(text[hit - 1]) || text[hit - 1] == b'-') {
        return;
    }
    let id_end = run(text, hit_end, 6, lower_digit);
    if id_end - hit_end != 5 || text.get(id_end) != Some(&b':') {
        return;
    }
    let end = run(text, id_end + 1, 80, lower_digit);
    if end - id_end - 1 == 54 && !text.get(end).is_some_and(|&b| word(b)) {
        push(out, text, "rancher_token", hit, end);
    }
}

fn crypt_byte(b: u8) -> bool {
    alnum(b) || matches!(b, b'.' | b'/' | b'$' | b'=' | b',' | b'+')
}

/// A password hash in crypt(3)'s modular form, from its `$id$` (at `hit`):
/// `$id$[params$]salt$hash` as `/etc/shadow`, `.htpasswd` and password
/// columns hold it. Crackable offline, so it goes whole. The last field
/// must be a real digest (20 characters or more), so `$1$2` in a script
/// is left alone.
pub(super) fn crypt_hash(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if hit > 0 && (word(text[hit - 1]) || text[hit - 1] == b'$') {
        return;
    }
    let end = run(text, hit_end, 400, crypt_byte);
    let body = &text[hit_end..end];
    let last = body.rsplit(|&b| b == b'$').next().unwrap_or_default();
    // (Not through `push`: a hash starts like a shell variable, `$6`.)
    if last.len() >= 20 && body.iter().any(u8::is_ascii_digit) {
        out.push(Finding {
            rule: "password_hash",
            start: hit,
            end,
        });
    }
}

/// An NT hash as `secretsdump` and `pwdump` print it, ending at `:::`
/// (`hit`): `user:rid:<32 hex LM>:<32 hex NT>:::`. Both hashes go (the
/// LM one is often the well-known empty hash, which costs nothing).
pub(super) fn ntlm_hashes(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let hex = |from: usize| text[from..from + 32].iter().all(u8::is_ascii_hexdigit);
    let Some(lm) = hit.checked_sub(65).filter(|&lm| lm > 0) else {
        return;
    };
    if text[lm - 1] == b':' && text[lm + 32] == b':' && hex(lm) && hex(lm + 33) {
        push(out, text, "ntlm_hash", lm, hit);
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
    fn fcm_server_keys_but_not_registration_tokens() {
        let tail = "HkQ2LmN9pQrStUvWxYz0aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567_-abcdEFGHijklMNOPqrstUVWXyz0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV";
        let key = format!("AAAAq7Bx3Kd:APA91b{tail}");
        let t = format!("$ cat server-key\n{key}\n");
        let mut out = Vec::new();
        fcm_server_key(t.as_bytes(), t.find(":APA").unwrap(), &mut out);
        assert_eq!(&t[out[0].start..out[0].end], key);
        // A device's registration token: the same tail after a random head.
        out.clear();
        let t = format!("\"to\": \"dK3x9Lq2Wv8:APA91b{tail}\"");
        fcm_server_key(t.as_bytes(), t.find(":APA").unwrap(), &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn salesforce_mailchimp_azure_devops() {
        let body =
            "AQ4AQHk2mN8pR7sT1wY6uZ9aB0cD5eF8gH2iJ4kL0qW3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5nM7q.w";
        let t = format!("Authorization: OAuth 00D5g000004XyZa!{body} x");
        let mut out = Vec::new();
        salesforce(t.as_bytes(), t.find("00D").unwrap(), &mut out);
        assert_eq!(
            &t[out[0].start..out[0].end],
            format!("00D5g000004XyZa!{body}")
        );
        out.clear();
        let t = "apikey=0123456789abcdef0123456789abcdef-us12 ok";
        mailchimp(t.as_bytes(), t.find("-us").unwrap(), &mut out);
        assert_eq!(
            &t[out[0].start..out[0].end],
            "0123456789abcdef0123456789abcdef-us12"
        );
        out.clear();
        let t = "lang=en-us12";
        mailchimp(t.as_bytes(), t.find("-us").unwrap(), &mut out);
        assert!(out.is_empty());
        let head = "k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lk2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lk2LmQ9xZ3pR7";
        let t = format!("pat: {head}AZDOab12");
        azure_devops(t.as_bytes(), t.find("AZDO").unwrap(), &mut out);
        assert_eq!(out.len(), 1, "{}", head.len());
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
    #[test]
    fn onepassword_secret_keys_and_rancher_tokens() {
        let key = "A3-4K03VX-9JL9HO-XSRAY-02LND-AVOPV-3ZJ6E";
        let t = format!("Secret Key {key} — can you script it?");
        let mut out = Vec::new();
        onepassword_secret_key(t.as_bytes(), t.find("A3-").unwrap(), &mut out);
        assert_eq!(&t[out[0].start..out[0].end], key);
        // A group too short, or a longer dashed id, is something else.
        out.clear();
        for t in [
            "A3-4K03VX-9JL9HO-XSRAY-02LND-AVOPV-3ZJ6",
            "A3-4K03VX-9JL9HO-XSRAY-02LND-AVOPV-3ZJ6E-XX",
            "part A3-LARGE-KIT",
        ] {
            onepassword_secret_key(t.as_bytes(), t.find("A3-").unwrap(), &mut out);
        }
        assert!(out.is_empty());
        let secret = "tinf54n4dp9152z0ozoge4kan8pz52hoenqdm8vzpog34b4n2l0y0v";
        let t = format!("$ rancher login https://r.example -t token-8z6yu:{secret} --context c");
        let hit = t.find("token-").unwrap();
        rancher_token(t.as_bytes(), hit, hit + 6, &mut out);
        assert_eq!(
            &t[out[0].start..out[0].end],
            format!("token-8z6yu:{secret}")
        );
        out.clear();
        let t = "refresh-token-8z6yu:abc and token-ab:cd";
        for hit in t.match_indices("token-").map(|(i, _)| i) {
            rancher_token(t.as_bytes(), hit, hit + 6, &mut out);
        }
        assert!(out.is_empty());
    }

    #[test]
    fn crypt_and_ntlm_hashes() {
        let find = |t: &str, kw: &str| {
            let mut out = Vec::new();
            let hit = t.find(kw).unwrap();
            crypt_hash(t.as_bytes(), hit, hit + kw.len(), &mut out);
            out.first().map(|f| t[f.start..f.end].to_string())
        };
        let bcrypt = "$2y$10$IqlUl7/w6iGvZ6SbgSUObacWYZfx065ANxCCbuhIzy.BJOFQXRcB0";
        assert_eq!(
            find(&format!("ops:{bcrypt}\n"), "$2y$").as_deref(),
            Some(bcrypt)
        );
        let sha512 = "$6$75KsjsE.HAtUJ/vX$207yNs2OFAO0uSG6mxIBY1h.nmJ14NTA985NSb/3p5YHq9pLBejdqvx4TOp92BuoAuNh";
        assert_eq!(
            find(&format!("deploy:{sha512}:19800:0:99999:7:::"), "$6$").as_deref(),
            Some(sha512)
        );
        assert_eq!(find("echo $1$2 done", "$1$"), None);
        assert_eq!(find("cost is $5$ per seat", "$5$"), None);
        let t = "Administrator:500:aad3b435b51404eeaad3b435b51404ee:1069243ba7bbd2fa94f389d9c14f0c65:::";
        let mut out = Vec::new();
        ntlm_hashes(t.as_bytes(), t.find(":::").unwrap(), &mut out);
        assert_eq!(&t[out[0].start..out[0].end], &t[18..83]);
        let mut none = Vec::new();
        let ipv6 = "tcp6  0  0 :::8080  :::*  LISTEN";
        ntlm_hashes(ipv6.as_bytes(), ipv6.find(":::").unwrap(), &mut none);
        assert!(none.is_empty());
    }
}
