//! Splitting memory files into search units: a `MEMORY.md` task block or
//! bullet, a summary bullet, a rollout-summary step, a raw-memory line, a
//! note, a skill — each with its line range, project, sessions and date.
//!
//! The splitter knows the memory layout's few structural lines (Codex's
//! `# Task Group:` headings, `thread_id:` / `cwd:` metadata, rollout file
//! references) and treats everything else as Markdown: a bullet with its
//! continuation lines, or a paragraph, is one unit; headings become the
//! unit's context.

use crate::memory::{
    MEMORY_MD, MEMORY_SUMMARY_MD, RAW_MEMORIES_MD, ROLLOUT_SUMMARIES_DIR, SKILLS_DIR,
};
use std::collections::BTreeMap;

/// Longest unit text kept, bytes (a longer paragraph is cut; search is for
/// finding a place, `get_memory` reads the whole of it).
const MAX_UNIT_BYTES: usize = 4096;

/// One searchable piece of a memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The file, relative to the memory folder (`/`-separated).
    pub file: String,
    /// First line (1-based).
    pub line_start: usize,
    /// Last line (1-based, inclusive).
    pub line_end: usize,
    /// What the unit is: `task`, `bullet`, `paragraph`, `note` or `skill`.
    pub kind: &'static str,
    /// The project (session cwd) the unit is about, when the file says.
    pub project: Option<String>,
    /// Session (thread) ids the unit came from.
    pub sessions: Vec<String>,
    /// When its newest session was updated (Unix seconds), when known.
    pub date: Option<i64>,
    /// The headings above the unit, outermost first, joined by ` › `.
    pub context: String,
    /// The unit's text as it stands in the file (lines joined by `\n`).
    pub text: String,
}

/// Which layout rules apply to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Handbook,
    Summary,
    RawMemories,
    RolloutSummary,
    Note,
    Skill,
}

/// Whether `rel` (a `/`-separated path inside the memory folder) is a memory
/// file that search indexes.
pub fn is_indexed(rel: &str) -> bool {
    file_kind(rel).is_some()
}

fn file_kind(rel: &str) -> Option<FileKind> {
    if !rel.ends_with(".md") || rel.split('/').any(|p| p.is_empty() || p.starts_with('.')) {
        return None;
    }
    match rel {
        MEMORY_MD => return Some(FileKind::Handbook),
        MEMORY_SUMMARY_MD => return Some(FileKind::Summary),
        RAW_MEMORIES_MD => return Some(FileKind::RawMemories),
        _ => {}
    }
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        [dir, _] if *dir == ROLLOUT_SUMMARIES_DIR => Some(FileKind::RolloutSummary),
        ["extensions", "ad_hoc", "notes", _] => Some(FileKind::Note),
        [dir, .., _] if *dir == SKILLS_DIR => Some(FileKind::Skill),
        _ => None,
    }
}

/// Metadata keys of rollout summaries and raw memories: they describe the
/// section, they are not memory.
const METADATA_KEYS: &[&str] = &[
    "thread_id",
    "updated_at",
    "rollout_path",
    "rollout_summary_file",
    "cwd",
    "git_branch",
    "task",
    "task_group",
    "task_outcome",
    "keywords",
    "scope",
    "applies_to",
    "name",
];

/// What the lines read so far say about the units that follow.
#[derive(Debug, Default, Clone)]
struct Scope {
    project: Option<String>,
    sessions: Vec<String>,
    date: Option<i64>,
    /// Headings by level (index 0 = `#`).
    headings: [Option<String>; 4],
    /// `## Task N` → its sessions and date, within a handbook task group.
    tasks: BTreeMap<u32, (Vec<String>, Option<i64>)>,
    /// The task whose section the reader is in.
    task: Option<u32>,
}

impl Scope {
    fn context(&self, label: Option<&str>) -> String {
        let mut parts: Vec<&str> = self.headings.iter().flatten().map(String::as_str).collect();
        parts.extend(label);
        parts.join(" › ")
    }

    fn set_heading(&mut self, level: usize, text: &str) {
        let level = level.clamp(1, 4) - 1;
        self.headings[level] = Some(text.to_string());
        for h in &mut self.headings[level + 1..] {
            *h = None;
        }
    }
}

/// Splits `text`, the contents of the memory file `rel`, into units.
/// Returns nothing for a file search does not index.
pub fn split(rel: &str, text: &str) -> Vec<Unit> {
    let Some(kind) = file_kind(rel) else {
        return Vec::new();
    };
    let mut splitter = Splitter {
        rel,
        kind,
        scope: Scope::default(),
        units: Vec::new(),
        label: None,
    };
    if kind == FileKind::Note {
        splitter.scope.date = note_date(rel);
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    if kind == FileKind::Skill && lines.first().is_some_and(|l| l.trim() == "---") {
        i = splitter.front_matter(&lines);
    }
    while i < lines.len() {
        i = splitter.line(&lines, i);
    }
    splitter.units
}

struct Splitter<'a> {
    rel: &'a str,
    kind: FileKind,
    scope: Scope,
    units: Vec<Unit>,
    /// A `Key steps:`-style label line: context for the bullets under it.
    label: Option<String>,
}

impl Splitter<'_> {
    /// Reads from line `i`; returns the index of the next unread line.
    fn line(&mut self, lines: &[&str], i: usize) -> usize {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed == "---" || (i == 0 && trimmed == "v1") {
            return i + 1;
        }
        if let Some((level, title)) = heading(trimmed) {
            self.heading(level, title, lines, i)
        } else if self.metadata(trimmed) {
            i + 1
        } else if bullet_text(trimmed).is_some() {
            let end = continuation_end(lines, i, true);
            if !self.file_reference(trimmed) {
                self.push(
                    if self.kind == FileKind::Note {
                        "note"
                    } else {
                        "bullet"
                    },
                    lines,
                    i,
                    end,
                );
            }
            end + 1
        } else if trimmed.ends_with(':') && trimmed.len() <= 60 && !trimmed.contains("`") {
            self.label = Some(trimmed.trim_end_matches(':').to_string());
            i + 1
        } else {
            let end = continuation_end(lines, i, false);
            if self.in_task_keywords() {
                // The task unit already holds them.
                return end + 1;
            }
            let kind = match self.kind {
                FileKind::Note => "note",
                FileKind::Skill => "skill",
                _ => "paragraph",
            };
            self.push(kind, lines, i, end);
            end + 1
        }
    }

    fn heading(&mut self, level: usize, title: &str, lines: &[&str], i: usize) -> usize {
        self.label = None;
        if self.kind == FileKind::Handbook && level == 1 {
            self.scope.tasks.clear();
            self.scope.task = None;
            self.scope.project = title
                .strip_prefix("Task Group:")
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty());
            self.scope.tasks = group_tasks(lines, i);
        }
        if matches!(self.kind, FileKind::Summary) && level == 3 && looks_like_path(title) {
            self.scope.project = Some(title.to_string());
        }
        if matches!(self.kind, FileKind::Summary) && level == 2 {
            self.scope.project = None;
        }
        if self.kind == FileKind::RawMemories && level == 2 {
            // `## Thread `<id>``: a new session's section.
            self.scope.project = None;
            self.scope.date = None;
            self.scope.sessions = title
                .strip_prefix("Thread")
                .map(|id| id.trim().trim_matches('`').to_string())
                .filter(|id| !id.is_empty())
                .into_iter()
                .collect();
        }
        self.scope.set_heading(level, title);
        if self.kind == FileKind::Handbook && level == 2 {
            self.scope.task = task_number(title);
            if self.scope.task.is_some() {
                // The task block: its heading with the keywords below it.
                let end = section_end(lines, i);
                // Every line of the keywords section (a long list wraps).
                let keywords = lines[i + 1..=end]
                    .iter()
                    .position(|l| l.trim() == "### keywords")
                    .map(|at| {
                        lines[i + 2 + at..=end]
                            .iter()
                            .map(|l| l.trim())
                            .take_while(|l| heading(l).is_none())
                            .filter(|l| !l.is_empty())
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                let text = if keywords.is_empty() {
                    title.to_string()
                } else {
                    format!("{title}\nkeywords: {keywords}")
                };
                let unit = self.unit("task", i, end, text);
                self.units.push(unit);
            }
        }
        i + 1
    }

    /// Whether the reader is in a handbook task's `### keywords` section,
    /// which the task's own unit carries.
    fn in_task_keywords(&self) -> bool {
        self.kind == FileKind::Handbook
            && self.scope.task.is_some()
            && self.scope.headings[2].as_deref() == Some("keywords")
    }

    /// A `key: value` line of rollout-summary or raw-memory metadata: it
    /// sets the scope and is not a unit.
    fn metadata(&mut self, line: &str) -> bool {
        if matches!(self.kind, FileKind::Note) {
            return false;
        }
        let Some((key, value)) = line.split_once(": ").or_else(|| line.split_once(':')) else {
            return false;
        };
        if !METADATA_KEYS.contains(&key) {
            return false;
        }
        let value = value.trim();
        match key {
            "cwd" => self.scope.project = Some(value.to_string()),
            "thread_id" if !value.is_empty() && !self.scope.sessions.iter().any(|s| s == value) => {
                self.scope.sessions.push(value.to_string());
            }
            "updated_at" => {
                self.scope.date = crate::util::time::parse_rfc3339_millis(value).map(|ms| ms / 1000)
            }
            _ => {}
        }
        true
    }

    /// A handbook `rollout_summaries/…` reference bullet: it names the
    /// task's session (read ahead by [`group_tasks`]) and is not memory itself.
    fn file_reference(&self, line: &str) -> bool {
        self.kind == FileKind::Handbook
            && self.scope.headings[2].as_deref() == Some("rollout_summary_files")
            && line.contains("thread_id=")
    }

    /// Skill front matter (`name:`, `description:`) as the skill's first unit.
    fn front_matter(&mut self, lines: &[&str]) -> usize {
        let Some(close) = lines[1..].iter().position(|l| l.trim() == "---") else {
            return 0;
        };
        let close = close + 1;
        let mut name = String::new();
        let mut description = String::new();
        for line in &lines[1..close] {
            if let Some(v) = line.strip_prefix("name:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("description:") {
                description = v.trim().to_string();
            }
        }
        if !name.is_empty() {
            self.scope.set_heading(1, &format!("skill {name}"));
        }
        let text = [name.as_str(), description.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(": ");
        if !text.is_empty() {
            let unit = self.unit("skill", 0, close, text);
            self.units.push(unit);
        }
        close + 1
    }

    fn push(&mut self, kind: &'static str, lines: &[&str], start: usize, end: usize) {
        let text = lines[start..=end]
            .iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n");
        let unit = self.unit(kind, start, end, text);
        self.units.push(unit);
    }

    fn unit(&self, kind: &'static str, start: usize, end: usize, text: String) -> Unit {
        let text = crate::util::text::cut(&text, MAX_UNIT_BYTES).to_string();
        let (sessions, date) = if self.kind == FileKind::Handbook {
            self.handbook_sessions(&text)
        } else {
            (self.scope.sessions.clone(), self.scope.date)
        };
        Unit {
            file: self.rel.to_string(),
            line_start: start + 1,
            line_end: end + 1,
            kind,
            project: self.scope.project.clone(),
            sessions,
            date,
            // A heading clears the label, so a task block or skill has none.
            context: self.scope.context(self.label.as_deref()),
            text,
        }
    }
}

impl Splitter<'_> {
    /// A handbook unit's sessions and date: those of the task whose section
    /// it is in, else of the tasks it cites (`[Task 2]`), else of every task
    /// in its group.
    fn handbook_sessions(&self, text: &str) -> (Vec<String>, Option<i64>) {
        let tasks = &self.scope.tasks;
        let chosen: Vec<u32> = match self.scope.task {
            Some(n) => vec![n],
            None => {
                let cited = cited_tasks(text);
                if cited.is_empty() {
                    tasks.keys().copied().collect()
                } else {
                    cited
                }
            }
        };
        let mut sessions: Vec<String> = Vec::new();
        let mut date = None;
        for (ids, when) in chosen.iter().filter_map(|n| tasks.get(n)) {
            for id in ids {
                if !sessions.contains(id) {
                    sessions.push(id.clone());
                }
            }
            date = date.max(*when);
        }
        (sessions, date)
    }
}

/// The sessions and dates of each `## Task N` in the handbook task group
/// whose heading is line `start`, from its `rollout_summary_files` bullets.
fn group_tasks(lines: &[&str], start: usize) -> BTreeMap<u32, (Vec<String>, Option<i64>)> {
    let mut tasks: BTreeMap<u32, (Vec<String>, Option<i64>)> = BTreeMap::new();
    let mut task = None;
    for line in &lines[start + 1..] {
        let t = line.trim();
        match heading(t) {
            Some((1, _)) => break,
            Some((2, title)) => task = task_number(title),
            _ => {}
        }
        let Some(n) = task else { continue };
        let field = |name: &str| {
            t.split([' ', '(', ')', ','])
                .find_map(|w| w.strip_prefix(name))
                .map(str::to_string)
        };
        let entry = tasks.entry(n).or_default();
        if let Some(id) = field("thread_id=") {
            entry.0.push(id);
        }
        let date = field("updated_at=")
            .and_then(|d| crate::util::time::parse_rfc3339_millis(&d))
            .map(|ms| ms / 1000);
        entry.1 = entry.1.max(date);
    }
    tasks
}

/// `#`–`####` headings: (level, text).
fn heading(line: &str) -> Option<(usize, &str)> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=4).contains(&level) {
        return None;
    }
    line[level..]
        .strip_prefix(' ')
        .map(|t| (level, t.trim()))
        .filter(|(_, t)| !t.is_empty())
}

/// The text of a `- `, `* ` or `1. ` list item.
fn bullet_text(line: &str) -> Option<&str> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some(rest);
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0)
        .then(|| line[digits..].strip_prefix(". "))
        .flatten()
}

/// The last line of the bullet or paragraph that starts at `start`.
fn continuation_end(lines: &[&str], start: usize, bullet: bool) -> usize {
    let mut end = start;
    while let Some(next) = lines.get(end + 1) {
        let t = next.trim();
        let continues = if bullet {
            !t.is_empty() && next.starts_with([' ', '\t']) && bullet_text(t).is_none()
        } else {
            !t.is_empty() && heading(t).is_none() && bullet_text(t).is_none() && t != "---"
        };
        if !continues {
            break;
        }
        end += 1;
    }
    end
}

/// The last line of the `##` section that starts at `start`.
fn section_end(lines: &[&str], start: usize) -> usize {
    let mut end = start;
    while let Some(next) = lines.get(end + 1) {
        if heading(next.trim()).is_some_and(|(level, _)| level <= 2) {
            break;
        }
        end += 1;
    }
    while end > start && lines[end].trim().is_empty() {
        end -= 1;
    }
    end
}

/// `Task 3: …` → 3.
fn task_number(title: &str) -> Option<u32> {
    let rest = title.strip_prefix("Task ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The `[Task N]` references in a handbook bullet.
fn cited_tasks(text: &str) -> Vec<u32> {
    text.match_indices("[Task ")
        .filter_map(|(at, _)| task_number(&text[at + 1..]))
        .collect()
}

fn looks_like_path(title: &str) -> bool {
    title.starts_with('/') || title.starts_with('~') || title.contains(":\\")
}

/// A note's date, from its `YYYY-MM-DDTHH-MM-SS-` file name.
fn note_date(rel: &str) -> Option<i64> {
    let name = rel.rsplit('/').next()?;
    crate::util::time::parse_file_stamp(name.get(..19)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rollout_summary_gives_its_session_project_and_date_to_every_step() {
        let text = "thread_id: abc\nupdated_at: 2026-11-03T10:00:00Z\ncwd: /src/app\n\n# Fix it\n\n\
                    Rollout context: a session.\n\n## Task 1: Fix it (success)\nKey steps:\n- ran `make` (ok)\n  and more\n- second\n";
        let units = split("rollout_summaries/x.md", text);
        let texts: Vec<&str> = units.iter().map(|u| u.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Rollout context: a session.",
                "- ran `make` (ok)\n  and more",
                "- second"
            ]
        );
        let step = &units[1];
        assert_eq!((step.line_start, step.line_end), (11, 12));
        assert_eq!(step.project.as_deref(), Some("/src/app"));
        assert_eq!(step.sessions, ["abc"]);
        assert_eq!(step.date, Some(1_793_700_000));
        assert_eq!(
            step.context,
            "Fix it › Task 1: Fix it (success) › Key steps"
        );
    }

    #[test]
    fn raw_memories_scope_each_thread_separately() {
        let text = "# Raw Memories\n\n## Thread `t1`\ncwd: /a\n---\ndescription: did a\n---\n- fact a\n\n\
                    ## Thread `t2`\ncwd: /b\n- fact b\n";
        let units = split("raw_memories.md", text);
        let facts: Vec<(&str, Option<&str>, Vec<String>)> = units
            .iter()
            .map(|u| (u.text.as_str(), u.project.as_deref(), u.sessions.clone()))
            .collect();
        assert_eq!(
            facts,
            [
                ("description: did a", Some("/a"), vec!["t1".to_string()]),
                ("- fact a", Some("/a"), vec!["t1".to_string()]),
                ("- fact b", Some("/b"), vec!["t2".to_string()]),
            ]
        );
    }

    #[test]
    fn a_handbook_tasks_keywords_are_in_its_unit_and_nowhere_else() {
        let text = "# Task Group: /src/app\n\n## Task 1: Ship it, success\n### rollout_summary_files\n\
                    - rollout_summaries/a.md (cwd=/src/app, thread_id=t1)\n### keywords\n\nfastlane,\ntestflight\n\n\
                    ## Reusable knowledge\n- `make ship` works [Task 1]\n";
        let units = split(MEMORY_MD, text);
        let kinds: Vec<&str> = units.iter().map(|u| u.kind).collect();
        assert_eq!(kinds, ["task", "bullet"], "{units:#?}");
        assert_eq!(
            units[0].text,
            "Task 1: Ship it, success\nkeywords: fastlane, testflight"
        );
    }

    #[test]
    fn files_outside_the_layout_are_not_split() {
        assert!(split("phase2_workspace_diff.md", "- x\n").is_empty());
        assert!(split("extensions/ad_hoc/instructions.md", "- x\n").is_empty());
        assert!(split("rollout_summaries/a/b.md", "- x\n").is_empty());
        assert!(split("MEMORY.txt", "- x\n").is_empty());
        assert!(split("skills/../../etc/x.md", "- x\n").is_empty());
        assert!(split("/MEMORY.md", "- x\n").is_empty());
        assert!(!split("skills/a/scripts/run.md", "- x\n").is_empty());
    }
}
