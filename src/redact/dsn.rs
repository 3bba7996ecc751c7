//! Connection strings that are not URLs: Oracle's `user/password@…` (JDBC
//! thin, `sqlplus` and its siblings), Go MySQL DSNs (`user:password@tcp(…)`)
//! and `.pgpass` lines (`host:port:db:user:password`). Only the password goes.

use super::Finding;
use super::entropy::looks_like_password;
use super::lex::{contains, run, run_back};
use super::placeholders::is_harmless;

fn push(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let v = &text[start..end];
    if end > start && !is_harmless(v) && looks_like_password(v) {
        out.push(Finding {
            rule: "dsn_password",
            start,
            end,
        });
    }
}

/// A byte that ends a connection string in a log: blanks, quotes, escapes.
fn ends_dsn(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b'\\' | b'<' | b'>')
}

/// Oracle's `user/password` (then `@…` or the end of the argument) starting
/// at `from`; `"quoted"` passwords too. Returns the password's span.
pub(super) fn oracle_login(text: &[u8], from: usize, to: usize) -> Option<(usize, usize)> {
    let user_end = run(text, from, (to - from).min(128), |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'#')
    });
    if user_end == from
        || user_end + 1 >= to
        || !text[from].is_ascii_alphabetic()
        || text[user_end] != b'/'
    {
        return None;
    }
    let pw = user_end + 1;
    // `user/"password"@…`, also with the quotes escaped inside JSON.
    let quote = run(text, pw, (to - pw).min(4), |b| b == b'\\');
    if text.get(quote) == Some(&b'"') && quote + 1 < to {
        let close = run(text, quote + 1, (to - quote - 1).min(256), |b| b != b'"');
        let end = run_back(text, close, 4, |b| b == b'\\');
        return (close < to && end > quote + 1).then_some((quote + 1, end));
    }
    let end = run(text, pw, (to - pw).min(256), |b| b != b'@' && !ends_dsn(b));
    // A path (`a/b/c`) is not a login.
    (!contains(&text[pw..end], b"/")).then_some((pw, end))
}

/// `jdbc:oracle:thin:user/password@//host…` (keyword `thin:` at `hit_end`).
pub(super) fn oracle_thin(text: &[u8], hit: usize, hit_end: usize, out: &mut Vec<Finding>) {
    if hit < 7 || !text[hit - 7..hit].eq_ignore_ascii_case(b"oracle:") {
        return;
    }
    if let Some((s, e)) = oracle_login(text, hit_end, text.len())
        && text.get(e + usize::from(text.get(e) == Some(&b'"'))) == Some(&b'@')
    {
        push(text, s, e, out);
    }
}

/// Oracle's Easy Connect with a login, `user/password@//host:port/service`,
/// wherever it stands (keyword `@//` at `hit`; inside a JDBC URL the thin
/// rule finds the same password): the token before the `@` is the login.
pub(super) fn ez_connect(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    let start = run_back(text, hit, 256, |b| !ends_dsn(b) && b != b':' && b != b'=');
    if let Some((s, e)) = oracle_login(text, start, hit + 1)
        && e == hit
    {
        push(text, s, e, out);
    }
}

/// Go's MySQL DSN `user:password@tcp(host)/db` or `@unix(/sock)/db`
/// (keyword `tcp(` / `unix(` at `hit`, after the `@`).
pub(super) fn go_mysql(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if hit == 0 || text[hit - 1] != b'@' {
        return;
    }
    let at = hit - 1;
    // `DSN=user:pass@…`: the name is cut off at the user's `=`; the password
    // (after the first colon) may hold one.
    let start = run_back(text, at, 256, |b| !ends_dsn(b));
    if let Some(c) = text[start..at].iter().position(|&b| b == b':') {
        push(text, start + c + 1, at, out);
    }
}

/// The `.pgpass` lines (`host:port:database:user:password`) after a mention
/// of the file ending at `hit_end`.
pub(super) fn pgpass_after(text: &[u8], hit_end: usize, out: &mut Vec<Finding>) {
    let to = text.len().min(hit_end + 2048);
    let mut i = hit_end;
    while i < to {
        let line_end = super::lex::line_end(text, i, to - i);
        // Indentation and a transcript's tree marks (`  └ `) are not the line's.
        let start = run(text, i, line_end - i, |b| {
            b == b' ' || b == b'\t' || b >= 0x80
        });
        // A quote or an escape ends it too (`…:pw\",` in a tool's JSON output).
        let end = run(text, start, line_end - start, |b| !ends_dsn(b));
        pgpass_line(text, start, end, out);
        // Past the line end and its break (`\n`, `\r\n` or an escaped `\n`).
        i = super::lex::skip_break(text, line_end).max(line_end + 1);
    }
}

/// The `.pgpass` line holding PostgreSQL's port (`5432:` at `hit`, after
/// its colon).
pub(super) fn pgpass_at(text: &[u8], hit: usize, out: &mut Vec<Finding>) {
    if hit == 0 || text[hit - 1] != b':' {
        return;
    }
    let start = run_back(text, hit - 1, 256, |b| !ends_dsn(b) && b != b'=');
    let start = if super::lex::after_escape(text, start + 1) {
        start + 1
    } else {
        start
    };
    pgpass_line(text, start, run(text, hit, 256, |b| !ends_dsn(b)), out);
}

/// One `host:port:database:user:password` line at `start..end` (the port
/// a number or `*`): its password.
fn pgpass_line(text: &[u8], start: usize, end: usize, out: &mut Vec<Finding>) {
    let line = &text[start..end];
    if line.iter().any(|&b| b == b' ' || b == b'"') {
        return;
    }
    let colons: Vec<usize> = (0..line.len())
        .filter(|&k| line[k] == b':' && (k == 0 || line[k - 1] != b'\\'))
        .collect();
    if colons.len() != 4 {
        return;
    }
    let port = &line[colons[0] + 1..colons[1]];
    if port == b"*" || (!port.is_empty() && port.iter().all(u8::is_ascii_digit)) {
        push(text, start + colons[3] + 1, end, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str, f: impl Fn(&[u8], &mut Vec<Finding>)) -> Vec<&str> {
        let mut out = Vec::new();
        f(text.as_bytes(), &mut out);
        out.iter().map(|x| &text[x.start..x.end]).collect()
    }

    #[test]
    fn oracle_thin_logins() {
        let f = |t: &[u8], out: &mut Vec<Finding>| {
            let s = std::str::from_utf8(t).unwrap();
            let hit = s.find("thin:").unwrap();
            oracle_thin(t, hit, hit + 5, out)
        };
        assert_eq!(
            spans("url=jdbc:oracle:thin:scott/Tiger42x@//db:1521/ORCL", f),
            ["Tiger42x"]
        );
        assert_eq!(
            spans("jdbc:oracle:thin:app/\"P@ssw0rd!\"@db:1521:XE", f),
            ["P@ssw0rd!"]
        );
        assert!(spans("jdbc:oracle:thin:@//db:1521/ORCL", f).is_empty());
    }

    #[test]
    fn go_dsns_and_pgpass() {
        let f = |t: &[u8], out: &mut Vec<Finding>| {
            let s = std::str::from_utf8(t).unwrap();
            go_mysql(t, s.find("tcp(").or_else(|| s.find("unix(")).unwrap(), out)
        };
        assert_eq!(
            spans(
                r#"dsn := "app:Saffron77x@tcp(127.0.0.1:3306)/app?parseTime=true""#,
                f
            ),
            ["Saffron77x"]
        );
        assert_eq!(
            spans("DSN=root:p4ss:w0rd@unix(/tmp/mysql.sock)/db", f),
            ["p4ss:w0rd"]
        );
        assert!(spans("dsn := \"app@tcp(127.0.0.1:3306)/app\"", f).is_empty());
        let t = "$ cat ~/.pgpass\nlocalhost:5432:*:postgres:Harbor42x\n*:*:app:app:Quartz9!q\n";
        let g = |t: &[u8], out: &mut Vec<Finding>| pgpass_after(t, 15, out);
        assert_eq!(spans(t, g), ["Harbor42x", "Quartz9!q"]);
        let t = r#"{"content":"db.internal:5432:app:app:Harbor42x\nother"}"#;
        let h = |t: &[u8], out: &mut Vec<Finding>| {
            let p = std::str::from_utf8(t).unwrap().find("5432:").unwrap();
            pgpass_at(t, p, out)
        };
        assert_eq!(spans(t, h), ["Harbor42x"]);
        assert!(spans("jdbc:postgresql://db:5432:x", h).is_empty());
    }
}
