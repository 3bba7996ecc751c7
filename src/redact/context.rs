//! Secrets recognised by what is near them: the AWS secret access key next to
//! an access key id, the Twilio auth token next to an account SID, a Discord
//! bot token near the word "discord" (or anywhere, by its decoded id), a
//! Cohere or Mistral key near the provider's name.

use super::Finding;
use super::entropy::{Shape, is_hex, is_uuid, looks_random};
use super::lex::{alnum, b64, ends_word, run, skip_blanks, starts_word, word};
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
    twilio_secret_after(text, sid_end, out);
}

/// The 32-character secret shortly after a Twilio SID (`AC…`: the auth
/// token; `SK…`: an API key's secret, `twilio('SK…', '<secret>')`).
pub(super) fn twilio_secret_after(text: &[u8], sid_end: usize, out: &mut Vec<Finding>) {
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

/// Whether `v` has a Discord bot token's shape: `<base64 user id>.<6>.<27+>`.
fn discord_shaped(v: &[u8]) -> bool {
    let mut parts = v.split(|&b| b == b'.');
    let (Some(a), Some(b), Some(c), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    matches!(a.first(), Some(b'M' | b'N' | b'O'))
        && (23..=28).contains(&a.len())
        && (6..=7).contains(&b.len())
        && (27..=40).contains(&c.len())
        && looks_random(c)
        && !is_harmless(v)
}

/// A Discord bot token (`<base64 user id>.<6>.<27+>`) within a few lines
/// after the word "discord".
pub(super) fn discord_bot_token(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 2 * WINDOW);
    let class = |b: u8| word(b) || b == b'.';
    runs(text, hit_end, to, class, |s, e| {
        if discord_shaped(&text[s..e]) {
            out.push(Finding {
                rule: "discord_bot_token",
                start: s,
                end: e,
            });
        }
    });
}

/// A Discord bot token with nothing around it: its first part must decode
/// to the bot's numeric user id (17–20 digits), which no other dotted
/// base64 text does. `hit` is at its first character.
fn discord_bare_token(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if !matches!(text[hit], b'M' | b'N' | b'O')
        || (hit > 0
            && (word(text[hit - 1]) || text[hit - 1] == b'.')
            && !super::lex::after_escape(text, hit))
    {
        return;
    }
    let end = run(text, hit, 80, |b| word(b) || b == b'.');
    let v = &text[hit..end];
    if end < text.len() && (word(text[end]) || text[end] == b'.') || !discord_shaped(v) {
        return;
    }
    let id_part = &v[..v.iter().position(|&b| b == b'.').unwrap_or(0)];
    let id = super::codec::b64_decode_prefix(id_part, 32).unwrap_or_default();
    if (17..=20).contains(&id.len()) && id.iter().all(u8::is_ascii_digit) {
        out.push(Finding {
            rule: "discord_bot_token",
            start: hit,
            end,
        });
    }
}

/// Bare Discord tokens, found by their dots rather than a keyword: a dot
/// with another one 7 or 8 bytes on (`<id>.<6 or 7>.<rest>`) is a candidate
/// (a fast byte search: no keyword could name them).
pub(super) fn discord_by_dots(text: &[u8], out: &mut Vec<Finding>) {
    for p in memchr::memchr_iter(b'.', text) {
        if text.get(p + 7) == Some(&b'.') || text.get(p + 8) == Some(&b'.') {
            let mut start = super::lex::run_back(text, p, 29, word);
            // `…\nMTIz…`: the escape's letter is not the token's.
            if start < p && super::lex::after_escape(text, start + 1) {
                start += 1;
            }
            if (23..=28).contains(&(p - start)) {
                discord_bare_token(text, start, out);
            }
        }
    }
}

/// A Cohere (or Mistral) API key, which has no prefix: a 40- (32-) character
/// alphanumeric run in a call or assignment shortly after the provider's name.
pub(super) fn provider_key_near(
    text: &[u8],
    hit: usize,
    hit_end: usize,
    len: usize,
    out: &mut Vec<Finding>,
) {
    if !starts_word(text, hit) {
        return;
    }
    let to = text.len().min(hit_end + WINDOW);
    runs(text, hit_end, to, alnum, |s, e| {
        let v = &text[s..e];
        let shape = Shape::of(v);
        let quoted = s > 0 && matches!(text[s - 1], b'"' | b'\'' | b'=' | b' ');
        if e - s == len
            && quoted
            && shape.upper > 0
            && shape.lower > 0
            && shape.digit > 0
            && looks_random(v)
            && !is_harmless(v)
        {
            out.push(Finding {
                rule: "provider_api_key",
                start: s,
                end: e,
            });
        }
    });
}

/// An Asana personal access token near the word "asana", whose digits a
/// name-based rule would leave: `1/<user gid>:<32 hex>` or
/// `2/<user gid>/<token gid>:<32 hex>`, before or after the word.
pub(super) fn asana_pat(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let from = hit.saturating_sub(WINDOW);
    let to = text.len().min(hit_end + WINDOW);
    let class = |b: u8| b.is_ascii_digit() || matches!(b, b'/' | b':' | b'a'..=b'f');
    runs(text, from, to, class, |s, e| {
        if is_asana_pat(&text[s..e]) {
            out.push(Finding {
                rule: "asana_pat",
                start: s,
                end: e,
            });
        }
    });
}

/// Whether `v` is exactly an Asana personal access token.
fn is_asana_pat(v: &[u8]) -> bool {
    let Some(colon) = v.iter().position(|&b| b == b':') else {
        return false;
    };
    let (ids, hex) = (&v[..colon], &v[colon + 1..]);
    let gids: Vec<&[u8]> = ids.split(|&b| b == b'/').collect();
    let version_fits = match gids[0] {
        b"1" => gids.len() == 2,
        b"2" => gids.len() == 3,
        _ => false,
    };
    version_fits
        && gids[1..]
            .iter()
            .all(|g| (10..=20).contains(&g.len()) && g.iter().all(u8::is_ascii_digit))
        && hex.len() == 32
        && hex.iter().all(u8::is_ascii_hexdigit)
}

/// The `encoded` field of the reply that created an Elasticsearch API key
/// (base64 of `id:api_key`, what clients send): its value, when an
/// `api_key` field comes shortly before it.
pub(super) fn elastic_encoded(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let before = &text[hit.saturating_sub(WINDOW)..hit];
    if !super::lex::contains(before, b"\"api_key\"")
        && !super::lex::contains(before, b"\"api_key\\\"")
    {
        return;
    }
    // `"encoded": "…"`, also as `\"encoded\":\"…\"` inside a JSON string.
    let mut i = run(text, hit_end, 2, |b| b == b'\\' || b == b'"');
    i = skip_blanks(text, i);
    if text.get(i) != Some(&b':') {
        return;
    }
    let Some(value) = super::lex::value_at(text, skip_blanks(text, i + 1)) else {
        return;
    };
    let v = &text[value.start..value.end];
    if value.quoted && v.len() >= 40 && v.iter().all(|&b| b64(b) || b == b'=') && looks_random(v) {
        out.push(Finding {
            rule: "elastic_api_key",
            start: value.start,
            end: value.end,
        });
    }
}

/// Magento's encryption key in `app/etc/env.php`: the `'key'` of the
/// `'crypt'` array (32 hex digits, or `base64` and 44 more characters since
/// 2.4.7; several, one per line, after a key rotation).
pub(super) fn magento_crypt_key(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 160);
    let Some(at) = super::lex::find(&text[hit_end..to], b"'key'") else {
        return;
    };
    let i = super::lex::skip_spacing(text, hit_end + at + 5);
    if !text[i..].starts_with(b"=>") {
        return;
    }
    let Some(value) = super::lex::value_at(text, super::lex::skip_spacing(text, i + 2)) else {
        return;
    };
    let key_char = |b: u8| b64(b) || b == b'=';
    runs(text, value.start, value.end, key_char, |mut s, e| {
        // Rotated keys are joined by line breaks, escaped in a JSON string.
        if s < e && super::lex::after_escape(text, s + 1) {
            s += 1;
        }
        if e - s >= 32 && looks_random(&text[s..e]) {
            out.push(Finding {
                rule: "magento_crypt_key",
                start: s,
                end: e,
            });
        }
    });
}

/// Vault's unseal keys (Shamir shares of the root key) after
/// `unseal_keys_b64` / `unseal_keys_hex` (`vault operator init -format=json`)
/// or "unseal with these": every random run of 40 to 48 base64 characters
/// or 64 to 66 hex digits in the next kilobyte, wherever they are listed.
pub(super) fn unseal_keys(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 1024);
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    runs(text, hit_end, to, base64, |s, e| {
        let v = &text[s..e];
        let hex = v.iter().all(u8::is_ascii_hexdigit);
        let share = if hex {
            (64..=66).contains(&v.len())
        } else {
            (40..=48).contains(&v.len())
        };
        if share && looks_random(v) && !is_harmless(v) {
            out.push(Finding {
                rule: "vault_unseal_key",
                start: s,
                end: e,
            });
        }
    });
}

/// A wallet's recovery phrase after a word naming it (`--mnemonic "…"`,
/// `MNEMONIC=…`, `derive-private-key "…"`, `fromPhrase("…")`): 12, 13, 15,
/// 18, 21 or 24 lower-case words of 3 to 8 letters (BIP-39, Electrum), or
/// Monero's 25.
pub(super) fn recovery_phrase(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // "seed phrase for the test wallet: …": past what the phrase is for;
    // else the rest of the name (`mnemonics`, `_PHRASE`, `("`), then `=`,
    // `:`, blanks, a quote.
    let hit_end = if text[hit_end..].starts_with(b" is:") || text[hit_end..].starts_with(b" is ") {
        hit_end + 3
    } else {
        hit_end
    };
    let i = match text.get(hit_end) {
        Some(b' ') => past_phrase(text, hit_end + 1),
        _ => None,
    }
    .unwrap_or_else(|| {
        run(text, hit_end, 16, |b| {
            b.is_ascii_alphanumeric() || b == b'_'
        })
    });
    if let Some(found) = phrase_at(text, i) {
        out.push(found);
        return;
    }
    // "the seed words I wrote down:", then the phrase: past the colon
    // that ends the line's few words.
    let line = super::lex::line_end(text, hit_end, 80);
    if let Some(colon) = text[hit_end..line].iter().position(|&b| b == b':')
        && let Some(found) = phrase_at(text, hit_end + colon + 1)
    {
        out.push(found);
    }
}

/// The recovery phrase that starts at `i` past separators: `=`, `:`,
/// blanks, quotes, a subscript's `]` (`env['SEED_PHRASE'] = '…'`), a
/// fallback's `||` or `??` (`process.env.MNEMONIC || '…'`) and a line
/// break, real or escaped (`Phrase:\n…`).
fn phrase_at(text: &[u8], mut i: usize) -> Option<Finding> {
    loop {
        i = run(text, i, 8, |b| {
            matches!(
                b,
                b'=' | b':'
                    | b' '
                    | b'\t'
                    | b'\n'
                    | b'"'
                    | b'\''
                    | b','
                    | b'('
                    | b']'
                    | b'|'
                    | b'?'
            )
        });
        match super::lex::escape_at(text, i) {
            Some((_, width)) => i += width,
            None if text.get(i) == Some(&b'\\') => i += 1,
            None => break,
        }
    }
    let start = i;
    let mut words: Vec<&[u8]> = Vec::new();
    loop {
        let end = run(text, i, 9, |b| b.is_ascii_lowercase());
        if end == i {
            break;
        }
        words.push(&text[i..end]);
        i = end;
        if text.get(i) != Some(&b' ') || !text.get(i + 1).is_some_and(u8::is_ascii_lowercase) {
            break;
        }
        i += 1;
    }
    // Prose has its little words; a recovery phrase none of them.
    const PROSE: &[&[u8]] = &[
        b"the", b"and", b"for", b"you", b"with", b"this", b"that", b"are", b"was", b"not", b"but",
        b"from", b"will", b"your", b"they",
    ];
    // BIP-39's words have 3 to 8 letters; Monero's 25-word seeds longer ones.
    let longest = if words.len() == 25 { 12 } else { 8 };
    ([12, 13, 15, 18, 21, 24, 25].contains(&words.len())
        && !words.iter().any(|w| PROSE.contains(w))
        && words.iter().all(|w| (3..=longest).contains(&w.len()))
        && !text.get(i).is_some_and(u8::is_ascii_alphanumeric))
    .then_some(Finding {
        rule: "recovery_phrase",
        start,
        end: i,
    })
}

/// An EVM private key (`0x` and 64 hex digits) handed to a wallet or
/// account constructor shortly after `hit_end` (`Account.from_key("0x…")`,
/// `new ethers.Wallet("0x…")`, Hardhat `accounts: ["0x…"]`), where a bare
/// 64-hex value would otherwise be a transaction hash.
pub(super) fn evm_key_near(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // `accounts` only as a key: `accounts: [`, `"accounts": [`.
    if text[..hit_end].ends_with(b"ccounts") {
        let colon =
            super::lex::skip_blanks(text, run(text, hit_end, 3, |b| b == b'"' || b == b'\\'));
        if text.get(colon) != Some(&b':') {
            return;
        }
    }
    let to = text.len().min(hit_end + 120);
    runs(text, hit_end, to, alnum, |s, e| {
        let v = &text[s..e];
        let hex = v.len() == 66 && v.starts_with(b"0x") && v[2..].iter().all(u8::is_ascii_hexdigit);
        if (hex || (v.len() == 64 && v.iter().all(u8::is_ascii_hexdigit))) && looks_random(v) {
            out.push(Finding {
                rule: "evm_private_key",
                start: if hex { s + 2 } else { s },
                end: e,
            });
        }
    });
}

/// An Azure storage account key (86 base64 characters and `==`) near a
/// `keyName` field, as `az storage account keys list` prints them.
pub(super) fn azure_key_near(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + WINDOW);
    runs(
        text,
        hit_end,
        to,
        |b| b64(b) || b == b'=',
        |s, e| {
            let v = &text[s..e];
            if v.len() == 88 && v.ends_with(b"==") && looks_random(v) && !is_harmless(v) {
                out.push(Finding {
                    rule: "azure_storage_key",
                    start: s,
                    end: e,
                });
            }
        },
    );
}

/// A password told in prose: "the staging password is X" (`hit_end` just
/// after "password is "). Only a value no sentence would hold: letters with
/// digits or symbols, six or more, not a path or a placeholder.
pub(super) fn prose_password(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let (quote, end) = prose_word(text, hit_end);
    let v = &text[quote..end];
    let s = Shape::of(v);
    // Code around an empty string (`'password is ')).toBe('…`) is not one.
    let code = v.contains(&b'\'') || v.first().is_some_and(|b| matches!(b, b')' | b']' | b'}'));
    if v.len() >= 6
        && s.lower + s.upper > 0
        && s.digit + s.other > 0
        && !v.contains(&b'/')
        && !code
        && !is_harmless(v)
    {
        out.push(Finding {
            rule: "prose_password",
            start: quote,
            end,
        });
    }
}

/// Plaid's access token (keyword `access-production-`, `-sandbox-` or
/// `-development-` at `hit..hit_end`): the keyword and the UUID after it.
pub(super) fn plaid_token(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let end = hit_end + 36;
    if starts_word(text, hit)
        && text.len() >= end
        && is_uuid(&text[hit_end..end])
        && ends_word(text, end)
    {
        out.push(Finding {
            rule: "provider_token",
            start: hit,
            end,
        });
    }
}

/// Confluent Cloud's API key, which Kafka clients give as the SASL user
/// name (`PlainLoginModule required username="X" password="…"`, keyword
/// ending at `hit_end`): 16 upper-case letters and digits.
pub(super) fn sasl_user_key(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let line = super::lex::line_end(text, hit_end, 512);
    let Some(at) = super::lex::find(&text[hit_end..line], b"username=") else {
        return;
    };
    let from = hit_end + at + 9;
    let start = run(text, from, 4, |b| matches!(b, b'"' | b'\'' | b'\\'));
    let end = run(text, start, 17, |b| {
        b.is_ascii_uppercase() || b.is_ascii_digit()
    });
    let s = Shape::of(&text[start..end]);
    if end - start == 16
        && s.digit > 0
        && s.upper > 0
        && !text.get(end).is_some_and(u8::is_ascii_alphanumeric)
    {
        out.push(Finding {
            rule: "provider_api_key",
            start,
            end,
        });
    }
}

/// A webhook's or an RPC endpoint's secret path segment after `hit_end`:
/// Mattermost's `/hooks/<26 lower-case letters and digits>`, Rocket.Chat's
/// `/hooks/<id>/<token>`, IFTTT's `/with/key/<key>`, Make's, Feishu's and
/// WeCom's hook keys, Infura's and Alchemy's project keys.
pub(super) fn hook_segment(text: &[u8], hit_end: usize, mattermost: bool, out: &mut Vec<Finding>) {
    let segment = |from: usize| {
        run(text, from, 96, |b| {
            b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
        })
    };
    let end = segment(hit_end);
    let v = &text[hit_end..end];
    let s = Shape::of(v);
    let end = if mattermost {
        let token_end = segment(end + 1);
        if text.get(end) == Some(&b'/')
            && token_end - end > 32
            && looks_random(&text[end + 1..token_end])
        {
            token_end
        } else if v.len() == 26 && s.upper == 0 && s.other == 0 && s.lower > 0 && s.digit > 0 {
            end
        } else {
            return;
        }
    } else if (v.len() >= 16 && looks_random(v)) || is_uuid(v) {
        end
    } else {
        return;
    };
    if !is_harmless(v) {
        out.push(Finding {
            rule: "webhook",
            start: hit_end,
            end,
        });
    }
}

/// Whether the Google API key at `at` is one an app ships to its users, a
/// project's name rather than a credential: a Maps JavaScript API script's
/// `key=` or the `current_key` of an Android app's `google-services.json`.
pub(super) fn shipped_google_key(text: &[u8], at: usize) -> bool {
    let before = &text[at.saturating_sub(64)..at];
    in_firebase_config(text, at)
        || super::lex::contains(before, b"/maps/api/js?")
        || super::lex::contains(before, b"current_key")
}

/// Whether `at` lies in a Firebase web app's config object
/// (`firebaseConfig = { apiKey: …, authDomain: "….firebaseapp.com", … }`).
pub(super) fn in_firebase_config(text: &[u8], at: usize) -> bool {
    let before = &text[at.saturating_sub(200)..at];
    let after = &text[at..text.len().min(at + 200)];
    super::lex::contains_ci(before, b"firebaseconfig")
        || super::lex::contains(after, b"authDomain")
        || super::lex::contains(after, b".firebaseapp.com")
}

/// A Zapier catch hook's account and key (`hooks/catch/<digits>/<key>`,
/// keyword ending at `hit_end`).
pub(super) fn zapier_hook(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let digits = run(text, hit_end, 16, |b| b.is_ascii_digit());
    let key = run(text, digits + 1, 32, |b| b.is_ascii_alphanumeric());
    if digits > hit_end && text.get(digits) == Some(&b'/') && key - digits > 6 {
        out.push(Finding {
            rule: "webhook",
            start: hit_end,
            end: key,
        });
    }
}

/// "Вот Cloudflare API token для прода: X", "the Airtable PAT for staging,
/// set it up …: X" (keyword ending at `hit_end`): a key named in a sentence
/// in any language, the value after the first colon on its line (within a
/// few words), when it looks generated.
pub(super) fn named_then_colon(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // "use api key X for the sandbox": the value right after the name.
    let (start, end) = prose_word(text, hit_end);
    if is_generated(&text[start..end]) {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
        return;
    }
    let line = super::lex::line_end(text, hit_end, 160);
    let rest = &text[hit_end..line];
    let colon = rest
        .iter()
        .position(|&b| b == b':')
        .or_else(|| super::lex::find(rest, "：".as_bytes()).map(|p| p + 2));
    // The keyword may end at the colon itself (`token：`).
    let ends_at_colon =
        text[..hit_end].ends_with("：".as_bytes()) || text[..hit_end].ends_with(b":");
    let Some(colon) = colon
        .map(|c| hit_end + c + 1)
        .or(ends_at_colon.then_some(hit_end))
    else {
        return;
    };
    // A sentence that ends before the colon names something else, and a
    // digest's algorithm before it (`fingerprint SHA256:…`) makes it one.
    let label_start = super::lex::run_back(text, colon - 1, 16, |b| b.is_ascii_alphanumeric());
    let label = &text[label_start..colon - 1];
    if super::lex::find(&text[hit_end..colon], b". ").is_some()
        || ["sha1", "sha256", "sha384", "sha512", "md5"]
            .iter()
            .any(|h| label.eq_ignore_ascii_case(h.as_bytes()))
    {
        return;
    }
    let mut start = skip_blanks(text, colon);
    // "I pasted the Cloudflare global API key into the terminal:" and the
    // key alone on the next line.
    let next_line = matches!(text.get(start), Some(b'\n' | b'\r'));
    if next_line {
        start = skip_blanks(text, run(text, start, 2, |b| b == b'\n' || b == b'\r'));
    }
    let end = run(text, start, 256, |b| {
        b.is_ascii() && !b.is_ascii_whitespace() && !matches!(b, b'"' | b'\\' | b'\'' | b'`')
    });
    let end = start
        + text[start..end]
            .iter()
            .rposition(|&b| !matches!(b, b',' | b'.' | b';'))
            .map_or(0, |p| p + 1);
    let whole_line = || matches!(text.get(skip_blanks(text, end)), None | Some(b'\n' | b'\r'));
    if is_generated(&text[start..end]) && (!next_line || whole_line()) {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
    }
}

/// "use X as the keystore password" (keyword ` as the ` at `hit..hit_end`):
/// a random word, then what it is used as, named within three words.
pub(super) fn used_as_secret(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let quotes = |b: u8| matches!(b, b'`' | b'\'' | b'"');
    let end = super::lex::run_back(text, hit, 2, quotes);
    let start = super::lex::run_back(text, end, 128, |b| !b.is_ascii_whitespace() && !quotes(b));
    let v = &text[start..end];
    // (A digest or an id is used as a cache or idempotency key.)
    let generated = is_generated(v) || (v.len() >= 12 && looks_random(v) && !v.contains(&b'/'));
    if !generated || is_hex(v) || is_uuid(v) || v.contains(&b'(') {
        return;
    }
    let after = &text[hit_end..super::lex::line_end(text, hit_end, 48)];
    let names_it = after.split(|b| b.is_ascii_whitespace()).take(3).any(|w| {
        [
            "password",
            "passphrase",
            "passcode",
            "key",
            "token",
            "secret",
            "pin",
        ]
        .iter()
        .any(|n| w.eq_ignore_ascii_case(n.as_bytes()))
    });
    if names_it {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
    }
}

/// A TOTP seed as an authenticator's setup screen shows it, in groups of
/// four base32 letters (`UMP3 PRBD CA4H NE6F …`), after "setup key" (the
/// keyword ends at `hit_end`): four groups or more go whole.
pub(super) fn grouped_totp_seed(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let base32 = |b: u8| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b);
    let limit = super::lex::line_end(text, hit_end, 80);
    let Some(first) = (hit_end..limit).find(|&i| {
        base32(text[i]) && (i == 0 || !alnum(text[i - 1])) && run(text, i, 5, base32) == i + 4
    }) else {
        return;
    };
    let (mut end, mut groups) = (first, 0);
    while run(text, end, 5, base32) == end + 4 && !text.get(end + 4).is_some_and(|&b| alnum(b)) {
        groups += 1;
        end += 4;
        if text.get(end) != Some(&b' ') || run(text, end + 1, 5, base32) != end + 5 {
            break;
        }
        end += 1;
    }
    if groups >= 4 {
        out.push(Finding {
            rule: "totp_seed",
            start: first,
            end,
        });
    }
}

/// Whether a value named as a key in prose was generated: long and random,
/// or 32 hex digits and more, and no path, URL or UUID.
fn is_generated(v: &[u8]) -> bool {
    let hex = v.strip_prefix(b"0x").unwrap_or(v);
    let generated = (v.len() >= 20 && looks_random(v)) || (hex.len() >= 32 && is_hex(hex));
    // A slash in a path or URL; base64 has them too (Vault's unseal keys).
    let path_like = v.contains(&b'/')
        && (v.starts_with(b"/") || v.contains(&b'.') || super::lex::contains(v, b"//"));
    // A call's signature (`transfer(address,uint256)`) is code.
    let code = v.contains(&b'(');
    generated && !path_like && !code && !is_harmless(v) && !is_uuid(v)
}

/// What a word names in [`named_in_prose`]: a password, or an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Named {
    /// A password: digits and letters are enough.
    Password,
    /// An API key: it must look generated.
    ApiKey,
    /// A password named in English prose, where more words around look
    /// like one: eight characters or more of three kinds.
    Strong,
}

/// A word for "key" or "token" in another language (keyword at
/// `hit..hit_end`) that "API" stands next to ("chiave API", "API-nyckeln",
/// "API 토큰", "مفتاح API"): the key, as [`named_in_prose`] finds it.
pub(super) fn foreign_api_key(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let from = hit.saturating_sub(24);
    let to = text.len().min(hit_end + 24);
    if super::lex::contains_ci(&text[from..to], b"api") {
        named_in_prose(text, hit_end, Named::ApiKey, out);
    }
}

/// Whether the keyword at `start..end` is a piece of a random run of
/// letters and digits (base64 holds "SENha" and "parola" by chance), not a
/// word: letters or digits are glued before it, and a digit is among them
/// or the keyword is written in mixed case ("ZhSENha"). A compound
/// ("Datenbankpasswort", "AdminPasswort") and a shout ("PASSWORT") are words.
pub(super) fn inside_random_run(text: &[u8], start: usize, end: usize) -> bool {
    let glued = super::lex::run_back(text, start, 128, |b| b.is_ascii_alphanumeric());
    if glued == start {
        return false;
    }
    let keyword = &text[start..end];
    let rest = keyword.get(1..).unwrap_or_default();
    let mixed = rest.iter().any(u8::is_ascii_uppercase) && rest.iter().any(u8::is_ascii_lowercase);
    text[glued..start].iter().any(u8::is_ascii_digit) || mixed
}

/// "Das Passwort … lautet X", "mot de passe de la base de prod est X",
/// "パスワードは X です", "सर्वर का पासवर्ड X है" (keyword ending at
/// `hit_end`, in any language): past the rest of the keyword's word, the
/// value after a `:` or `=`, else the first password-shaped word of the
/// next few on its line — word order differs from language to language,
/// a password's shape does not.
pub(super) fn named_in_prose(text: &[u8], hit_end: usize, named: Named, out: &mut Vec<Finding>) {
    // The rest of the word: an inflection after a Latin keyword (`-s`,
    // `-es`), a particle after a CJK one (`は`, `是`), up to a full-width colon.
    let latin = hit_end > 0 && text[hit_end - 1].is_ascii();
    let mut i = hit_end;
    while i < text.len().min(hit_end + 24) && !text[i..].starts_with("：".as_bytes()) {
        let b = text[i];
        if (latin && b.is_ascii_alphabetic()) || (!latin && !b.is_ascii()) {
            i += 1;
        } else {
            break;
        }
    }
    let limit = text.len().min(i + 160);
    for _ in 0..8 {
        if i >= limit {
            return;
        }
        i = run(text, i, limit - i, |b| {
            matches!(b, b' ' | b'\t' | b':' | b'=' | b'"' | b'\'' | b'`' | b'(')
        });
        // An escaped quote of a JSON string (`\"contraseña\": \"X\"`).
        if text.get(i) == Some(&b'\\') && super::lex::escape_at(text, i).is_none() {
            let quote = run(text, i, 8, |b| b == b'\\');
            if text.get(quote) == Some(&b'"') {
                i = quote + 1;
                continue;
            }
        }
        // A fullwidth colon (`：`).
        if text[i..].starts_with("：".as_bytes()) {
            i += 3;
            continue;
        }
        if i >= limit || matches!(text[i], b'\n' | b'\r' | b'\\') {
            return;
        }
        // A word ends at quotes and at an escape (`\n` inside a JSON string).
        // A password is ASCII: a full-width comma or a particle ends it too.
        let end = run(text, i, limit - i, |b| {
            b.is_ascii() && !b.is_ascii_whitespace() && !matches!(b, b'"' | b'`' | b'\'' | b'\\')
        });
        let end = i + text[i..end]
            .iter()
            .rposition(|&b| !matches!(b, b',' | b'.' | b';' | b')'))
            .map_or(0, |p| p + 1);
        let v = &text[i..end];
        let shaped = match named {
            Named::Password => password_shaped(v),
            Named::ApiKey => v.len() >= 20 && looks_random(v),
            // Not an id (`3f9a2c1e-…`), a flag, a slug (`us-east-1`) or a
            // call (`Argon2id(m=65536,t=3)`).
            Named::Strong => {
                let k = Shape::of(v);
                let kinds = [k.lower, k.upper, k.digit, k.other]
                    .iter()
                    .filter(|&&n| n > 0)
                    .count();
                let symbol = v
                    .iter()
                    .any(|b| b.is_ascii_punctuation() && !b"-_.".contains(b));
                v.len() >= 8
                    && kinds >= 3
                    && (k.upper > 0 || symbol)
                    && !v.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-')
                    && !v.starts_with(b"-")
                    && !v.contains(&b'(')
                    && password_shaped(v)
            }
        };
        if shaped && !is_harmless(v) {
            out.push(Finding {
                rule: "prose_password",
                start: i,
                end,
            });
            return;
        }
        i = run(text, end, limit.saturating_sub(end), |b| {
            !b.is_ascii_whitespace()
        })
        .max(end + 1);
    }
}

/// A word that can only be a password: six ASCII characters or more, with
/// letters, digits and a second kind of letter or a symbol, and neither a
/// path, an address, an e-mail nor the password manager's name.
fn password_shaped(v: &[u8]) -> bool {
    let s = Shape::of(v);
    v.len() >= 6
        && !v.eq_ignore_ascii_case(b"1password")
        && v.is_ascii()
        && s.lower + s.upper > 0
        && s.digit > 0
        && ((s.lower > 0 && s.upper > 0) || s.other > 0)
        && !v.contains(&b'/')
        && !super::lex::contains(v, b"://")
        && !is_email(v)
}

/// `local@domain.tld`.
fn is_email(v: &[u8]) -> bool {
    let Some(at) = v.iter().rposition(|&b| b == b'@') else {
        return false;
    };
    let (local, domain) = (&v[..at], &v[at + 1..]);
    let tld = domain.rsplit(|&b| b == b'.').next().unwrap_or_default();
    !local.is_empty()
        && local
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"._%+-".contains(&b))
        && domain.contains(&b'.')
        && domain
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && tld.len() >= 2
        && tld.iter().all(u8::is_ascii_alphabetic)
}

/// A Markdown table whose header has a `Password` column (keyword `|
/// password |` at `hit..hit_end`): that column's cell in every row.
pub(super) fn password_column(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let header = super::lex::line_start(text, hit, 512);
    // Which cell of the header the keyword's `password` is.
    let column = text[header..hit].iter().filter(|&&b| b == b'|').count();
    let mut i = super::lex::skip_break(text, super::lex::line_end(text, hit_end, 512));
    // A header is followed by its delimiter row (`|---|`, MySQL's `+---+`);
    // a row that only holds the word (`DESCRIBE`'s `| password | varchar |`)
    // is data.
    let next = &text[i..super::lex::line_end(text, i, 1024)];
    if !next.contains(&b'-')
        || !next
            .iter()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'+'))
    {
        return;
    }
    for _ in 0..64 {
        let end = super::lex::line_end(text, i, 1024);
        let row = &text[i..end];
        if !row.trim_ascii_start().starts_with(b"|") {
            return;
        }
        // The delimiter row (`|---|---|`) has no cells to take.
        let bars: Vec<usize> = (0..row.len()).filter(|&k| row[k] == b'|').collect();
        if bars.len() > column + 1 && !row.iter().all(|b| matches!(b, b'|' | b'-' | b':' | b' ')) {
            let (s, e) = (i + bars[column] + 1, i + bars[column + 1]);
            let s = s + text[s..e]
                .iter()
                .take_while(|b| **b == b' ' || **b == b'`')
                .count();
            let e = s + text[s..e]
                .iter()
                .rposition(|b| *b != b' ' && *b != b'`')
                .map_or(0, |p| p + 1);
            if super::entropy::looks_like_password(&text[s..e]) && !is_harmless(&text[s..e]) {
                out.push(Finding {
                    rule: "password_assignment",
                    start: s,
                    end: e,
                });
            }
        }
        if end >= text.len() {
            return;
        }
        i = super::lex::skip_break(text, end);
    }
}

/// "login is ops / X", "creds: admin / X" (keyword ending at `hit_end`): a
/// user name, a slash, and the password.
pub(super) fn login_pair(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // "the admin login for the staging box is admin / X", "login is ops / X".
    let mut at = past_phrase(text, hit_end).unwrap_or(hit_end);
    if text[at..].starts_with(b"is ") {
        at += 3;
    }
    let user = skip_blanks(text, at);
    let user_end = run(text, user, 64, |b| !b.is_ascii_whitespace() && b != b'/');
    let slash = skip_blanks(text, user_end);
    if user_end == user || text.get(slash) != Some(&b'/') || slash == user_end {
        return;
    }
    prose_password(text, skip_blanks(text, slash + 1), out);
}

/// An API key that is a UUID (Heroku's), in prose after the provider's name
/// (keyword at `hit..hit_end`) and a word naming a key: "a Heroku key
/// (e321b2b3-…)". A UUID elsewhere is an id.
pub(super) fn uuid_key_near(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if !starts_word(text, hit) {
        return;
    }
    let to = text.len().min(hit_end + 80);
    let mut named = false;
    let mut i = hit_end;
    while i < to {
        let end = run(text, i, 64, |b| b.is_ascii_alphanumeric() || b == b'-');
        if end == i {
            i += 1;
            continue;
        }
        let w = &text[i..end];
        if is_uuid(w) && named {
            out.push(Finding {
                rule: "provider_api_key",
                start: i,
                end,
            });
            return;
        }
        named |= ["key", "token", "api"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k.as_bytes()));
        i = end;
    }
}

/// "that's the Cloudflare token" (keyword ending at `hit_end`) after a line
/// that holds one generated-looking word: that word, when the sentence goes
/// on to name a key, token, password or secret within five words.
pub(super) fn named_after(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let sentence = run(text, hit_end, 64, |b| b != b'.' && b != b',' && b != b'\n');
    let names = text[hit_end..sentence]
        .split(|&b| b == b' ')
        .take(5)
        .any(|w| {
            ["key", "token", "password", "secret"]
                .iter()
                .any(|k| w.eq_ignore_ascii_case(k.as_bytes()))
        });
    if !names {
        return;
    }
    // The previous non-empty line, real or escaped breaks between.
    let mut end = hit;
    loop {
        let before = super::lex::run_back(text, end, 8, |b| b == b' ' || b == b'\t');
        let broken = super::lex::run_back(text, before, 8, |b| matches!(b, b'\n' | b'\r'));
        let escaped = if broken == before && before >= 2 && &text[before - 2..before] == b"\\n" {
            before - 2
        } else {
            broken
        };
        if escaped == before {
            break;
        }
        end = escaped;
    }
    if end == hit {
        return;
    }
    let start = super::lex::run_back(text, end, 128, |b| !b.is_ascii_whitespace() && b != b'"');
    let v = &text[start..end];
    // Alone on its line, or first in a JSON string.
    let alone =
        super::lex::line_start(text, start, 4) == start || (start > 0 && text[start - 1] == b'"');
    // Hex is a commit or a digest far more often than a key.
    if alone && v.len() >= 20 && !is_hex(v) && looks_random(v) && !is_harmless(v) {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
    }
}

/// Past a short phrase that says what a password or token is for, from
/// `hit_end` (after `password `, `authtoken `): `for`, `of` or `on`, at most
/// five words, then `is`, `was`, `:` or `=` — the start of the next word.
fn past_phrase(text: &[u8], hit_end: usize) -> Option<usize> {
    let word_at = |i: usize| {
        let end = run(text, i, 32, |b| {
            b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
        });
        (i, end)
    };
    let (s, e) = word_at(hit_end);
    if !matches!(&text[s..e], b"for" | b"of" | b"on") {
        return None;
    }
    let mut i = e;
    for _ in 0..6 {
        if matches!(text.get(i), Some(b':' | b'=')) {
            return Some(skip_blanks(text, i + 1));
        }
        if text.get(i) != Some(&b' ') {
            return None;
        }
        let (s, e) = word_at(i + 1);
        if e == s {
            return None;
        }
        if matches!(&text[s..e], b"is" | b"was") && text.get(e) == Some(&b' ') {
            return Some(e + 1);
        }
        i = e;
    }
    None
}

/// The word after a prose keyword ending at `hit_end`: past an opening
/// quote, without the punctuation that ends the sentence or closes a quote.
fn prose_word(text: &[u8], hit_end: usize) -> (usize, usize) {
    let quote = run(text, hit_end, 2, |b| {
        matches!(b, b'`' | b'\'' | b'"' | b'\\')
    });
    // A word ends at an escape too (`None:\n` inside a JSON string).
    let end = run(text, quote, 128, |b| {
        !b.is_ascii_whitespace() && b != b'`' && b != b'"' && b != b'\\'
    });
    let end = quote
        + text[quote..end]
            .iter()
            .rposition(|&b| !matches!(b, b',' | b'.' | b';' | b':' | b')' | b'\'' | b'\\'))
            .map_or(0, |p| p + 1);
    (quote, end)
}

/// "…, password 55tba72gusz0qdw89z.", "the new value is wndcMaxanb5b…":
/// the next word, when it looks generated (long, random, not hex, no path
/// or URL).
pub(super) fn prose_random(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // "the admin password for the staging box is X": the sentence says
    // what X is, so a password's shape is enough.
    if let Some(after) = past_phrase(text, hit_end) {
        return prose_password(text, after, out);
    }
    // "the jina key for staging: X" (the keyword holds the `for `).
    if text[..hit_end].ends_with(b" for ") {
        match past_phrase(text, hit_end - 4) {
            Some(after) => return prose_random(text, after, out),
            None => return,
        }
    }
    let (start, end) = prose_word(text, hit_end);
    let v = &text[start..end];
    // Hex and UUIDs in prose are digests and ids far more often than keys.
    let hex_or_id = || v.iter().all(|b| b.is_ascii_hexdigit() || *b == b'-');
    // A `/` is a path's, unless the word is base64 (`+`, or `=` at its end).
    let base64 = v.len() >= 32 && !v.contains(&b'.') && (v.contains(&b'+') || v.ends_with(b"="));
    // …unless the sentence names an API key or token: "my azure openai api
    // key is <32 hex>".
    let names_api_key = || {
        let lead = text[hit_end.saturating_sub(20)..hit_end].to_ascii_lowercase();
        [
            &b"api key is "[..],
            b"api token is ",
            b"access token is ",
            b"secret key is ",
            b"client secret ",
        ]
        .iter()
        .any(|p| lead.ends_with(p))
    };
    if v.len() >= 16
        && (!hex_or_id() || (v.len() >= 32 && names_api_key()))
        && looks_random(v)
        && (!v.contains(&b'/') || base64)
        && !is_harmless(v)
    {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
        return;
    }
    // "with password oMcsE7fcP.+F but …", "la password dell'utente è X".
    let word = hit_end >= 9
        && text[hit_end - 9..hit_end].eq_ignore_ascii_case(b"password ")
        && (hit_end == 9 || matches!(text[hit_end - 10], b' ' | b'\t' | b'\n' | b'"'));
    if word {
        named_in_prose(text, hit_end - 1, Named::Strong, out);
    }
}

/// The base32 seed given to a TOTP constructor (`pyotp.TOTP('…')`, keyword
/// ending at `hit_end` after its parenthesis): 16 or more of `[A-Z2-7]`.
pub(super) fn totp_seed(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let Some(v) = super::lex::value_at(text, skip_blanks(text, hit_end)) else {
        return;
    };
    let seed = &text[v.start..v.end];
    let base32 = seed
        .iter()
        .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(b) || *b == b'=');
    if v.quoted && seed.len() >= 16 && base32 && !is_harmless(seed) {
        out.push(Finding {
            rule: "totp_seed",
            start: v.start,
            end: v.end,
        });
    }
}

/// "Generated token X for user alice" (Django REST framework's
/// `drf_create_token`): the word after the keyword ending at `hit_end`, hex
/// digits too, since the sentence says it was generated.
pub(super) fn generated_token(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let (start, end) = prose_word(text, hit_end);
    let v = &text[start..end];
    if v.len() >= 20 && looks_random(v) && !is_harmless(v) {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
    }
}

/// Whether most groups of an app password's shape are words ("what lets
/// SMTP work"): a vowel, and no three consonants in a row.
fn reads_as_words(v: &[u8]) -> bool {
    let wordlike = |g: &[u8]| {
        let vowel = |b: &u8| b"aeiouyAEIOUY".contains(b);
        g.iter().any(vowel)
            && !g
                .windows(3)
                .any(|w| w.iter().all(|b| b.is_ascii_alphabetic() && !vowel(b)))
    };
    let groups: Vec<&[u8]> = v.split(|&b| b == b' ' || b == b'-').collect();
    groups.iter().filter(|g| wordlike(g)).count() * 4 >= groups.len() * 3
}

/// "I made a Gmail app password: abcd efgh ijkl mnop" (keyword `app
/// password` ending at `hit_end`): the groups of four after it.
pub(super) fn app_password(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    // "app password for the mailer: X": past a few words to the colon.
    let line = super::lex::line_end(text, hit_end, 48);
    let from = text[hit_end..line]
        .iter()
        .position(|&b| b == b':')
        .filter(|&c| !text[hit_end..hit_end + c].contains(&b'.'))
        .map_or(hit_end, |c| hit_end + c);
    // (One `s` of "passwords" right after the keyword, no more.)
    let from = if from == hit_end && text.get(from) == Some(&b's') {
        from + 1
    } else {
        from
    };
    let lead = super::lex::run(text, from, 8, |b| {
        matches!(b, b':' | b' ' | b'=' | b'"' | b'\'')
    });
    let start = if text[lead..].starts_with(b"is ") {
        lead + 3
    } else {
        lead
    };
    // Four to six groups: the longest that has the shape.
    let found = (4..=6)
        .rev()
        .map(|groups| start + groups * 5 - 1)
        .find(|&end| {
            end <= text.len()
                && !text.get(end).is_some_and(u8::is_ascii_alphanumeric)
                && super::generic::is_app_password(&text[start..end])
                && !reads_as_words(&text[start..end])
        });
    if let Some(end) = found {
        out.push(Finding {
            rule: "prose_secret",
            start,
            end,
        });
    }
}

/// The tickets of a Perforce `~/.p4tickets` file printed after its name
/// (keyword ending at `hit_end`): each `host:port=user:TICKET` line's
/// 32 hex digits.
pub(super) fn p4_tickets(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    const TICKET: usize = 32;
    let mut i = super::lex::skip_break(text, super::lex::line_end(text, hit_end, 512));
    for _ in 0..16 {
        let end = super::lex::line_end(text, i, 512);
        let line = &text[i..end];
        let ticket_at = line.len().checked_sub(TICKET);
        let shaped = ticket_at.is_some_and(|at| {
            at > 0
                && line[at - 1] == b':'
                && line[at..].iter().all(u8::is_ascii_hexdigit)
                && line[..at].contains(&b'=')
                && !line.contains(&b' ')
        });
        match ticket_at {
            Some(at) if shaped => out.push(Finding {
                rule: "cli_token",
                start: i + at,
                end,
            }),
            _ => return,
        }
        if end >= text.len() {
            return;
        }
        i = super::lex::skip_break(text, end);
    }
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
    fn discord_bare_needs_a_numeric_id() {
        let tok = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gx7kQ2.k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lx";
        let t = format!("client.run(\"{tok}\")");
        let mut out = Vec::new();
        discord_bare_token(t.as_bytes(), t.find('M').unwrap(), &mut out);
        assert_eq!(&t[out[0].start..out[0].end], tok);
        // Same shape, but the first part is base64 of letters.
        let other = "TWFyaWFubmVTY2hyb2VkZXJYWQ.Gx7kQ2.k2LmQ9xZ3pR7tW1vBc4Nd5Fe6Gh7Jk8Lx";
        out.clear();
        discord_bare_token(other.as_bytes(), 0, &mut out);
        assert!(out.is_empty());
        out.clear();
        discord_by_dots(t.as_bytes(), &mut out);
        assert_eq!(out.len(), 1);
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
