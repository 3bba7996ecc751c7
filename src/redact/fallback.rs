//! A secret-named environment variable read with a literal fallback:
//! Ruby's `ENV.fetch("SNYK_TOKEN") { "…" }` and `ENV.fetch("K", "…")`,
//! Python's `os.environ.get("K", "…")` and `os.getenv("K") or "…"`,
//! Laravel's `env('K', '…')`, PHP's `getenv('K') ?: '…'` and Rust's
//! `env::var("K").unwrap_or(…)` (Node's `process.env.K || '…'` is the
//! assignment rule's). The fallback is the secret itself, committed where
//! the variable is unset; a ternary's branch (`getenv('K') ? 'set' : …`) is not.

use super::lex::{Value, value_at};

/// How far before the name the lookup that reads it may start.
const LOOKUP_WINDOW: usize = 20;

/// How far after the name the fallback literal may start.
const FALLBACK_WINDOW: usize = 48;

/// How code reads an environment variable, lower case.
const LOOKUPS: &[&[u8]] = &[
    b"env.fetch(",
    b"env[",
    b"environ.get(",
    b"environ[",
    b"getenv(",
    b"env(",
    b"env::var(",
];

/// What may stand between the name and its fallback, besides blanks and
/// the punctuation of [`is_glue`].
const GLUE_WORDS: &[&[u8]] = &[b"unwrap_or_else", b"unwrap_or", b"or", b"_"];

fn is_glue(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b')' | b']' | b'}' | b'{' | b',' | b'|' | b'?' | b':' | b'(' | b'.'
    )
}

/// The fallback literal of the variable named at `name_start..name_end`,
/// when that name is read from the environment.
pub(super) fn env_fallback(text: &[u8], name_start: usize, name_end: usize) -> Option<Value> {
    let quote = |b: u8| matches!(b, b'"' | b'\'');
    let lookup_end = if name_start > 0 && quote(text[name_start - 1]) {
        name_start - 1
    } else {
        name_start
    };
    let before = &text[lookup_end.saturating_sub(LOOKUP_WINDOW)..lookup_end];
    let lower = before.to_ascii_lowercase();
    if !LOOKUPS.iter().any(|l| lower.ends_with(l)) {
        return None;
    }
    let after = name_end + usize::from(text.get(name_end).copied().is_some_and(quote));
    let limit = text.len().min(after + FALLBACK_WINDOW);
    let mut i = after;
    while i < limit {
        let b = text[i];
        if quote(b) {
            let glue = &text[after..i];
            let ternary =
                glue.contains(&b'?') && !glue.windows(2).any(|w| w == b"??" || w == b"?:");
            // Only a literal after something that joins it to the lookup.
            return (i > after && !ternary).then(|| value_at(text, i)).flatten();
        }
        if is_glue(b) {
            i += 1;
        } else if let Some(w) = GLUE_WORDS.iter().find(|w| text[i..].starts_with(w)) {
            i += w.len();
        } else {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fallback(line: &str, name: &str) -> Option<String> {
        let start = line.find(name).unwrap();
        env_fallback(line.as_bytes(), start, start + name.len())
            .map(|v| line[v.start..v.end].to_string())
    }

    #[test]
    fn literal_fallbacks_of_environment_lookups() {
        let v = Some("c9f78e09".to_string());
        for line in [
            r#"config.access_token = ENV.fetch("SNYK_TOKEN") { "c9f78e09" }"#,
            r#"token = ENV.fetch("SNYK_TOKEN", "c9f78e09")"#,
            r#"token = os.environ.get("SNYK_TOKEN", "c9f78e09")"#,
            r#"token = os.getenv('SNYK_TOKEN') or 'c9f78e09'"#,
            "$t = getenv('SNYK_TOKEN') ?: 'c9f78e09';",
            "'token' => env('SNYK_TOKEN', 'c9f78e09'),",
            r#"let t = env::var("SNYK_TOKEN").unwrap_or("c9f78e09".into());"#,
            r#"let t = env::var("SNYK_TOKEN").unwrap_or_else(|_| "c9f78e09".to_string());"#,
        ] {
            assert_eq!(fallback(line, "SNYK_TOKEN"), v, "{line}");
        }
    }

    #[test]
    fn no_fallback_without_a_lookup_or_with_code_between() {
        assert_eq!(
            fallback(r#"log("SNYK_TOKEN", "c9f78e09")"#, "SNYK_TOKEN"),
            None
        );
        assert_eq!(fallback(r#"ENV.fetch("SNYK_TOKEN")"#, "SNYK_TOKEN"), None);
        assert_eq!(
            fallback(
                "$s = getenv('SNYK_TOKEN') ? 'present' : 'missing';",
                "SNYK_TOKEN"
            ),
            None
        );
        assert_eq!(
            fallback(
                r#"ENV.fetch("SNYK_TOKEN") if ready("c9f78e09")"#,
                "SNYK_TOKEN"
            ),
            None
        );
    }
}
