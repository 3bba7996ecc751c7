//! Plain facts about a session: the project, the task and its steps, the
//! files edited, how it ended, keywords and a slug.

use super::commands::{ShellRun, Status, call_status};
use super::signals::{Turn, is_stop_word, prose};
use crate::sources::{Event, Role};
use crate::util::text::one_line;

/// Tools whose input is the path of the file they change.
const FILE_EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// `apply_patch` header lines that name a changed file.
const PATCH_HEADERS: &[&str] = &[
    "*** Update File: ",
    "*** Add File: ",
    "*** Delete File: ",
    "*** Move to: ",
];

/// Most edited files listed.
const MAX_FILES: usize = 15;
/// Most keywords.
const MAX_KEYWORDS: usize = 10;
/// Most frequent human words among the keywords.
const MAX_TOPIC_WORDS: usize = 4;
/// Longest task name, in characters.
const MAX_TASK_CHARS: usize = 80;
/// Longest slug, in bytes.
const MAX_SLUG: usize = 60;

/// How a task ended (Codex's four values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Finished with an answer and the last command passing.
    Success,
    /// Interrupted, or the final command failed after earlier ones worked.
    Partial,
    /// The last command failed and nothing had worked.
    Fail,
    /// Anything else.
    Uncertain,
}

impl Outcome {
    /// The front-matter value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Partial => "partial",
            Outcome::Fail => "fail",
            Outcome::Uncertain => "uncertain",
        }
    }
}

/// The last path component of a working directory.
pub(crate) fn project_name(cwd: Option<&str>) -> Option<String> {
    let cwd = cwd?.trim().trim_end_matches('/');
    let base = cwd.rsplit('/').next().unwrap_or(cwd);
    (!base.is_empty()).then(|| base.to_string())
}

/// Whether a human message is a placeholder left by redaction.
pub(crate) fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || (t.starts_with("[REDACTED") && t.ends_with(']') && t.len() < 120)
}

/// The human messages (placeholders left out), each with the agent's last
/// message before it, in order.
pub(crate) fn human_turns<'a>(events: impl Iterator<Item = &'a Event>) -> Vec<Turn<'a>> {
    let mut out = Vec::new();
    let mut before: Option<&str> = None;
    for e in events {
        let Event::Message(m) = e else { continue };
        if is_placeholder(&m.text) {
            continue;
        }
        match m.role {
            Role::User => out.push(Turn {
                text: m.text.as_str(),
                before: before.take(),
            }),
            Role::Assistant => before = Some(m.text.as_str()),
            _ => {}
        }
    }
    out
}

/// The task name: the first line of the first human message (or of the
/// agent prompt of a sub-agent), its first sentence when the line is long.
pub(crate) fn task_name<'a>(
    humans: &[&str],
    events: impl Iterator<Item = &'a Event>,
) -> Option<String> {
    let first = humans.first().copied().or_else(|| {
        events
            .filter_map(|e| match e {
                Event::Message(m) if m.role == Role::Agent && !is_placeholder(&m.text) => {
                    Some(m.text.as_str())
                }
                _ => None,
            })
            .next()
    })?;
    let line = first_line(first);
    let sentence = first_sentence(line);
    let line = if sentence.split_whitespace().count() >= 3 || line.chars().count() > MAX_TASK_CHARS
    {
        sentence
    } else {
        line
    };
    let name = one_line(line.trim_end_matches('.'), MAX_TASK_CHARS - 1);
    (!name.is_empty()).then_some(name)
}

/// The first meaningful line of a text, without Markdown heading or list markers.
pub(crate) fn first_line(text: &str) -> &str {
    text.lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['#', '-', '*', '•', ' ', '\t'])
                .trim()
        })
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// Text up to the first `.`, `!` or `?` that is followed by a space.
fn first_sentence(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_some_and(|n| *n == b' ') {
            return &line[..=i];
        }
    }
    line
}

/// Files changed by edit tools and `apply_patch`, relative to `cwd` when
/// inside it, first seen first (at most 15).
pub(crate) fn edited_files<'a>(
    events: impl Iterator<Item = &'a Event>,
    cwd: Option<&str>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let Event::ToolCall(c) = e else { continue };
        if matches!(call_status(c), Status::Failed(_) | Status::Interrupted) {
            continue;
        }
        let paths: Vec<String> = if FILE_EDIT_TOOLS.contains(&c.name.as_str()) {
            c.input
                .lines()
                .next()
                .map(|l| vec![l.trim().to_string()])
                .unwrap_or_default()
        } else if c.name == "apply_patch" || c.input.contains("*** Begin Patch") {
            patch_files(&c.input)
        } else {
            Vec::new()
        };
        for p in paths {
            let p = relative_to(&p, cwd);
            if !p.is_empty() && !out.contains(&p) && out.len() < MAX_FILES {
                out.push(p);
            }
        }
    }
    out
}

/// The files named in the headers of an `apply_patch` body.
fn patch_files(patch: &str) -> Vec<String> {
    let unescaped;
    // Patches inside JSON or script strings keep their newlines escaped.
    let text = if patch.contains("\\n*** ") {
        unescaped = patch.replace("\\n", "\n");
        unescaped.as_str()
    } else {
        patch
    };
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            PATCH_HEADERS
                .iter()
                .find_map(|h| l.strip_prefix(h))
                .map(|p| p.trim().trim_end_matches(['"', '\'']).to_string())
        })
        .collect()
}

/// `path` relative to `cwd` when it lies inside it.
fn relative_to(path: &str, cwd: Option<&str>) -> String {
    let path = path.trim();
    if let Some(cwd) = cwd.map(|c| c.trim_end_matches('/'))
        && !cwd.is_empty()
        && let Some(rest) = path.strip_prefix(cwd).and_then(|r| r.strip_prefix('/'))
        && !rest.is_empty()
    {
        return rest.to_string();
    }
    path.to_string()
}

/// How the session ended, from its last events and shell calls.
///
/// `success`: it ends with an assistant message and the last significant
/// shell call (if any) passed; `partial`: the human interrupted the last
/// call, or the final call failed after earlier ones worked; `fail`: the last
/// call failed and nothing had worked; `uncertain` otherwise — including a
/// failure the human moved on from (a later human turn answered by the agent).
pub(crate) fn outcome(events: &[&Event], runs: &[ShellRun]) -> Outcome {
    let ends_with_answer = matches!(
        events.last(),
        Some(Event::Message(m)) if m.role == Role::Assistant
    );
    let significant: Vec<&ShellRun> = runs.iter().filter(|r| r.significant()).collect();
    let any_ok = significant.iter().any(|r| r.status == Status::Ok);
    if let Some(last) = significant
        .iter()
        .rev()
        .find(|r| r.status != Status::Unknown)
    {
        let moved_on = ends_with_answer && human_turn_after(events, last.position);
        match last.status {
            Status::Interrupted => return Outcome::Partial,
            Status::Failed(_) if moved_on => return Outcome::Uncertain,
            Status::Failed(_) if any_ok => return Outcome::Partial,
            Status::Failed(_) => return Outcome::Fail,
            _ => {}
        }
    }
    let last_call = events.iter().rev().find_map(|e| match e {
        Event::ToolCall(c) => Some(call_status(c)),
        _ => None,
    });
    match last_call {
        Some(Status::Interrupted | Status::Failed(_)) => Outcome::Partial,
        _ if ends_with_answer => Outcome::Success,
        _ => Outcome::Uncertain,
    }
}

/// Whether a human message comes after the event at position `index`.
fn human_turn_after(events: &[&Event], index: usize) -> bool {
    events
        .iter()
        .skip(index + 1)
        .any(|e| matches!(e, Event::Message(m) if m.role == Role::User))
}

/// The language of a file, from its extension.
fn language(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => "rust",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" => "python",
        "go" => "go",
        "ex" | "exs" | "heex" => "elixir",
        "rb" => "ruby",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "swift" => "swift",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" => "c++",
        "cs" => "c#",
        "php" => "php",
        "html" | "htm" => "html",
        "css" | "scss" | "sass" => "css",
        "sql" => "sql",
        "sh" | "bash" | "zsh" => "shell",
        "lua" => "lua",
        "zig" => "zig",
        "dart" => "dart",
        "vue" => "vue",
        "svelte" => "svelte",
        _ => return None,
    })
}

/// Keywords: project, branch, languages of edited files, tools that ran, and
/// the most frequent significant words of the human messages (≤ 10).
pub(crate) fn keywords(
    cwd: Option<&str>,
    branch: Option<&str>,
    files: &[String],
    runs: &[ShellRun],
    humans: &[&str],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let add = |k: &str, out: &mut Vec<String>| {
        let k = k.trim().to_lowercase().replace(',', " ");
        if !k.is_empty() && !out.contains(&k) && out.len() < MAX_KEYWORDS {
            out.push(k);
        }
    };
    if let Some(p) = project_name(cwd) {
        add(&p, &mut out);
    }
    if let Some(b) = branch.filter(|b| !matches!(*b, "main" | "master" | "HEAD")) {
        add(b, &mut out);
    }
    for lang in files.iter().filter_map(|f| language(f)) {
        add(lang, &mut out);
    }
    for run in runs
        .iter()
        .filter(|r| r.purpose().is_some() && r.status == Status::Ok)
    {
        add(&run.program, &mut out);
    }
    for w in topic_words(humans, cwd) {
        add(&w, &mut out);
    }
    out
}

/// Significant words used at least twice across the human messages, most
/// frequent first (ties: first seen first). Paths, URLs, code and flags are
/// not prose; contractions are whole words ("hasn't", not "hasn"); the
/// folders of the working directory above the project (user and machine
/// names) are no topic.
fn topic_words(humans: &[&str], cwd: Option<&str>) -> Vec<String> {
    let path_names: Vec<String> = cwd
        .map(|c| {
            let parts: Vec<&str> = c.split('/').filter(|p| !p.is_empty()).collect();
            let above = parts.len().saturating_sub(1);
            parts[..above].iter().map(|p| p.to_lowercase()).collect()
        })
        .unwrap_or_default();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let sentences: Vec<String> = humans.iter().flat_map(|t| prose(t)).collect();
    for sentence in &sentences {
        for token in sentence.split_whitespace().filter(|t| is_prose_token(t)) {
            let token = token.replace(['\'', '\u{2019}'], "");
            for w in token
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                .map(|w| w.trim_matches(['-', '_']).to_lowercase())
                .filter(|w| is_topic_word(w) && !path_names.contains(w))
            {
                match counts.iter_mut().find(|(k, _)| *k == w) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((w, 1)),
                }
            }
        }
    }
    counts.retain(|(_, n)| *n >= 2);
    counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    counts
        .into_iter()
        .take(MAX_TOPIC_WORDS)
        .map(|(w, _)| w)
        .collect()
}

/// Whether a whitespace-separated token is prose (not a path, URL, flag,
/// assignment, mention or code span).
fn is_prose_token(token: &str) -> bool {
    !token.contains(['/', '\\', '@', '=', '`', '~', '$', '<', '>'])
        && !token.starts_with('-')
        && !token
            .trim_end_matches(['.', ',', '!', '?', ':', ';'])
            .contains('.')
}

/// Whether a lower-case word is worth searching for.
fn is_topic_word(w: &str) -> bool {
    w.chars().count() >= 4
        && w.chars().all(|c| c.is_alphabetic() || c == '-' || c == '_')
        && !is_stop_word(w)
        && !GENERIC_WORDS.contains(&w)
        && !COMMON_WORDS.contains(&w)
        && !is_contraction(w)
}

/// Whether a word is a contraction written without its apostrophe.
fn is_contraction(w: &str) -> bool {
    const TAILS: &[&str] = &["nt", "re", "ve", "ll"];
    const HEADS: &[&str] = &[
        "has", "have", "had", "does", "do", "did", "is", "are", "was", "were", "could", "should",
        "would", "must", "need", "ca", "wo", "ai", "might", "you", "they", "we", "who", "that",
        "there", "what", "it",
    ];
    TAILS
        .iter()
        .any(|t| w.strip_suffix(t).is_some_and(|head| HEADS.contains(&head)))
}

/// Everyday English words that name no topic.
const COMMON_WORDS: &[&str] = &[
    "come",
    "comes",
    "came",
    "back",
    "going",
    "gone",
    "take",
    "took",
    "give",
    "gave",
    "keep",
    "kept",
    "tell",
    "told",
    "said",
    "says",
    "know",
    "knew",
    "think",
    "thought",
    "want",
    "wanted",
    "need",
    "needed",
    "look",
    "looks",
    "looked",
    "seem",
    "help",
    "start",
    "started",
    "stop",
    "call",
    "called",
    "turn",
    "move",
    "show",
    "shows",
    "hear",
    "play",
    "leave",
    "bring",
    "begin",
    "happen",
    "happened",
    "write",
    "provide",
    "lose",
    "meet",
    "include",
    "continue",
    "learn",
    "lead",
    "understand",
    "watch",
    "follow",
    "create",
    "speak",
    "allow",
    "spend",
    "grow",
    "open",
    "offer",
    "remember",
    "love",
    "consider",
    "appear",
    "wait",
    "serve",
    "send",
    "expect",
    "stay",
    "fall",
    "reach",
    "remain",
    "suggest",
    "raise",
    "pass",
    "require",
    "report",
    "decide",
    "pull",
    "already",
    "even",
    "probably",
    "sometimes",
    "away",
    "around",
    "someone",
    "anyone",
    "thanks",
    "right",
    "left",
    "okay",
    "yeah",
    "done",
    "since",
    "though",
    "although",
    "instead",
    "without",
    "within",
    "across",
    "against",
    "among",
    "every",
    "would",
    "could",
    "might",
    "must",
    "shall",
    "being",
    "doing",
    "having",
    "getting",
    "making",
    "trying",
    "looking",
    "again",
    "always",
    "never",
    "please",
    "sure",
    "lets",
    "gonna",
    "wanna",
    "kind",
    "sort",
    "lot",
    "bit",
    "part",
    "last",
    "time",
    "times",
    "today",
    "yesterday",
    "tomorrow",
    "week",
    "back",
    "here",
    "sorry",
    "hello",
    "hi",
    "hey",
    "thank",
    "just",
    "able",
    "much",
    "many",
    "some",
    "same",
    "different",
    "another",
    "still",
    "else",
    "very",
    "quite",
    "pretty",
    "really",
    "whole",
    "each",
    "both",
    "either",
    "neither",
    "once",
    "twice",
    "later",
    "soon",
    "yet",
    "ever",
    "quick",
    "quickly",
    "simple",
    "simply",
    "easy",
    "hard",
    "new",
    "old",
    "big",
    "small",
    "little",
    "great",
    "nice",
    "clean",
    "properly",
    "correctly",
    "exactly",
    "basically",
    "literally",
    "already",
    "stuff",
    "point",
    "fact",
    "case",
    "idea",
    "reason",
    "problem",
    "issue",
    "question",
    "answer",
];

const GENERIC_WORDS: &[&str] = &[
    "file",
    "files",
    "code",
    "work",
    "task",
    "tasks",
    "change",
    "changes",
    "thing",
    "able",
    "sure",
    "good",
    "first",
    "next",
    "think",
    "know",
    "also",
    "made",
    "doesnt",
    "dont",
    "didnt",
    "isnt",
    "cant",
    "wont",
    "should",
    "would",
    "could",
    "shows",
    "show",
    "correct",
    "right",
    "better",
    "done",
    "added",
    "then",
    "what",
    "well",
    "each",
    "every",
    "always",
    "never",
    "just",
    "more",
    "much",
    "many",
    "some",
    "fully",
    "full",
    "proceed",
    "continue",
    "please",
    "thanks",
    "again",
    "instead",
    "check",
    "before",
    "after",
    "works",
    "working",
    "fails",
    "failing",
    "seems",
    "needs",
    "using",
    "used",
    "running",
    "runs",
    "read",
    "fine",
    "maybe",
    "actually",
    "ideally",
    "something",
    "anything",
    "everything",
    "nothing",
    "guess",
    "feel",
    "rather",
    "mean",
    "currently",
    "there",
    "where",
    "which",
    "other",
    "when",
];

/// A file-name-safe slug of the task name: lower-case words joined by `-`.
pub(crate) fn slug(task: &str) -> Option<String> {
    let mut s = String::new();
    for c in task.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let mut s = s.trim_end_matches('-').to_string();
    if s.len() > MAX_SLUG {
        let cut = s[..=MAX_SLUG]
            .rfind('-')
            .filter(|&i| i > 0)
            .unwrap_or(MAX_SLUG);
        s.truncate(cut);
        s = s.trim_end_matches('-').to_string();
    }
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_short_and_safe() {
        assert_eq!(
            slug("Add a cart total. We use pnpm!").as_deref(),
            Some("add-a-cart-total-we-use-pnpm")
        );
        assert_eq!(slug("…").as_deref(), None);
        let long = slug(&"word ".repeat(30)).unwrap();
        assert!(long.len() <= 60 && !long.ends_with('-'));
    }

    #[test]
    fn patch_headers_name_files() {
        let p =
            "*** Begin Patch\n*** Update File: /w/src/a.rs\n@@\n*** Add File: b.md\n*** End Patch";
        let files: Vec<String> = patch_files(p)
            .iter()
            .map(|f| relative_to(f, Some("/w")))
            .collect();
        assert_eq!(files, vec!["src/a.rs", "b.md"]);
    }

    #[test]
    fn task_names_are_one_line() {
        let humans = ["# Fix: the parser\n\nlong text"];
        assert_eq!(
            task_name(&humans, std::iter::empty()).as_deref(),
            Some("Fix: the parser")
        );
        let long = format!("Do this first. {}", "x ".repeat(100));
        assert_eq!(
            task_name(&[long.as_str()], std::iter::empty()).as_deref(),
            Some("Do this first")
        );
    }
}
