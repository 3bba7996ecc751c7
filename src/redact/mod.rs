//! The one redaction entry point: every byte that leaves for a model, lands in
//! the database or is written to the memory folder passes through [`redact`].
//!
//! This first version carries Codex's four rules (bearer tokens, `sk-` keys,
//! AWS key ids, secret assignments); the rule set is replaced wholesale by the
//! provider-aware redactor, behind the same functions.

use regex::Regex;
use std::borrow::Cow;
use std::sync::LazyLock;

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED_SECRET]";

/// One secret found in a text (byte offsets into the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Name of the rule that matched.
    pub rule: &'static str,
    /// Start of the replaced span in the input.
    pub start: usize,
    /// End of the replaced span in the input.
    pub end: usize,
}

struct Rule {
    name: &'static str,
    re: Regex,
    /// Capture group holding the secret (0: the whole match).
    group: usize,
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let rule = |name, pattern: &str, group| Rule {
        name,
        re: Regex::new(pattern).expect("valid redaction pattern"),
        group,
    };
    vec![
        rule(
            "bearer",
            r"(?i:\bBearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)",
            1,
        ),
        rule("openai_key", r"sk-[A-Za-z0-9]{20,}", 0),
        rule("aws_access_key_id", r"\bAKIA[0-9A-Z]{16}\b", 0),
        rule(
            "secret_assignment",
            r#"(?i)\b(?:api[_-]?key|token|secret|password)\b\s*[:=]\s*["']?([^\s"']{8,})"#,
            1,
        ),
    ]
});

/// Replaces every secret in `text` with [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_with_findings(text).0
}

/// Like [`redact`], also returning what was found (never the secret itself).
pub fn redact_with_findings(text: &str) -> (Cow<'_, str>, Vec<Finding>) {
    let mut spans: Vec<Finding> = Vec::new();
    for rule in RULES.iter() {
        for caps in rule.re.captures_iter(text) {
            if let Some(m) = caps.get(rule.group) {
                spans.push(Finding {
                    rule: rule.name,
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
    }
    if spans.is_empty() {
        return (Cow::Borrowed(text), spans);
    }
    spans.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut kept: Vec<Finding> = Vec::new();
    for f in spans {
        match kept.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => kept.push(f),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in &kept {
        out.push_str(&text[at..f.start]);
        out.push_str(REDACTED);
        at = f.end;
    }
    out.push_str(&text[at..]);
    (Cow::Owned(out), kept)
}

/// Redacts every text field of a transcript event.
pub fn redact_event(event: crate::sources::Event) -> crate::sources::Event {
    use crate::sources::Event;
    let fix = |s: String| match redact(&s) {
        Cow::Borrowed(_) => s,
        Cow::Owned(o) => o,
    };
    match event {
        Event::Message(mut m) => {
            m.text = fix(m.text);
            Event::Message(m)
        }
        Event::ToolCall(mut c) => {
            c.input = fix(c.input);
            c.output = c.output.map(fix);
            Event::ToolCall(c)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_cases() {
        assert_eq!(
            redact("Bearer abcde+fghijklmnopqrstuvwxyz012345"),
            "Bearer [REDACTED_SECRET]"
        );
        assert_eq!(
            redact("Bearer AbcdefghijklMN09._~+/-==; echo done"),
            "Bearer [REDACTED_SECRET]; echo done"
        );
        assert_eq!(redact("Bearer of good news"), "Bearer of good news");
        assert_eq!(redact("Bearer abcdefghijklmno"), "Bearer abcdefghijklmno");
        let json = r#"{"token":"sk-abcdefghijklmnopqrstuvwxyz123456"}"#;
        let out = redact(json);
        assert!(!out.contains("sk-abcdefghijklmnopqrstuvwxyz123456"));
        assert!(out.contains(REDACTED));
        assert_eq!(
            redact("key AKIAABCDEFGHIJKLMNOP here"),
            "key [REDACTED_SECRET] here"
        );
        assert_eq!(
            redact("password = hunter2hunter2"),
            "password = [REDACTED_SECRET]"
        );
    }

    #[test]
    fn findings_name_rules_not_secrets() {
        let (out, findings) = redact_with_findings("a sk-abcdefghijklmnopqrstuvwxyz b");
        assert_eq!(out, "a [REDACTED_SECRET] b");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].rule, "openai_key");
        assert_eq!((findings[0].start, findings[0].end), (2, 31));
    }
}
