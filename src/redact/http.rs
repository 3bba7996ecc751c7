//! Credentials in HTTP and URLs: `Authorization` headers (the scheme stays),
//! bare `Bearer` and `Basic` credentials, cookies, passwords and tokens in a
//! URL's user-info (user and host stay), signed-URL signatures and webhook
//! URLs (Slack, Discord, Microsoft Teams).

use super::Finding;
use super::codec::b64_decode_prefix;
use super::entropy::{is_hex, looks_random};
use super::lex::{
    alnum, b64, ends_bare, line_end, run, run_back, skip_blanks, starts_word, value_at, word,
};
use super::placeholders::is_harmless;

fn push(out: &mut Vec<Finding>, rule: &'static str, start: usize, end: usize) {
    if end > start {
        out.push(Finding { rule, start, end });
    }
}

/// After a header name: an optional closing quote (maybe escaped), then `:`
/// or `=` (or `,` between two quoted strings), then blanks. Returns the
/// value's region: a quoted string, or the rest of the line.
fn header_value(text: &[u8], name_start: usize, name_end: usize) -> Option<(usize, usize)> {
    let mut i = name_end;
    let slashes = run(text, i, 8, |b| b == b'\\') - i;
    let quoted_name = matches!(text.get(i + slashes), Some(b'"' | b'\''));
    if quoted_name {
        i += slashes + 1;
    }
    i = skip_blanks(text, i);
    let equals = text.get(i) == Some(&b'=');
    match text.get(i) {
        Some(b':') if text.get(i + 1) == Some(&b':') => return None,
        Some(b':' | b'=') => i += 1,
        Some(b',') if quoted_name && super::generic::opens_call(text, name_start) => i += 1,
        _ => return None,
    }
    i = skip_blanks(text, i);
    // `authorization = decode(x)` is code: after `=` only a quoted value counts.
    match value_at(text, i) {
        Some(v) if v.quoted => Some((v.start, v.end)),
        _ if equals => None,
        _ => Some((i, line_end(text, i, 4096))),
    }
}

/// Schemes whose credentials are a parameter list, redacted whole.
const PARAM_SCHEMES: &[&str] = &["digest", "aws4-hmac-sha256", "oauth", "hawk", "signature"];

/// `Authorization: <scheme> <credentials>` (also `Proxy-Authorization`, JSON
/// and escaped-JSON headers): the credentials go, the scheme stays.
pub(super) fn authorization(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if hit > 0 && (alnum(text[hit - 1]) || text[hit - 1] == b'_') {
        return;
    }
    if text.get(hit_end).is_some_and(|&b| word(b)) {
        return;
    }
    let Some((start, end)) = header_value(text, hit, hit_end) else {
        return;
    };
    let scheme_end = run(text, start, 40, |b| alnum(b) || b == b'-' || b == b'_');
    let spaced = scheme_end > start && matches!(text.get(scheme_end), Some(b' ' | b'\t'));
    let (cred_start, cred_end) = if spaced {
        let c = skip_blanks(text, scheme_end);
        let scheme = &text[start..scheme_end];
        if PARAM_SCHEMES
            .iter()
            .any(|s| s.as_bytes().eq_ignore_ascii_case(scheme))
        {
            (c, run_back(text, end, end - c, |b| b == b' ' || b == b'\t'))
        } else {
            (c, run(text, c, end - c, |b| !ends_bare(b) || b == b'&'))
        }
    } else {
        (start, run(text, start, end - start, |b| !ends_bare(b)))
    };
    let cred = &text[cred_start..cred_end];
    // Rails' `Token token="X"`: a parameter, whose value the assignment
    // rule takes (its name stays).
    if cred.len() < 5 || is_harmless(cred) || cred.eq_ignore_ascii_case(b"token=") {
        return;
    }
    if spaced {
        let s = super::entropy::Shape::of(cred);
        let plain_word = s.digit == 0 && s.other == 0 && (s.upper == 0 || s.lower == 0);
        if plain_word && cred.len() < 16 {
            return;
        }
    } else if !looks_random(cred) {
        return;
    }
    push(out, "authorization_header", cred_start, cred_end);
}

/// A URL query's `code=X` (keyword at `hit..hit_end`): an Azure Functions
/// key (`?code=…==`) or an OAuth authorization code, when X is 30 or more
/// random characters (`?code=200` and short ids stay).
pub(super) fn query_code(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if hit == 0 || !matches!(text[hit - 1], b'?' | b'&') {
        return;
    }
    let end = run(text, hit_end, 512, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'=' | b'%' | b'.' | b'~')
    });
    let v = &text[hit_end..end];
    if v.len() >= 30 && looks_random(v) && !is_harmless(v) {
        push(out, "url_query_code", hit_end, end);
    }
}

/// A standalone `Bearer <token>` (16+ token characters, as Codex's rule).
pub(super) fn bearer(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if !starts_word(text, hit) {
        return;
    }
    let start = skip_blanks(text, hit_end);
    if start == hit_end {
        return;
    }
    let core = run(text, start, 8192, |b| alnum(b) || b"._~+/-".contains(&b));
    let mut end = run(text, core, 8, |b| b == b'=');
    // Asana's personal access token: `2/<id>/<id>:<32 hex digits>`.
    if end == core && text.get(core) == Some(&b':') {
        let hex = run(text, core + 1, 33, |b| b.is_ascii_hexdigit());
        if hex - core - 1 == 32 {
            end = hex;
        }
    }
    let token = &text[start..end];
    // Lower-case words and dashes read as prose ("Bearer authentication-scheme").
    let prose = token.iter().all(|&b| b.is_ascii_lowercase() || b == b'-');
    if core - start < 16 || is_harmless(token) || prose {
        return;
    }
    push(out, "bearer_token", start, end);
}

/// A standalone `Basic <base64>` whose decoding is `user:password`.
pub(super) fn basic(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if !starts_word(text, hit) {
        return;
    }
    let start = skip_blanks(text, hit_end);
    if start == hit_end {
        return;
    }
    let core = run(text, start, 4096, b64);
    let end = run(text, core, 2, |b| b == b'=');
    if core - start < 8 || text.get(end).is_some_and(|&b| alnum(b)) {
        return;
    }
    let Some(plain) = b64_decode_prefix(&text[start..end], 512) else {
        return;
    };
    let printable = plain.iter().all(|b| (0x20..0x7f).contains(b));
    if printable && plain.iter().position(|&b| b == b':').is_some_and(|c| c > 0) {
        push(out, "basic_auth", start, end);
    }
}

/// `Cookie:` / `Set-Cookie:` headers and `--cookie` flags: each cookie value
/// goes (only the first pair of a `Set-Cookie`; the rest are attributes).
pub(super) fn cookie(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if hit > 0 && (alnum(text[hit - 1]) || text[hit - 1] == b'_') {
        return;
    }
    if text.get(hit_end).is_some_and(|&b| word(b)) {
        return;
    }
    let set = hit >= 4 && text[hit - 4..hit].eq_ignore_ascii_case(b"set-");
    let flag = hit >= 2 && &text[hit - 2..hit] == b"--";
    let region = if flag {
        let i = skip_blanks(text, hit_end);
        match value_at(text, i) {
            Some(v) if i > hit_end => Some((v.start, v.end)),
            _ => None,
        }
    } else {
        header_value(text, hit, hit_end)
    };
    let Some((start, end)) = region else {
        return;
    };
    if set {
        let first_end = run(text, start, end - start, |b| b != b';');
        cookie_values(text, start, first_end, out);
    } else {
        cookie_values(text, start, end, out);
    }
}

/// The value of every `name=value` pair of a cookie string in `start..end`.
pub(super) fn cookie_values(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let mut i = start;
    while i < end {
        let part_end = run(text, i, end - i, |b| b != b';');
        if let Some((v_start, v_end)) = cookie_pair(text, i, part_end) {
            push(out, "cookie", v_start, v_end);
        }
        i = part_end + 1;
    }
}

/// The cookies of a Netscape `cookies.txt` after its header (`hit_end`):
/// seven tab-separated fields (tabs possibly escaped), the last the value.
pub(super) fn cookie_jar(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 8192);
    let mut i = hit_end;
    while i < to {
        let end = super::lex::line_end(text, i, to - i);
        let line = &text[i..end];
        // Fields, split at real tabs or escaped `\t`.
        let mut fields: Vec<(usize, usize)> = Vec::new();
        let mut field_start = 0;
        let mut k = 0;
        while k < line.len() {
            let width = match super::lex::escape_at(line, k) {
                _ if line[k] == b'\t' => 1,
                Some((b't', width)) => width,
                _ => 0,
            };
            if width > 0 {
                fields.push((field_start, k));
                field_start = k + width;
                k += width;
            } else {
                k += 1;
            }
        }
        fields.push((field_start, line.len()));
        if let [.., (ns, ne), (vs, ve)] = fields[..]
            && fields.len() == 7
        {
            let (name, value) = (&line[ns..ne], &line[vs..ve]);
            let credential = looks_random(value)
                || (value.len() >= 16 && super::generic::classify(name).is_some());
            if value.len() >= 8 && credential && !is_harmless(value) {
                push(out, "cookie", i + vs, i + ve);
            }
        }
        i = super::lex::skip_break(text, end).max(end + 1);
    }
}

/// The value of one `name=value` cookie pair in `start..end`: a token name,
/// no blanks around `=`, a value of cookie characters (optionally quoted)
/// of five or more, and nothing but blanks after it.
fn cookie_pair(text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    let name = skip_blanks(text, start);
    let eq = run(text, name, end - name, |b| alnum(b) || b"_.-".contains(&b));
    if eq == name || text.get(eq) != Some(&b'=') || eq >= end {
        return None;
    }
    let quoted = text.get(eq + 1) == Some(&b'"');
    let v_start = eq + 1 + usize::from(quoted);
    let v_end = run(text, v_start, end.saturating_sub(v_start), |b| {
        alnum(b) || b"!#$%&'*+-./:=?@^_`|~".contains(&b)
    });
    let rest = v_end + usize::from(quoted && text.get(v_end) == Some(&b'"'));
    let tail_blank = text[rest.min(end)..end]
        .iter()
        .all(|&b| b == b' ' || b == b'\t');
    let v = &text[v_start..v_end];
    // A preference (`theme=dark`, `lang=en-US`) is not a credential: the
    // value must look generated, or be long under a session cookie's name.
    let credential =
        looks_random(v) || (v.len() >= 16 && super::generic::classify(&text[name..eq]).is_some());
    (tail_blank && v.len() >= 8 && credential && !is_harmless(v)).then_some((v_start, v_end))
}

/// `scheme://user:password@host`: the password goes, user and host stay. A
/// user-info that is itself a token (Sentry DSN keys, `https://<token>@…`)
/// goes too.
pub(super) fn url_userinfo(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let scheme = run_back(text, hit, 32, |b| alnum(b) || b"+.-".contains(&b));
    if scheme == hit || !text[scheme].is_ascii_alphabetic() {
        return;
    }
    let a = hit + 3;
    let auth_end = run(text, a, 512, |b| {
        !matches!(
            b,
            b'/' | b'?'
                | b'#'
                | b' '
                | b'\t'
                | b'\r'
                | b'\n'
                | b'"'
                | b'\''
                | b'<'
                | b'>'
                | b'\\'
                | b'`'
                | b'('
                | b')'
                | b'|'
        )
    });
    // A typed password may hold `#` or `?` (`https://ci:d2d_da#1HEM…@pypi…`):
    // when the user-info stops there with a user and no `@` yet, it runs on
    // to an `@` that comes before any `/` or blank.
    // (Not a port's digits, `localhost:3000?email=a@b`, nor a query: no
    // `=` or `&` before that `@`.)
    let mut auth_end = auth_end;
    let after_colon = text[a..auth_end]
        .iter()
        .rposition(|&b| b == b':')
        .map(|c| &text[a + c + 1..auth_end]);
    if matches!(text.get(auth_end), Some(b'#' | b'?'))
        && after_colon.is_some_and(|p| !p.is_empty() && !p.iter().all(u8::is_ascii_digit))
        && !text[a..auth_end].contains(&b'@')
    {
        let longer = run(text, auth_end, 256, |b| {
            !b.is_ascii_whitespace() && !b"/\"'<>\\`()|".contains(&b)
        });
        if let Some(at) = text[auth_end..longer].iter().position(|&b| b == b'@')
            && !text[auth_end..auth_end + at]
                .iter()
                .any(|&b| b == b'=' || b == b'&')
        {
            auth_end = longer;
        }
    }
    let Some(at) = text[a..auth_end]
        .iter()
        .rposition(|&b| b == b'@')
        .map(|p| a + p)
    else {
        return;
    };
    let info = &text[a..at];
    // Brackets only appear in documentation syntax (`[user[:password]@]`).
    if info.contains(&b'[') || info.contains(&b']') {
        return;
    }
    if let Some(c) = info.iter().position(|&b| b == b':') {
        let pw = &info[c + 1..];
        if !pw.is_empty() && !is_harmless(pw) {
            push(out, "url_password", a + c + 1, at);
        }
    } else if !is_harmless(info)
        && !sentry_public_key(text, info, at, auth_end)
        && ((info.len() == 32 && is_hex(info)) || (info.len() >= 20 && looks_random(info)))
    {
        push(out, "url_token", a, at);
    }
}

/// A Sentry DSN's key (`https://<32 hex>@o1.ingest.sentry.io/42`): public by
/// design (it ships in every browser bundle). Known by a Sentry host or by
/// the DSN's shape, a numeric project id as the whole path.
fn sentry_public_key(text: &[u8], info: &[u8], at: usize, host_end: usize) -> bool {
    if info.len() != 32 || !is_hex(info) {
        return false;
    }
    let host = &text[at + 1..host_end];
    let path_end = run(text, host_end, 32, |b| {
        b != b'"' && b != b'\'' && !b.is_ascii_whitespace()
    });
    let path = &text[host_end..path_end];
    super::lex::contains_ci(host, b"sentry")
        || (path.len() > 1 && path[0] == b'/' && path[1..].iter().all(u8::is_ascii_digit))
}

/// Query-string signatures: Azure SAS `sig=`, `X-Amz-Signature=`,
/// `X-Goog-Signature=`.
pub(super) fn url_signature(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let ok_before = hit == 0
        || matches!(text[hit - 1], b'?' | b'&' | b';')
        || (text[hit - 1] == b'-' && hit_end - hit > 4);
    if !ok_before {
        return;
    }
    let end = run(text, hit_end, 1024, |b| alnum(b) || b"%+/=_-".contains(&b));
    let v = &text[hit_end..end];
    if v.len() >= 16 && !is_harmless(v) {
        push(out, "url_signature", hit_end, end);
    }
}

/// `hooks.slack.com/services/…` (also workflows and triggers): the path goes.
pub(super) fn slack_webhook(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let rest = &text[hit_end..];
    let Some(kind) = ["services/", "workflows/", "triggers/"]
        .iter()
        .find(|k| rest.starts_with(k.as_bytes()))
    else {
        return;
    };
    let start = hit_end + kind.len();
    let end = run(text, start, 512, |b| word(b) || b == b'/');
    if end - start >= 20 && !is_harmless(&text[start..end]) {
        push(out, "slack_webhook", start, end);
    }
}

/// `discord.com/api/webhooks/<id>/<token>`: the token goes.
pub(super) fn discord_webhook(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    let host = &text[hit.saturating_sub(40)..hit];
    if !super::lex::contains_ci(host, b"discord") {
        return;
    }
    let id_end = run(text, hit_end, 24, |b| b.is_ascii_digit());
    if id_end - hit_end < 5 || text.get(id_end) != Some(&b'/') {
        return;
    }
    let start = id_end + 1;
    let end = run(text, start, 256, word);
    if end - start >= 40 && !is_harmless(&text[start..end]) {
        push(out, "discord_webhook", start, end);
    }
}

/// `….webhook.office.com/webhookb2/…`: everything after `webhookb2/` goes.
pub(super) fn teams_webhook(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let end = run(text, hit_end, 512, |b| word(b) || b"@/.".contains(&b));
    if end - hit_end >= 40 && !is_harmless(&text[hit_end..end]) {
        push(out, "teams_webhook", hit_end, end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(
        text: &str,
        kw: &str,
        f: impl Fn(&[u8], usize, usize, &mut Vec<Finding>),
    ) -> Vec<String> {
        let lower = text.to_ascii_lowercase();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(p) = lower[from..].find(kw) {
            f(text.as_bytes(), from + p, from + p + kw.len(), &mut out);
            from += p + 1;
        }
        out.iter()
            .map(|f| text[f.start..f.end].to_string())
            .collect()
    }

    #[test]
    fn authorization_keeps_scheme() {
        let a = |t: &str| all(t, "authorization", authorization);
        assert_eq!(
            a("Authorization: Bearer a8Fk2LmQ9xZ3pR7t"),
            ["a8Fk2LmQ9xZ3pR7t"]
        );
        assert_eq!(
            a("authorization: bEaReR\tabcdefghijklmnop"),
            ["abcdefghijklmnop"]
        );
        assert_eq!(
            a(r#"{"Authorization": "token a8Fk2LmQ9xZ3"}"#),
            ["a8Fk2LmQ9xZ3"]
        );
        assert_eq!(
            a(r#"-H \"Authorization: Basic dXNlcjpwYXNz\" x"#),
            ["dXNlcjpwYXNz"]
        );
        assert_eq!(
            a(r#".header("Authorization", "Bot MTk4Nj.Abc12.xyz")"#),
            ["MTk4Nj.Abc12.xyz"]
        );
        assert_eq!(
            a("Authorization: AWS4-HMAC-SHA256 Credential=AKID7/2024, Signature=6629fae4  "),
            ["Credential=AKID7/2024, Signature=6629fae4"]
        );
        // Rails' token scheme: the assignment rule takes the parameter's value.
        assert!(a(r#"Authorization: Token token="a8Fk2LmQ9xZ3pR7t""#).is_empty());
        assert!(a("Authorization: Bearer $TOKEN").is_empty());
        assert!(a("Authorization: Bearer <token>").is_empty());
        assert!(a("Authorization: the process of checking").is_empty());
        assert!(a("authorization_code flow").is_empty());
        assert!(a("param3: *mut super::Authorization::UI::ISecurityInformation").is_empty());
        assert!(a("authorization = base64.decodebytes(authorization)").is_empty());
    }

    #[test]
    fn bearer_and_basic() {
        let b = |t: &str| all(t, "bearer", bearer);
        assert_eq!(
            b("Bearer abcde+fghijklmnopqrstuvwxyz012345"),
            ["abcde+fghijklmnopqrstuvwxyz012345"]
        );
        assert_eq!(
            b("Bearer AbcdefghijklMN09._~+/-==; echo"),
            ["AbcdefghijklMN09._~+/-=="]
        );
        assert!(b("Bearer of good news").is_empty());
        assert!(b("Bearer abcdefghijklmno").is_empty());
        assert!(b("NotABearer abcdefghijklmnop").is_empty());
        assert!(b("Bearerabcdefghijklmnop").is_empty());
        assert!(b("Bearer\nabcdefghijklmnop").is_empty());
        assert!(b("Bearer\u{a0}abcdefghijklmnop").is_empty());
        assert!(b("Bearer abcdefghijklmno\u{212a}").is_empty());
        let s = |t: &str| all(t, "basic", basic);
        assert_eq!(s("Basic dXNlcjpwYXNzd29yZA=="), ["dXNlcjpwYXNzd29yZA=="]);
        assert!(s("Basic usage of the tool").is_empty());
        assert!(s("Basic SGVsbG8gd29ybGQ=").is_empty());
    }

    #[test]
    fn cookies() {
        let c = |t: &str| all(t, "cookie", cookie);
        assert_eq!(c("Cookie: session=a8Fk2LmQ9x; theme=dark"), ["a8Fk2LmQ9x"]);
        assert_eq!(
            c("Set-Cookie: sid=a8Fk2LmQ9x; Path=/; HttpOnly"),
            ["a8Fk2LmQ9x"]
        );
        assert_eq!(c("curl --cookie \"sid=a8Fk2LmQ9x\" x"), ["a8Fk2LmQ9x"]);
        assert!(c("Cookie: a small piece of data").is_empty());
        assert!(c("cookies are stored").is_empty());
        assert!(c("let cookie: Cookie = Cookie::build((\"name\", \"value\"))").is_empty());
        assert!(c("const COOKIE: &AsciiSet = &USERINFO").is_empty());
        assert!(c("cookie::Expiration::Session => CookieExpiration::SessionEnd,").is_empty());
    }

    #[test]
    fn urls() {
        let u = |t: &str| all(t, "://", |t, s, _, o| url_userinfo(t, s, o));
        assert_eq!(u("postgres://app:s3cr3t@db:5432/x"), ["s3cr3t"]);
        assert_eq!(u("redis://:p%40ss@cache:6379"), ["p%40ss"]);
        assert_eq!(u("mongodb://u:p@ss@h1,h2/db"), ["p@ss"]);
        // A Sentry DSN's key is public; a legacy DSN's secret is not.
        assert!(u("https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2").is_empty());
        assert!(u("https://0123456789abcdef0123456789abcdef@errors.example.com/42").is_empty());
        assert_eq!(
            u("https://0123456789abcdef0123456789abcdef:9f3c2a1b8e7d@sentry.io/2"),
            ["9f3c2a1b8e7d"]
        );
        assert_eq!(
            u("https://0123456789abcdef0123456789abcdef@git.example.com/org/repo.git"),
            ["0123456789abcdef0123456789abcdef"]
        );
        assert!(u("https://example.com/a@b").is_empty());
        assert!(u("ssh://git@github.com/x").is_empty());
        assert!(u("postgres://user:password@localhost/db").is_empty());
        assert!(u("postgres://user:${DB_PASSWORD}@db/x").is_empty());
        assert!(u("postgres://app:[REDACTED_SECRET]@db/x").is_empty());
        assert!(u("`[protocol://][user[:password]@]proxyhost[:port]`").is_empty());
    }

    #[test]
    fn signatures_and_webhooks() {
        let s = |t: &str| all(t, "sig=", url_signature);
        assert_eq!(
            s("?sv=2022&sig=AbC%2Bdef123456789XYZ%3D&se=1"),
            ["AbC%2Bdef123456789XYZ%3D"]
        );
        assert!(s("config sig=abc").is_empty());
        let x = |t: &str| all(t, "signature=", url_signature);
        assert_eq!(
            x("&X-Amz-Signature=0123456789abcdef0123"),
            ["0123456789abcdef0123"]
        );
        assert!(x("signature=inspect.signature(f)").is_empty());
        let k = |t: &str| all(t, "hooks.slack.com/", |t, _, e, o| slack_webhook(t, e, o));
        assert_eq!(
            k("https://hooks.slack.com/services/T0A1B2C3D/B0A1B2C3D/a8Fk2LmQ9xZ3pR7tW1vB"),
            ["T0A1B2C3D/B0A1B2C3D/a8Fk2LmQ9xZ3pR7tW1vB"]
        );
        assert!(k("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX").is_empty());
    }
}
