//! De-duplication of bullets across sessions: bullets that say the same thing
//! (same normalised key) become one entry that keeps the first wording and
//! lists every session supporting it, each session counted once.

use std::collections::HashMap;

/// One de-duplicated bullet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tallied {
    /// The first wording seen.
    pub text: String,
    /// The sessions supporting it (the caller's indices), in first-seen order, no repeats.
    pub members: Vec<usize>,
}

/// The comparison key of a bullet: lower-case words, every run of
/// punctuation and whitespace collapsed to one space.
pub fn norm_key(text: &str) -> String {
    words(text).join(" ")
}

/// The lower-case words of a text (runs of letters and digits).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Merges `(session, bullet)` pairs, in the order given, into de-duplicated entries
/// in first-seen order. Bullets with an empty key are dropped.
pub fn tally<'a>(items: impl IntoIterator<Item = (usize, &'a str)>) -> Vec<Tallied> {
    let mut out: Vec<Tallied> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (member, text) in items {
        let key = norm_key(text);
        if key.is_empty() {
            continue;
        }
        let slot = *index.entry(key).or_insert_with(|| {
            out.push(Tallied {
                text: text.to_string(),
                members: Vec::new(),
            });
            out.len() - 1
        });
        let entry = &mut out[slot];
        if !entry.members.contains(&member) {
            entry.members.push(member);
        }
    }
    out
}

/// `1 file`, `3 files`: `n` with the singular or plural noun.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `1 session`, `3 sessions`.
pub fn sessions_phrase(n: usize) -> String {
    count(n, "session", "sessions")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_case_punctuation_and_spacing() {
        assert_eq!(norm_key("Use  pnpm, not NPM!"), "use pnpm not npm");
        assert_eq!(
            norm_key("use pnpm - not npm"),
            norm_key("Use pnpm, not npm.")
        );
        assert_eq!(norm_key("..."), "");
    }

    #[test]
    fn keeps_the_first_wording_and_counts_each_session_once() {
        let t = tally([
            (0, "Use pnpm."),
            (0, "use pnpm"),
            (1, "USE PNPM"),
            (1, "run tests"),
            (2, "!!"),
        ]);
        assert_eq!(t.len(), 2);
        assert_eq!(
            t[0],
            Tallied {
                text: "Use pnpm.".into(),
                members: vec![0, 1]
            }
        );
        assert_eq!(t[1].members, [1]);
        assert_eq!(sessions_phrase(1), "1 session");
        assert_eq!(sessions_phrase(2), "2 sessions");
    }
}
