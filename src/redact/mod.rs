//! The one redaction entry point: every byte that leaves for a model, lands in
//! the database or is written to the memory folder passes through [`redact`].
//!
//! One pass: a case-insensitive keyword automaton (provider prefixes such as
//! `ghp_` or `AKIA`, names such as `token` or `password`, markers such as
//! `://`, `-----BEGIN ` or `eyJ`) finds candidate places; a small detector
//! for that keyword then looks at the bytes around it. Text without any
//! keyword costs one automaton scan and comes back borrowed.
//!
//! The detectors, one job per module: `rules` (provider token formats),
//! `generic` (secret-named assignments and flags), `http` (headers, cookies,
//! URLs, webhooks), `keys` (private-key blocks, JWTs), `commands` (short
//! password flags of known commands), `shapes` and `context` (tokens known by
//! an inner marker or by a neighbour). They share `lex` (byte scanning),
//! `entropy` (the shape gate), `placeholders` (the precision allow-list) and
//! `codec` (decoders). [`stream`] redacts a byte stream line by line.

mod codec;
mod commands;
mod context;
mod cut;
mod entropy;
mod generic;
mod http;
mod keys;
mod lex;
mod placeholders;
mod rules;
mod shapes;
pub mod stream;

use crate::util::text::{ceil_char_boundary, floor_char_boundary};
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use commands::Cmd;
use std::borrow::Cow;
use std::sync::LazyLock;

pub use cut::{cut_middle, cuts_after, line_cuts};

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

/// What to do where a keyword was found.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// A provider token rule (index into [`rules::TOKEN_RULES`]).
    Token(usize),
    /// A secret-looking name: assignment or flag.
    Assign,
    Authorization,
    Bearer,
    Basic,
    Cookie,
    Url,
    Signature,
    SlackHook,
    DiscordHook,
    TeamsHook,
    Telegram,
    AzureSecret,
    Terraform,
    Discord,
    TwilioSid,
    Pem,
    PemBase64,
    Jwt,
    Command(Cmd),
}

/// Keywords other than provider prefixes (matched ignoring ASCII case).
const KEYWORDS: &[(&str, Action)] = &[
    ("key", Action::Assign),
    ("token", Action::Assign),
    ("secret", Action::Assign),
    ("pass", Action::Assign),
    ("pwd", Action::Assign),
    ("_pw", Action::Assign),
    ("auth", Action::Assign),
    ("credential", Action::Assign),
    ("creds", Action::Assign),
    ("_pat", Action::Assign),
    ("authorization", Action::Authorization),
    ("bearer", Action::Bearer),
    ("basic", Action::Basic),
    ("cookie", Action::Cookie),
    ("://", Action::Url),
    ("sig=", Action::Signature),
    ("signature=", Action::Signature),
    ("hooks.slack.com/", Action::SlackHook),
    ("/api/webhooks/", Action::DiscordHook),
    ("webhookb2/", Action::TeamsHook),
    (":aa", Action::Telegram),
    ("q~", Action::AzureSecret),
    (".atlasv1.", Action::Terraform),
    ("discord", Action::Discord),
    ("ac", Action::TwilioSid),
    ("-----begin ", Action::Pem),
    ("ls0tls1crudjti", Action::PemBase64),
    ("eyj", Action::Jwt),
    ("login", Action::Command(Cmd::Login)),
    ("mysql", Action::Command(Cmd::Mysql)),
    ("sshpass", Action::Command(Cmd::Sshpass)),
    ("redis-cli", Action::Command(Cmd::Redis)),
    ("mongo", Action::Command(Cmd::Mongo)),
    ("curl", Action::Command(Cmd::Curl)),
];

/// The keyword automaton and the action of each pattern.
struct Scanner {
    automaton: AhoCorasick,
    actions: Vec<Action>,
}

static SCANNER: LazyLock<Scanner> = LazyLock::new(|| {
    let mut patterns: Vec<String> = Vec::new();
    let mut actions = Vec::new();
    for (i, r) in rules::TOKEN_RULES.iter().enumerate() {
        patterns.push(r.prefix.to_ascii_lowercase());
        actions.push(Action::Token(i));
    }
    for (kw, action) in KEYWORDS {
        patterns.push((*kw).to_string());
        actions.push(*action);
    }
    let automaton = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&patterns)
        .expect("valid redaction keywords");
    Scanner { automaton, actions }
});

/// Runs the detector of `action` for the keyword found at `start..end`.
fn detect(text: &[u8], start: usize, end: usize, action: Action, out: &mut Vec<Finding>) {
    match action {
        Action::Token(i) => {
            let rule = &rules::TOKEN_RULES[i];
            let before = out.len();
            rules::match_token(text, start, rule, out);
            if out.len() > before && rule.name == "aws_access_key_id" {
                context::aws_secret_near(text, start, out[before].end, out);
            }
        }
        Action::Assign => generic::assignment(text, start, end, out),
        Action::Authorization => http::authorization(text, start, end, out),
        Action::Bearer => http::bearer(text, start, end, out),
        Action::Basic => http::basic(text, start, end, out),
        Action::Cookie => http::cookie(text, start, end, out),
        Action::Url => http::url_userinfo(text, start, out),
        Action::Signature => http::url_signature(text, start, end, out),
        Action::SlackHook => http::slack_webhook(text, end, out),
        Action::DiscordHook => http::discord_webhook(text, start, end, out),
        Action::TeamsHook => http::teams_webhook(text, end, out),
        Action::Telegram => shapes::telegram(text, start, out),
        Action::AzureSecret => shapes::azure_client_secret(text, start, out),
        Action::Terraform => shapes::terraform(text, start, end, out),
        Action::Discord => context::discord_bot_token(text, end, out),
        Action::TwilioSid => context::twilio(text, start, out),
        Action::Pem => keys::pem(text, start, out),
        Action::PemBase64 => keys::pem_base64(text, start, out),
        Action::Jwt => keys::jwt(text, start, out),
        Action::Command(cmd) => commands::command(text, start, end, cmd, out),
    }
}

/// Every secret in `text`, as sorted, non-overlapping spans (overlapping or
/// touching matches are merged, so no part of a secret survives).
pub fn find_secrets(text: &[u8]) -> Vec<Finding> {
    let scanner = &*SCANNER;
    let mut found = Vec::new();
    for m in scanner.automaton.find_overlapping_iter(text) {
        let action = scanner.actions[m.pattern().as_usize()];
        detect(text, m.start(), m.end(), action, &mut found);
    }
    if found.is_empty() {
        return found;
    }
    found.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut merged: Vec<Finding> = Vec::with_capacity(found.len());
    for f in found {
        match merged.last_mut() {
            Some(last) if f.start <= last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

/// Replaces every secret in `text` with [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    redact_with_findings(text).0
}

/// Like [`redact`], also returning what was found (never the secret itself).
pub fn redact_with_findings(text: &str) -> (Cow<'_, str>, Vec<Finding>) {
    let mut findings = find_secrets(text.as_bytes());
    if findings.is_empty() {
        return (Cow::Borrowed(text), findings);
    }
    // Detectors cut at ASCII bytes, so spans sit on character boundaries;
    // widen defensively rather than ever slicing inside a character.
    for f in &mut findings {
        f.start = floor_char_boundary(text, f.start);
        f.end = ceil_char_boundary(text, f.end);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in &findings {
        out.push_str(&text[at..f.start.max(at)]);
        out.push_str(REDACTED);
        at = at.max(f.end);
    }
    out.push_str(&text[at..]);
    (Cow::Owned(out), findings)
}

/// [`redact_with_findings`] for bytes that need not be UTF-8 (the CLI filter).
pub fn redact_bytes(text: &[u8]) -> (Cow<'_, [u8]>, Vec<Finding>) {
    let findings = find_secrets(text);
    if findings.is_empty() {
        return (Cow::Borrowed(text), findings);
    }
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for f in &findings {
        out.extend_from_slice(&text[at..f.start]);
        out.extend_from_slice(REDACTED.as_bytes());
        at = f.end;
    }
    out.extend_from_slice(&text[at..]);
    (Cow::Owned(out), findings)
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
mod tests;
