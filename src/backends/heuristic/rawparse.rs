//! A lenient reader of stage-1 raw memories: the front matter, the
//! `### Task n: name` headings and the bullets of the four known subsections.
//! It accepts the heuristic extractor's exact format and the looser shapes
//! models write (`## Preference signals`, `**Reusable knowledge:**`, …);
//! anything it does not recognise is skipped, never an error.

use regex::Regex;
use std::sync::LazyLock;

/// Longest bullet kept, in characters.
pub(crate) const MAX_BULLET_CHARS: usize = 300;

/// What a raw memory says, as far as consolidation needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedMemory {
    /// One-sentence description.
    pub description: Option<String>,
    /// The task name of the front matter.
    pub task: Option<String>,
    /// `success`, `partial`, `fail` or `uncertain`, as written.
    pub outcome: Option<String>,
    /// The working directory the raw memory names.
    pub cwd: Option<String>,
    /// Keywords, in order, without duplicates.
    pub keywords: Vec<String>,
    /// Names from `### Task n: name` headings.
    pub task_names: Vec<String>,
    /// Preference bullets, in the user's words (evidence quotes removed).
    pub preferences: Vec<String>,
    /// Reusable-knowledge bullets.
    pub knowledge: Vec<String>,
    /// Failure-and-fix bullets.
    pub failures: Vec<String>,
    /// Facts about the project's environment.
    pub environment: Vec<String>,
    /// Short requests about how to work, made in this session.
    pub requests: Vec<String>,
}

/// The subsection a bullet belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Preferences,
    Knowledge,
    Failures,
    Environment,
    Requests,
    References,
}

/// Where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before any front matter or after it; `key: value` lines are read.
    Body,
    /// Inside the `---` block.
    FrontMatter,
    /// Under a known subsection heading.
    In(Section),
}

static TASK_HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^task\s*\d+\s*[:.)-]\s*(.+)$").expect("valid task regex"));
static EVIDENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\s*[(\[]\s*evidence\s*:.*$").expect("valid evidence regex"));

/// Reads a raw memory.
pub fn parse(raw: &str) -> ParsedMemory {
    let mut out = ParsedMemory::default();
    let mut state = State::Body;
    let mut seen_content = false;
    for line in raw.lines() {
        let trimmed = line.trim();
        if trimmed == "---" {
            state = match state {
                State::Body if !seen_content => State::FrontMatter,
                _ => State::Body,
            };
            seen_content = true;
            continue;
        }
        if !trimmed.is_empty() {
            seen_content = true;
        }
        state = read_line(&mut out, state, line);
    }
    out
}

/// Reads one line and returns the state after it.
fn read_line(out: &mut ParsedMemory, state: State, line: &str) -> State {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return state;
    }
    if let Some(section) = section_heading(trimmed) {
        return State::In(section);
    }
    if let (State::In(section), Some(text)) = (state, bullet(line)) {
        push_bullet(out, section, text);
        return state;
    }
    if let State::In(section) = state
        && is_continuation(line)
    {
        continue_bullet(out, section, trimmed);
        return state;
    }
    if let Some(name) = task_heading(trimmed) {
        push_unique(&mut out.task_names, name);
        return State::Body;
    }
    let ends_section = is_heading_or_label(trimmed);
    read_field(out, trimmed);
    match state {
        State::In(_) if ends_section => State::Body,
        other => other,
    }
}

/// Sets a known field from a `key: value` line, unless already set.
fn read_field(out: &mut ParsedMemory, line: &str) {
    let line = line.trim_start_matches(['-', '*', ' ']);
    let Some((key, value)) = line.split_once(':') else {
        return;
    };
    let key = key.trim_matches(['*', '_', ' ', '`']).to_ascii_lowercase();
    let value = clean_text(value.trim_start_matches(['*', ' ']));
    if value.is_empty() {
        return;
    }
    let slot = match key.as_str() {
        "description" => &mut out.description,
        "task" => &mut out.task,
        "task_outcome" | "outcome" => &mut out.outcome,
        "cwd" => &mut out.cwd,
        "keywords" => {
            if out.keywords.is_empty() {
                out.keywords = split_keywords(&value);
            }
            return;
        }
        _ => return,
    };
    if slot.is_none() {
        *slot = Some(value);
    }
}

/// Comma-separated keywords, trimmed, without empty or repeated ones.
fn split_keywords(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    for k in value.split([',', ';']) {
        let k = k.trim().trim_matches('`').trim();
        if !k.is_empty() {
            push_unique(&mut out, k.to_string());
        }
    }
    out
}

/// The subsection a heading or label line opens, if it is one of the four.
fn section_heading(line: &str) -> Option<Section> {
    let name = line
        .trim_start_matches(['#', '*', ' '])
        .trim_end_matches(['*', ' '])
        .trim_end_matches(':')
        .trim_end_matches(['*', ' '])
        .to_ascii_lowercase();
    match name.as_str() {
        "preference signals" | "user preferences" | "preferences" => Some(Section::Preferences),
        "reusable knowledge" => Some(Section::Knowledge),
        "failures and how to do differently" => Some(Section::Failures),
        "environment facts" | "environment" | "project facts" => Some(Section::Environment),
        "request signals" | "requests" => Some(Section::Requests),
        "references" => Some(Section::References),
        _ => None,
    }
}

/// The name of a `### Task n: name` heading (any level, bold or not).
fn task_heading(line: &str) -> Option<String> {
    if !line.starts_with('#') && !line.starts_with("**") {
        return None;
    }
    let inner = line
        .trim_start_matches(['#', '*', ' '])
        .trim_end_matches(['*', ' ']);
    let name = clean_text(TASK_HEADING.captures(inner)?.get(1)?.as_str());
    (!name.is_empty()).then_some(name)
}

/// Whether a line is a Markdown heading or a bold/colon-terminated label,
/// which ends the current subsection.
fn is_heading_or_label(line: &str) -> bool {
    line.starts_with('#') || (line.starts_with("**") && line.ends_with("**")) || line.ends_with(':')
}

/// The text of a top-level `- ` / `* ` bullet.
fn bullet(line: &str) -> Option<&str> {
    if line.starts_with("  ") || line.starts_with('\t') {
        return None;
    }
    let t = line.trim_start();
    t.strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .map(str::trim)
}

/// An indented line that is not a nested bullet: the wrapped tail of a bullet.
fn is_continuation(line: &str) -> bool {
    let indented = line.starts_with("  ") || line.starts_with('\t');
    let t = line.trim_start();
    indented && !t.starts_with("- ") && !t.starts_with("* ")
}

/// The list a subsection's bullets go to (references are recognised, not kept).
fn list_mut(out: &mut ParsedMemory, section: Section) -> Option<&mut Vec<String>> {
    match section {
        Section::Preferences => Some(&mut out.preferences),
        Section::Knowledge => Some(&mut out.knowledge),
        Section::Failures => Some(&mut out.failures),
        Section::Environment => Some(&mut out.environment),
        Section::Requests => Some(&mut out.requests),
        Section::References => None,
    }
}

/// Adds a bullet to its subsection.
fn push_bullet(out: &mut ParsedMemory, section: Section, text: &str) {
    let Some(list) = list_mut(out, section) else {
        return;
    };
    let text = match section {
        Section::Preferences => clean_text(&EVIDENCE.replace(text, "")),
        _ => clean_text(text),
    };
    if !text.is_empty() {
        push_unique(list, text);
    }
}

/// Appends a wrapped line to the last bullet of a subsection.
fn continue_bullet(out: &mut ParsedMemory, section: Section, text: &str) {
    if let Some(last) = list_mut(out, section).and_then(|list| list.last_mut()) {
        *last = clean_text(&format!("{last} {text}"));
    }
}

/// One line, no bold markers, whitespace collapsed, at most 300 characters.
pub fn clean_text(s: &str) -> String {
    crate::util::text::one_line(&s.replace("**", ""), MAX_BULLET_CHARS)
}

/// Pushes `item` unless an equal one is already there.
fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEURISTIC: &str = "---
description: Fixed the login redirect and made the tests pass.
task: fix login redirect
task_group: shop
task_outcome: success
cwd: /home/dev/shop
keywords: login, redirect, cargo test
---

### Task 1: fix login redirect
task: fix login redirect
task_group: shop
task_outcome: success

Preference signals:
- use pnpm, not npm (evidence: \"we use pnpm here, not npm\")
- keep commits small (evidence: \"small commits please\")
Reusable knowledge:
- `cargo test` works in shop (tests)
Failures and how to do differently:
- `npm test` failed (exit 1: command not found); `pnpm test` worked instead
References:
- src/login.rs (edited)
- branch: main
";

    #[test]
    fn reads_the_heuristic_format_exactly() {
        let m = parse(HEURISTIC);
        assert_eq!(
            m.description.as_deref(),
            Some("Fixed the login redirect and made the tests pass.")
        );
        assert_eq!(m.task.as_deref(), Some("fix login redirect"));
        assert_eq!(m.outcome.as_deref(), Some("success"));
        assert_eq!(m.cwd.as_deref(), Some("/home/dev/shop"));
        assert_eq!(m.keywords, ["login", "redirect", "cargo test"]);
        assert_eq!(m.task_names, ["fix login redirect"]);
        assert_eq!(m.preferences, ["use pnpm, not npm", "keep commits small"]);
        assert_eq!(m.knowledge, ["`cargo test` works in shop (tests)"]);
        assert_eq!(
            m.failures,
            ["`npm test` failed (exit 1: command not found); `pnpm test` worked instead"]
        );
    }

    #[test]
    fn reads_model_style_headings_and_bullets() {
        let raw = "---\ndescription: d\ntask: t\n---\n\n## Task 1: Port the CLI\n\n\
                   ## Preference signals\n* **Prefers** rustfmt defaults\n  over custom configs\n  - nested detail\n\
                   **Reusable knowledge:**\n- run `just check`\n**Key steps:**\n- not kept\n\
                   ## User preferences\n- answer briefly\n## Notes\n- ignored\n";
        let m = parse(raw);
        assert_eq!(m.task_names, ["Port the CLI"]);
        assert_eq!(
            m.preferences,
            [
                "Prefers rustfmt defaults over custom configs",
                "answer briefly"
            ]
        );
        assert_eq!(m.knowledge, ["run `just check`"]);
        assert!(m.failures.is_empty());
    }

    #[test]
    fn free_text_gives_an_empty_memory_without_error() {
        let m = parse("The user fixed a bug.\nNothing else to say: really.\n");
        assert_eq!(m, ParsedMemory::default());
        assert_eq!(parse(""), ParsedMemory::default());
    }

    #[test]
    fn first_value_wins_and_front_matter_needs_no_fences() {
        let m = parse("task: first\ntask_outcome: partial\n### Task 2: second\ntask: second\n");
        assert_eq!(m.task.as_deref(), Some("first"));
        assert_eq!(m.outcome.as_deref(), Some("partial"));
        assert_eq!(m.task_names, ["second"]);
    }
}
