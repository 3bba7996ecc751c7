//! Preferences and corrections the human stated, found sentence by sentence.
//!
//! A sentence is a standing preference when it is phrased as a rule ("always
//! …", "never …", "don't …", "use X, not Y", "we use X here", "from now on …",
//! "remember: …", "make sure …", "stop …", "I prefer …") or corrects the agent
//! ("no, …", "that's wrong …", "actually, …"). A one-off request ("show me the
//! plan first") only counts when the human makes it in two or more messages.
//! Questions, slash commands, code, quoted text and pasted logs never count;
//! long pasted task specifications only count through explicit rule words.

use crate::util::text::one_line;
use regex::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Longest preference statement kept, in characters.
const MAX_STATEMENT: usize = 200;
/// Longest evidence quote, in characters.
const MAX_EVIDENCE: usize = 120;
/// Most preferences reported for one session.
const MAX_PREFERENCES: usize = 8;
/// Longest sentence considered as a repeated one-off request.
const MAX_REPEATED_CHARS: usize = 150;

/// What made a sentence a preference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// "use X, not Y" / "use X instead of Y" / "prefer X over Y".
    UseInstead {
        /// What to use.
        preferred: String,
        /// What not to use.
        rejected: String,
    },
    /// "always …".
    Always,
    /// "never …", "don't …", "avoid …".
    Never,
    /// A rule about how to work here: "from now on", "remember", "we use",
    /// "in this repo", "by default", "every time", "please use", "you must".
    Rule,
    /// "I prefer …", "I'd rather …".
    Prefer,
    /// "make sure …", "ensure …".
    MakeSure,
    /// "stop …ing".
    Stop,
    /// "no, …", "that's wrong", "actually, …", "I never said …".
    Correction,
    /// The same request in two or more human messages.
    Repeated,
}

/// A preference or correction in the human's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Preference {
    /// The rule, in the user's wording (≤ 200 characters).
    pub statement: String,
    /// A verbatim quote that shows it (≤ 120 characters, no double quotes).
    pub evidence: String,
    /// What made it a preference.
    pub kind: Kind,
}

impl Preference {
    /// What the preference means as a default for future work in `project`.
    pub(crate) fn implication(&self, project: &str) -> String {
        match &self.kind {
            Kind::UseInstead {
                preferred,
                rejected,
            } => {
                format!("use `{preferred}` instead of `{rejected}` by default in {project}")
            }
            Kind::Always => "do this by default in future work".to_string(),
            Kind::Never => "avoid this unless the user asks for it".to_string(),
            Kind::Rule => format!("treat this as a standing rule in {project}"),
            Kind::Prefer => "follow this preference by default".to_string(),
            Kind::MakeSure => "check this before reporting work as done".to_string(),
            Kind::Stop => "do not repeat the behaviour the user stopped".to_string(),
            Kind::Correction => {
                "the user corrected the agent; follow the corrected approach next time".to_string()
            }
            Kind::Repeated => {
                "the user asked for this more than once; do it without being asked".to_string()
            }
        }
    }
}

/// A sentence of a human message with where it came from.
#[derive(Debug, Clone)]
struct Sentence {
    /// The sentence as written (trimmed, list marker removed).
    text: String,
    /// Index of the human message.
    message: usize,
    /// Index within the message.
    index: usize,
    /// Whether the message reads like a pasted specification.
    spec: bool,
}

static CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:no|nope|wrong)\s*[,.!:;—–-]\s*\S|(?:that'?s|that is|this is|it'?s) (?:wrong|not right|incorrect|not what)|actually,|i (?:never|didn'?t|did not) (?:said|say|ask|asked|want|wanted|tell|told)|not what i (?:asked|meant|wanted))",
    )
    .expect("valid regex")
});

static POLITE_NO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^no\W+(?:thanks|thank you|problem|worries|that'?s (?:fine|ok|okay|good)|all good|it'?s (?:fine|ok))")
        .expect("valid regex")
});

static USE_INSTEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:us(?:e|ing)|prefer|run(?: \w+)? with)\s+(?P<p>`[^`]+`|[^\s,.;!?`]+(?:\s+[^\s,.;!?`]+)?)\s*,?\s+(?:and\s+)?(?:not|never|instead of|rather than|over)\s+(?P<r>`[^`]+`|[^\s,.;!?`]+(?:\s+[^\s,.;!?`]+)?)",
    )
    .expect("valid regex")
});

static META: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:from now on|going forward|in the future|from here on|every time|each time|whenever|by default)\b|^remember\b|\bremember\s*[:,]|\bremember (?:that|to)\b|\bin this (?:repo|repository|project|codebase|workspace)\b|\bwe(?:'re| are)? (?:use|using|prefer|run|always|never|don'?t|do not)\b|^please\s+(?:use|keep|stick (?:to|with)|prefer)\b|^you (?:have to|must|need to always|should always|should never)\b",
    )
    .expect("valid regex")
});

static PREFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bi(?:'d| would)? (?:prefer|rather)\b").expect("valid regex")
});

static ALWAYS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\balways\b").expect("valid regex"));

static NEVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bnever\b|^(?:please\s+)?(?:don'?t|do not|dont|avoid)\b").expect("valid regex")
});

static MAKE_SURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|,\s*)(?:please\s+)?(?:make sure|ensure)\b").expect("valid regex")
});

static STOP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:please\s+)?stop\s+\w+ing\b").expect("valid regex"));

static QUESTION_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:why|what|how|where|who|which|is|are|does|did|can|could|would|will|shall|do you|do we|should we|should i)\b",
    )
    .expect("valid regex")
});

/// Verbs that open a request to change the product: "always"/"never"/"by
/// default" after them describe the product, not how to work.
static FEATURE_REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:add|remove|delete|create|implement|build|show|display|hide|render|rename|move|refactor|update|write|change|set|enable|disable|put|insert|include|allow|give|let|make (?:the|it|a|an)\b)\b",
    )
    .expect("valid regex")
});

/// A stack frame or a `file:line` log line.
static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:at\s+\S+\s*\(|\S+\.\w+:\d+|\S+Error:|\{|\[\w+\]|\d{4}-\d\d-\d\d)")
        .expect("valid regex")
});

/// Leading words that carry no meaning for the rules.
const FILLERS: &[&str] = &[
    "ok", "okay", "also", "and", "but", "so", "then", "yes", "yeah", "hey", "oh", "well", "now",
    "alright", "great", "thanks", "cool", "hmm", "btw", "fyi", "or", "wait",
];

/// Abbreviations whose dot does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "approx", "cf", "eg", "ie", "fig"];

/// Words too common to identify a request.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "did", "do", "does", "doing", "done", "dont", "down", "each", "else", "for",
    "from", "get", "go", "got", "had", "has", "have", "having", "he", "her", "here", "him", "his",
    "how", "i", "if", "im", "in", "into", "is", "it", "its", "just", "let", "lets", "like", "make",
    "me", "more", "most", "my", "need", "no", "not", "now", "of", "off", "ok", "okay", "on",
    "once", "one", "only", "or", "other", "our", "out", "over", "please", "same", "she", "should",
    "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "try", "under", "until", "up", "us", "use", "very",
    "want", "was", "we", "were", "what", "when", "where", "which", "while", "who", "why", "will",
    "with", "would", "yes", "you", "your", "thats", "its", "can't", "cant", "wont", "still",
    "there", "way", "thing", "things", "also", "well", "really", "see", "look",
];

/// Whether a word is a stop word.
pub(crate) fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.contains(&w)
}

/// Finds the preferences and corrections in the human messages (in order).
pub(crate) fn preferences(messages: &[&str]) -> Vec<Preference> {
    let sentences: Vec<Sentence> = messages
        .iter()
        .enumerate()
        .flat_map(|(i, m)| message_sentences(i, m))
        .collect();
    let mut found: Vec<((usize, usize), Preference)> = Vec::new();
    let mut taken: Vec<bool> = vec![false; sentences.len()];
    for (n, s) in sentences.iter().enumerate() {
        if let Some((kind, statement)) = rule_kind(&s.text, s.spec) {
            taken[n] = true;
            found.push((
                (s.message, s.index),
                Preference {
                    statement: clip(&statement, MAX_STATEMENT),
                    evidence: quote(&s.text),
                    kind,
                },
            ));
        }
    }
    for (first, other) in repeated_requests(&sentences, &taken) {
        let (a, b) = (&sentences[first], &sentences[other]);
        let (short, long) = if b.text.chars().count() < a.text.chars().count() {
            (b, a)
        } else {
            (a, b)
        };
        found.push((
            (a.message, a.index),
            Preference {
                statement: clip(&short.text, MAX_STATEMENT),
                evidence: quote(&long.text),
                kind: Kind::Repeated,
            },
        ));
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<Preference> = Vec::new();
    for (_, p) in found {
        let key = normalise(&p.statement);
        if !out.iter().any(|q| normalise(&q.statement) == key) {
            out.push(p);
        }
        if out.len() == MAX_PREFERENCES {
            break;
        }
    }
    out
}

/// The prose of a human message: its sentences without code, quotes,
/// headings and pasted logs (nothing for slash commands).
pub(crate) fn prose(text: &str) -> Vec<String> {
    message_sentences(0, text)
        .into_iter()
        .map(|s| s.text)
        .collect()
}

/// The sentences of one human message worth looking at.
fn message_sentences(message: usize, text: &str) -> Vec<Sentence> {
    let t = text.trim();
    if is_slash_command(t) || t.starts_with("[REDACTED") {
        return Vec::new();
    }
    let spec = is_spec_like(t);
    let mut out = Vec::new();
    let mut in_code = false;
    for raw in t.lines() {
        let line = raw.trim();
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || line.starts_with('#') || line.starts_with('>') || line.starts_with('|') {
            continue;
        }
        let line = strip_list_marker(line);
        if line.is_empty() || LOG_LINE.is_match(line) {
            continue;
        }
        for s in split_sentences(line) {
            out.push(Sentence {
                text: s,
                message,
                index: out.len(),
                spec,
            });
        }
    }
    out
}

/// Whether a message is a slash command (`/review`, `/orchestrator build …`).
fn is_slash_command(t: &str) -> bool {
    let mut chars = t.chars();
    chars.next() == Some('/')
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && !t.split_whitespace().next().unwrap_or("").contains('.')
}

/// Whether a message reads like a pasted specification (long, with headings
/// or many lines) rather than something the human said.
fn is_spec_like(t: &str) -> bool {
    let lines = t.lines().filter(|l| !l.trim().is_empty()).count();
    let headings = t
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .count();
    t.len() > 1000 && (headings >= 2 || lines >= 8)
}

/// Removes `- `, `* `, `• `, `1. `, `1) ` from the start of a line.
fn strip_list_marker(line: &str) -> &str {
    let l = line.trim_start_matches(['-', '*', '•', '\u{2022}', '\t', ' ']);
    let digits = l.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits < 3 {
        let rest = &l[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    l.trim()
}

/// Splits a line into sentences at `.`, `!` or `?` followed by a space.
fn split_sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_code = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        if c == '`' {
            in_code = !in_code;
        }
        let at_end = chars.peek().is_none_or(|n| n.is_whitespace());
        if !in_code && matches!(c, '.' | '!' | '?') && at_end && chars.peek().is_some() {
            let word = cur
                .trim_end_matches(['.', '!', '?'])
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if c == '.' && (ABBREVIATIONS.contains(&word.as_str()) || word.is_empty()) {
                continue;
            }
            push_sentence(&mut cur, &mut out);
        }
    }
    push_sentence(&mut cur, &mut out);
    out
}

fn push_sentence(cur: &mut String, out: &mut Vec<String>) {
    let s = cur.trim();
    if !s.is_empty() {
        out.push(s.to_string());
    }
    cur.clear();
}

/// The sentence without leading filler words ("ok, so …"), curly quotes straightened.
fn without_fillers(sentence: &str) -> String {
    let mut s = sentence.replace(['\u{2019}', '\u{2018}'], "'");
    loop {
        let first = s.split_whitespace().next().unwrap_or("");
        let word = first
            .trim_end_matches([',', ':', '.', '!'])
            .to_ascii_lowercase();
        if first.is_empty() || !FILLERS.contains(&word.as_str()) {
            break;
        }
        s = s.trim_start()[first.len()..].trim_start().to_string();
    }
    s
}

/// Whether a sentence is a rule or a correction, and the statement to keep.
fn rule_kind(sentence: &str, spec: bool) -> Option<(Kind, String)> {
    if sentence.trim_end().ends_with('?') || sentence.split_whitespace().count() < 3 {
        return None;
    }
    let s = without_fillers(sentence);
    // Rule words inside `code` are code, not rules; masking keeps byte offsets.
    let m = mask_code(&s);
    if QUESTION_START.is_match(&m) {
        return None;
    }
    if !spec && CORRECTION.is_match(&m) && !POLITE_NO.is_match(&m) {
        return Some((Kind::Correction, s));
    }
    if let Some(c) = USE_INSTEAD.captures(&s)
        && let Some(kind) = use_instead(&c)
    {
        let at = c.get(0).map_or(0, |m| m.start());
        return Some((kind, focus_clause(&s, at)));
    }
    if let Some(p) = PREFER.find(&m) {
        return Some((Kind::Prefer, focus_clause(&s, p.start())));
    }
    let feature = FEATURE_REQUEST.is_match(&m);
    if let Some(r) = META.find(&m) {
        let by_default = r.as_str().eq_ignore_ascii_case("by default");
        if !(feature && by_default) {
            return Some((Kind::Rule, focus_clause(&s, r.start())));
        }
    }
    if feature {
        return None;
    }
    if let Some(r) = NEVER.find(&m) {
        return Some((Kind::Never, focus_clause(&s, r.start())));
    }
    if let Some(r) = ALWAYS.find(&m) {
        return Some((Kind::Always, focus_clause(&s, r.start())));
    }
    if spec {
        return None;
    }
    if let Some(r) = MAKE_SURE.find(&m) {
        return Some((Kind::MakeSure, focus_clause(&s, r.start())));
    }
    if STOP.is_match(&m) {
        return Some((Kind::Stop, s));
    }
    None
}

/// `s` with the inside of every `code span` replaced by `x` (same byte length).
fn mask_code(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    for c in s.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(c);
        } else if in_code {
            out.extend(std::iter::repeat_n('x', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// The "use X, not Y" kind, unless Y is no tool ("instead of their …").
fn use_instead(c: &regex::Captures<'_>) -> Option<Kind> {
    const DETERMINERS: &[&str] = &[
        "the", "a", "an", "their", "his", "her", "its", "my", "our", "your", "this", "that",
        "these", "those", "it", "them", "just", "only",
    ];
    let rejected = tool_name(&c["r"]);
    let first = rejected
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    if rejected.is_empty() || DETERMINERS.contains(&first.as_str()) {
        return None;
    }
    Some(Kind::UseInstead {
        preferred: tool_name(&c["p"]),
        rejected,
    })
}

/// A tool named in "use X, not Y": backticks and trailing stop words removed
/// (`pnpm here` → `pnpm`).
fn tool_name(captured: &str) -> String {
    if captured.starts_with('`') {
        return captured.trim_matches('`').to_string();
    }
    let mut words: Vec<&str> = captured.split_whitespace().collect();
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| is_stop_word(&w.to_lowercase()))
    {
        words.pop();
    }
    words.join(" ")
}

/// The clause of `s` that holds the rule word at `at`: text before a dash,
/// semicolon or ", and" that comes before it is dropped.
fn focus_clause(s: &str, at: usize) -> String {
    const BOUNDARIES: &[&str] = &[" — ", " – ", " - ", "; ", ", and ", ", but ", ", so "];
    let start = BOUNDARIES
        .iter()
        .filter_map(|b| s[..at].rfind(b).map(|i| i + b.len()))
        .max()
        .unwrap_or(0);
    let clause = s[start..].trim();
    let clause = clause
        .strip_prefix("and ")
        .or_else(|| clause.strip_prefix("but "))
        .unwrap_or(clause);
    if clause.split_whitespace().count() < 3 {
        s.to_string()
    } else {
        clause.to_string()
    }
}

/// Pairs of sentences (first occurrence, a later one) that repeat the same
/// one-off request in different human messages: the same normalised sentence
/// or the same run of three significant words.
fn repeated_requests(sentences: &[Sentence], taken: &[bool]) -> Vec<(usize, usize)> {
    let candidates: Vec<usize> = (0..sentences.len())
        .filter(|&n| {
            let s = &sentences[n];
            !taken[n]
                && !s.spec
                && !s.text.trim_end().ends_with('?')
                && s.text.chars().count() <= MAX_REPEATED_CHARS
                && s.text.split_whitespace().count() >= 3
                && !QUESTION_START.is_match(&without_fillers(&s.text))
        })
        .collect();
    // key → sentences carrying it, in order; BTreeMap keeps the output stable.
    let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &n in &candidates {
        let words = content_words(&sentences[n].text);
        if words.len() < 2 {
            continue;
        }
        let mut keys = vec![format!("s:{}", normalise(&sentences[n].text))];
        keys.extend(words.windows(3).map(|w| format!("k:{}", w.join(" "))));
        keys.dedup();
        for k in keys {
            by_key.entry(k).or_default().push(n);
        }
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    let mut groups: Vec<&Vec<usize>> = by_key.values().collect();
    groups.sort_by_key(|g| g[0]);
    for group in groups {
        let first = group[0];
        let other = group
            .iter()
            .copied()
            .find(|&n| sentences[n].message != sentences[first].message);
        if let Some(other) = other
            && !used.contains(&first)
            && !used.contains(&other)
        {
            used.extend([first, other]);
            pairs.push((first, other));
        }
    }
    pairs
}

/// Lower-case words without punctuation, joined by single spaces.
fn normalise(s: &str) -> String {
    words(s).join(" ")
}

fn words(s: &str) -> Vec<String> {
    s.to_lowercase()
        .replace('\'', "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The significant words of a sentence, in order.
fn content_words(s: &str) -> Vec<String> {
    words(s).into_iter().filter(|w| !is_stop_word(w)).collect()
}

/// Shortens to `max` characters (with `…`) on one line.
fn clip(s: &str, max: usize) -> String {
    one_line(s.trim(), max.saturating_sub(1))
}

/// A quote safe to put between double quotes (curly quotes straightened,
/// as in the statement).
fn quote(s: &str) -> String {
    clip(
        &s.replace(['"', '\u{201c}', '\u{201d}'], "'")
            .replace(['\u{2019}', '\u{2018}'], "'"),
        MAX_EVIDENCE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statements(messages: &[&str]) -> Vec<String> {
        preferences(messages)
            .into_iter()
            .map(|p| p.statement)
            .collect()
    }

    #[test]
    fn rules_are_found_and_one_off_requests_are_not() {
        let p = preferences(&["Add a cart total. We use pnpm here, not npm."]);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].statement, "We use pnpm here, not npm.");
        assert_eq!(
            p[0].kind,
            Kind::UseInstead {
                preferred: "pnpm".into(),
                rejected: "npm".into()
            }
        );
        assert!(statements(&["show me the plan first", "run the tests"]).is_empty());
    }

    #[test]
    fn repeated_requests_count() {
        let s = statements(&[
            "show me the plan first",
            "ok now fix the bug",
            "again: show me the plan first",
        ]);
        assert_eq!(s, vec!["show me the plan first"]);
    }

    #[test]
    fn questions_and_slash_commands_never_count() {
        assert!(statements(&["should we always use pnpm?", "can you never do that?"]).is_empty());
        assert!(statements(&["/review always check everything"]).is_empty());
        assert!(statements(&["why do we always fail", "why do we always fail"]).is_empty());
    }

    #[test]
    fn corrections_and_clauses() {
        assert_eq!(
            statements(&["no, tests run with make check"]),
            vec!["no, tests run with make check"]
        );
        assert_eq!(
            statements(&[
                "Fix it — and remember: tests run with make check, never cargo test directly."
            ]),
            vec!["remember: tests run with make check, never cargo test directly."]
        );
        assert_eq!(
            statements(&["Don't use any external frameworks — keep it pure HTML, CSS, and JS."]),
            vec!["Don't use any external frameworks — keep it pure HTML, CSS, and JS."]
        );
        assert!(statements(&["No, thanks that's all for now"]).is_empty());
    }

    #[test]
    fn feature_requests_describe_the_product() {
        assert!(
            statements(&["also remove the file tree by default until added by user"]).is_empty()
        );
        assert!(statements(&["make the button always visible"]).is_empty());
        assert_eq!(statements(&["always run the linter first"]).len(), 1);
    }

    #[test]
    fn specs_only_count_explicit_rules() {
        let spec = format!(
            "# Fix\n\n## Context\n{}\n## Approach\n1. Make sure the parser knows the new node types.\n2. Never add a network dependency.\n",
            "Some context line that is long enough to make this a spec. ".repeat(20)
        );
        assert_eq!(
            statements(&[&spec]),
            vec!["Never add a network dependency."]
        );
    }

    #[test]
    fn sentences_split_on_punctuation_not_abbreviations() {
        assert_eq!(
            split_sentences("Use a tool, e.g. ripgrep. Then stop! Why?"),
            vec!["Use a tool, e.g. ripgrep.", "Then stop!", "Why?"]
        );
    }
}
