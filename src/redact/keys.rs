//! Key material with structure: PEM / OpenSSH / PGP private-key blocks (also
//! with their newlines escaped inside JSON strings, also truncated), such
//! blocks base64-encoded again (kubeconfig `client-key-data`), JWTs, and
//! wallets' keys: Bitcoin's wallet import format, a Solana keypair file.

use super::Finding;
use super::codec::b64_decode_prefix;
use super::lex::{b64, backslashes_before, contains, find, run, skip_blanks, skip_break, word};
use super::placeholders::is_harmless;

/// Longest private-key block searched for its END line.
const MAX_BLOCK: usize = 64 * 1024;

/// Moves `end` back over line breaks and blanks (real or escaped).
fn trim_breaks(text: &[u8], start: usize, mut end: usize) -> usize {
    while end > start {
        match text[end - 1] {
            b'\r' | b'\n' | b' ' | b'\t' => end -= 1,
            b'n' | b'r' if end - 1 > start && backslashes_before(text, end - 1) > 0 => {
                end = (end - 1 - backslashes_before(text, end - 1)).max(start);
            }
            _ => break,
        }
    }
    end
}

/// End of the next line (real or escaped break) starting at `i`.
fn next_line_end(text: &[u8], i: usize, limit: usize) -> usize {
    let mut j = i;
    while j < limit {
        match text[j] {
            b'\r' | b'\n' => return j,
            b'\\' if matches!(text.get(j + 1), Some(b'n' | b'r' | b'\\')) => return j,
            _ => j += 1,
        }
    }
    limit
}

/// End of a block whose END line is missing (output cut short): the run of
/// (possibly indented) base64 lines, after at most a few `Header: value` lines.
fn truncated_end(text: &[u8], start: usize) -> usize {
    let limit = text.len().min(start + MAX_BLOCK);
    let mut i = start;
    let mut end = start;
    let mut lines = 0;
    while i < limit {
        let e = next_line_end(text, i, limit);
        let indent = run(text, i, e - i, |b| b == b' ' || b == b'\t');
        let line = &text[indent..e];
        let base64_line = !line.is_empty() && line.iter().all(|&b| b64(b) || b == b'=');
        let header = lines < 4 && end == start && line.contains(&b':');
        if base64_line {
            end = e;
        } else if !(header || line.is_empty()) {
            break;
        }
        lines += 1;
        let next = skip_break(text, e);
        if next == e {
            break;
        }
        i = next;
    }
    end
}

/// `-----BEGIN … PRIVATE KEY-----`: the body goes, the BEGIN and END lines stay.
pub(super) fn pem(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"-----BEGIN ") {
        return;
    }
    let label_start = hit + 11;
    let window = &text[label_start..text.len().min(label_start + 64)];
    let Some(close) = find(window, b"-----") else {
        return;
    };
    let label = &window[..close];
    // OpenVPN's `tls-auth` / `tls-crypt` key is a shared secret.
    if !(label.ends_with(b"PRIVATE KEY")
        || label.ends_with(b"PRIVATE KEY BLOCK")
        || label.eq_ignore_ascii_case(b"OpenVPN Static key V1"))
    {
        return;
    }
    let start = skip_break(text, label_start + close + 5);
    let limit = text.len().min(start + MAX_BLOCK);
    let end = match find(&text[start..limit], b"-----END ") {
        Some(e) => trim_breaks(text, start, start + e),
        None => truncated_end(text, start),
    };
    let body = &text[start..end];
    let longest_b64 = body.split(|&b| !b64(b)).map(<[u8]>::len).max().unwrap_or(0);
    if longest_b64 >= 16 {
        out.push(Finding {
            rule: "private_key",
            start,
            end,
        });
    }
}

/// A private-key block encoded in base64 once more (`LS0tLS1CRUdJTi…` is
/// `-----BEGIN`), as in kubeconfig's `client-key-data`.
pub(super) fn pem_base64(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"LS0tLS1CRUdJTi") || (hit > 0 && b64(text[hit - 1])) {
        return;
    }
    let core = run(text, hit, 1 << 20, b64);
    let end = run(text, core, 2, |b| b == b'=');
    let Some(head) = b64_decode_prefix(&text[hit..end], 64) else {
        return;
    };
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    if contains(first_line, b"PRIVATE KEY") {
        out.push(Finding {
            rule: "private_key",
            start: hit,
            end,
        });
    }
}

/// A JWT (or JWE): `eyJ…` base64url parts joined by dots whose header
/// decodes to JSON with an `"alg"`.
pub(super) fn jwt(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !text[hit..].starts_with(b"eyJ")
        || (hit > 0 && (word(text[hit - 1]) || text[hit - 1] == b'.'))
    {
        return;
    }
    // Supabase's anon key is a JWT made to ship in the browser
    // (`NEXT_PUBLIC_SUPABASE_ANON_KEY=eyJ…`).
    let before = &text[hit.saturating_sub(48)..hit];
    if super::lex::contains_ci(before, b"anon_key") || super::lex::contains_ci(before, b"anonkey") {
        return;
    }
    // A Docker config in base64 (`{"auths": …}`), as a `.dockerconfigjson`.
    let b64_end = run(text, hit, 1 << 16, |b| b64(b) || b == b'=');
    if let Some(head) = b64_decode_prefix(&text[hit..b64_end], 16)
        && head.starts_with(b"{\"auths\"")
    {
        out.push(Finding {
            rule: "docker_config",
            start: hit,
            end: b64_end,
        });
        return;
    }
    let header_end = run(text, hit, 4096, word);
    if header_end - hit < 10 || text.get(header_end) != Some(&b'.') {
        return;
    }
    let payload_end = run(text, header_end + 1, 1 << 16, word);
    if payload_end - header_end - 1 < 2 || text.get(payload_end) != Some(&b'.') {
        return;
    }
    // The signature may be empty (`alg: none`); a JWE has two more parts.
    let mut end = run(text, payload_end + 1, 1 << 16, word);
    for _ in 0..2 {
        let next = run(text, end + 1, 1 << 16, word);
        if text.get(end) == Some(&b'.') && next > end + 1 {
            end = next;
        } else {
            break;
        }
    }
    let Some(header) = b64_decode_prefix(&text[hit..header_end], 512) else {
        return;
    };
    if header.first() != Some(&b'{') || !contains(&header, b"\"alg\"") {
        return;
    }
    if !is_harmless(&text[hit..end]) {
        out.push(Finding {
            rule: "jwt",
            start: hit,
            end,
        });
    }
}

/// The private members of a JSON Web Key (`"kty"` at `hit`): `d` of an EC
/// or OKP key, `d p q dp dq qi` of an RSA key, `k` of a symmetric one. The
/// key's other members (`x`, `y`, `n`, `e`, `kid`) are public.
pub(super) fn jwk(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    const PRIVATE: &[&[u8]] = &[b"d", b"p", b"q", b"dp", b"dq", b"qi", b"k"];
    // The object holding `kty`, as far as a few kilobytes each way.
    let from = hit.saturating_sub(4096);
    let to = text.len().min(hit + 8192);
    let mut i = from;
    // A name read at the window's end may run past it: the loop stops there.
    while let Some(q) = text
        .get(i..to)
        .and_then(|w| w.iter().position(|&b| b == b'"'))
    {
        let name = i + q + 1;
        let name_end = run(text, name, 3, |b| b.is_ascii_lowercase());
        i = name_end.max(name);
        let closed = matches!(text.get(name_end), Some(b'"' | b'\\'));
        if !closed || !PRIVATE.contains(&&text[name..name_end]) {
            continue;
        }
        // `"d": "…"`, `\"d\": \"…\"`: quotes, escapes, a colon, blanks.
        let value = run(text, name_end, 12, |b| {
            matches!(b, b'"' | b'\\' | b':' | b' ')
        });
        if !text[name_end..value].contains(&b':') {
            continue;
        }
        let end = run(text, value, 1024, |b| {
            b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
        });
        if end - value >= 16 && !is_harmless(&text[value..end]) {
            out.push(Finding {
                rule: "private_key",
                start: value,
                end,
            });
        }
        i = end;
    }
}

/// How far from a word naming a wallet key the key is looked for.
const WALLET_WINDOW: usize = 2048;

/// Bitcoin's base58 alphabet (no `0`, `O`, `I`, `l`).
fn base58(b: u8) -> bool {
    b.is_ascii_alphanumeric() && !matches!(b, b'0' | b'O' | b'I' | b'l')
}

/// A Bitcoin private key in wallet import format after a word naming it
/// (`WIF:`, `importprivkey`, `dumpprivkey`), keyword at `hit..hit_end`: 51
/// base58 characters from `5H`, `5J` or `5K` (uncompressed), 52 from `K`
/// or `L` (compressed).
pub(super) fn wif_near(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if !super::lex::starts_word(text, hit) || !super::lex::ends_word(text, hit_end) {
        return;
    }
    let to = text.len().min(hit_end + 256);
    let mut i = hit_end;
    while i < to {
        if !base58(text[i]) || (i > 0 && text[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let end = run(text, i, 64, base58);
        let v = &text[i..end];
        let wif = (v.len() == 52 && matches!(v[0], b'K' | b'L'))
            || (v.len() == 51 && v[0] == b'5' && matches!(v[1], b'H' | b'J' | b'K'));
        if wif && !text.get(end).is_some_and(u8::is_ascii_alphanumeric) {
            out.push(Finding {
                rule: "wallet_key",
                start: i,
                end,
            });
            return;
        }
        i = end.max(i + 1);
    }
}

/// A Solana keypair file's 64 bytes as a JSON array (`[12,250,…]`, the
/// numbers go, the brackets stay) or in base58, before or after a word
/// naming it (`solana`, `keypair`, `id.json`, `phantom`) at `hit`.
pub(super) fn byte_array_key_near(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let from = hit.saturating_sub(WALLET_WINDOW);
    let to = text.len().min(hit + WALLET_WINDOW);
    let mut i = from;
    while i < to {
        if text[i] == b'['
            && let Some(end) = byte_array_end(text, i + 1, 64)
        {
            out.push(Finding {
                rule: "wallet_key",
                start: i + 1,
                end,
            });
            i = end;
        }
        // The same 64 bytes in base58, as wallets export them (86 to 88
        // characters; an address is at most 44).
        if i < to && base58(text[i]) && (i == 0 || !text[i - 1].is_ascii_alphanumeric()) {
            let end = run(text, i, 90, base58);
            if (86..=88).contains(&(end - i))
                && !text.get(end).is_some_and(u8::is_ascii_alphanumeric)
            {
                out.push(Finding {
                    rule: "wallet_key",
                    start: i,
                    end,
                });
            }
            i = end;
            continue;
        }
        i += 1;
    }
}

/// A Nostr private key: `nsec1` and 58 bech32 characters (keyword at
/// `hit..hit_end`).
pub(super) fn nostr_key(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let bech32 = |b: u8| b"qpzry9x8gf2tvdw0s3jn54khce6mua7l".contains(&b);
    let end = run(text, hit_end, 64, bech32);
    if super::lex::starts_word(text, hit)
        && end - hit_end == 58
        && !text.get(end).is_some_and(u8::is_ascii_alphanumeric)
    {
        out.push(Finding {
            rule: "wallet_key",
            start: hit,
            end,
        });
    }
}

/// Where an array of exactly `n` numbers from 0 to 255 that starts at `i`
/// (after its `[`) ends (at its `]`).
fn byte_array_end(text: &[u8], mut i: usize, n: usize) -> Option<usize> {
    for k in 0..n {
        i = run(text, i, 4, |b| b == b' ');
        let digits = run(text, i, 4, |b| b.is_ascii_digit());
        if digits == i || digits - i > 3 {
            return None;
        }
        let value: u32 = std::str::from_utf8(&text[i..digits]).ok()?.parse().ok()?;
        if value > 255 {
            return None;
        }
        i = run(text, digits, 4, |b| b == b' ');
        match text.get(i) {
            Some(b',') if k + 1 < n => i += 1,
            Some(b']') if k + 1 == n => return Some(digits),
            _ => return None,
        }
    }
    None
}

/// A PuTTY key file's private part: the base64 lines counted by its
/// `Private-Lines: N` header (`hit_end` just after the colon).
pub(super) fn putty_private(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let digits = run(text, skip_blanks(text, hit_end), 3, |b| b.is_ascii_digit());
    let count = std::str::from_utf8(&text[skip_blanks(text, hit_end)..digits])
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(0);
    let mut i = digits;
    for _ in 0..count.min(64) {
        let start = skip_break(text, i);
        if start == i {
            return;
        }
        let end = run(text, start, 256, b64);
        if end == start {
            return;
        }
        out.push(Finding {
            rule: "private_key",
            start,
            end,
        });
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pem_span(t: &str) -> Option<&str> {
        let mut out = Vec::new();
        pem(t.as_bytes(), t.find("-----BEGIN").unwrap(), &mut out);
        out.first().map(|f| &t[f.start..f.end])
    }

    const BODY1: &str = "MIIEowIBAAKCAQEAx4bq9Zk2Lm0Q9xZ3pR7tW1vBc";
    const BODY2: &str = "Yk8Qz3mN5pL7rT9vX1bD3fH5jK7mN9pR2tV4xZ6a";

    #[test]
    fn a_name_at_the_end_of_a_keys_window_is_not_read_past_it() {
        // `"kty"` at 1, and a quote opening a name on the window's last byte.
        let mut text = String::from("{\"kty\": \"oct\",");
        text.push_str(&" ".repeat(8192 + 1 - text.len() - 1));
        text.push_str("\"kid\": \"a\"}");
        let mut out = Vec::new();
        jwk(text.as_bytes(), 1, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn pem_blocks_real_and_escaped_newlines() {
        let real = format!(
            "key:\n-----BEGIN RSA PRIVATE KEY-----\n{BODY1}\n{BODY2}\n-----END RSA PRIVATE KEY-----\n"
        );
        assert_eq!(pem_span(&real), Some(format!("{BODY1}\n{BODY2}").as_str()));
        let escaped = format!(
            r#"{{"private_key": "-----BEGIN PRIVATE KEY-----\n{BODY1}\n{BODY2}\n-----END PRIVATE KEY-----\n"}}"#
        );
        assert_eq!(
            pem_span(&escaped),
            Some(format!(r"{BODY1}\n{BODY2}").as_str())
        );
        let double = format!(
            r#"\"-----BEGIN OPENSSH PRIVATE KEY-----\\n{BODY1}\\n{BODY2}\\n-----END OPENSSH PRIVATE KEY-----\""#
        );
        assert_eq!(
            pem_span(&double),
            Some(format!(r"{BODY1}\\n{BODY2}").as_str())
        );
    }

    #[test]
    fn truncated_and_placeholder_blocks() {
        let cut = format!("-----BEGIN EC PRIVATE KEY-----\n{BODY1}\n{BODY2}\n(output truncated)\n");
        assert_eq!(pem_span(&cut), Some(format!("{BODY1}\n{BODY2}").as_str()));
        let enc = format!(
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\n{BODY1}\n"
        );
        assert!(pem_span(&enc).unwrap().ends_with(BODY1));
        let yaml =
            format!("key: |\n  -----BEGIN PRIVATE KEY-----\n  {BODY1}\n  {BODY2}\nnext: 1\n");
        assert_eq!(
            pem_span(&yaml),
            Some(format!("  {BODY1}\n  {BODY2}").as_str())
        );
        assert_eq!(
            pem_span("-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----"),
            None
        );
        assert_eq!(
            pem_span("-----BEGIN PRIVATE KEY-----\n[REDACTED_SECRET]\n-----END PRIVATE KEY-----"),
            None
        );
        assert_eq!(
            pem_span(&format!("-----BEGIN PUBLIC KEY-----\n{BODY1}\n")),
            None
        );
        assert_eq!(
            pem_span(&format!("-----BEGIN CERTIFICATE-----\n{BODY1}\n")),
            None
        );
    }

    #[test]
    fn base64_wrapped_pem() {
        let mut out = Vec::new();
        // base64("-----BEGIN RSA PRIVATE KEY-----\nMIIE")
        let t = b"client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF";
        pem_base64(t, 17, &mut out);
        assert_eq!(out.len(), 1);
        // base64("-----BEGIN CERTIFICATE-----\nMIIE")
        let c = b"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUU=";
        out.clear();
        pem_base64(c, 0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn jwts_need_alg() {
        let mut out = Vec::new();
        let t = "t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2J5dGVz end";
        jwt(t.as_bytes(), 2, &mut out);
        assert_eq!(
            &t[out[0].start..out[0].end],
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2J5dGVz"
        );
        out.clear();
        // Mapbox public token: JSON header without "alg".
        let m = "pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjazEyMyJ9.abcdefghijklmnop";
        jwt(m.as_bytes(), 3, &mut out);
        assert!(out.is_empty());
        let no_alg = "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiIxIn0.c2ln";
        jwt(no_alg.as_bytes(), 0, &mut out);
        assert!(out.is_empty());
    }
}
