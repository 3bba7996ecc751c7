//! The consolidated view both files are rendered from: every selected session
//! with its parsed raw memory, grouped into projects by working directory, and
//! the interpreted notes. Preferences a note asked to forget are gone here.

use super::curate::Current;
use super::notes::NoteBook;
use super::rawparse::{ParsedMemory, clean_text, parse};
use crate::backends::consolidate::Note;
use crate::memory::files::SelectedOutput;

/// The block name of sessions without a working directory.
pub const UNKNOWN: &str = "unknown";
/// Outcomes a task may have; anything else reads as `uncertain`.
const OUTCOMES: &[&str] = &["success", "partial", "fail", "uncertain"];

/// One consolidated session.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Thread id.
    pub thread_id: String,
    /// Stem of its `rollout_summaries/` file.
    pub stem: String,
    /// Its project (working directory, or `unknown`).
    pub cwd: String,
    /// The session version consolidated, Unix seconds.
    pub updated_at: i64,
    /// Git branch, when known.
    pub branch: Option<String>,
    /// Times agents cited it.
    pub usage: i64,
    /// The task name.
    pub task: String,
    /// `success`, `partial`, `fail` or `uncertain`.
    pub outcome: String,
    /// The raw memory's reading (forgotten preferences removed).
    pub memory: ParsedMemory,
}

/// The sessions of one working directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The working directory (the block name).
    pub name: String,
    /// Indices into [`Digest::sessions`], ascending thread id.
    pub sessions: Vec<usize>,
}

/// Everything the renderers need.
#[derive(Debug, Clone, PartialEq)]
pub struct Digest {
    /// All sessions, ascending thread id.
    pub sessions: Vec<Session>,
    /// Projects ordered by name.
    pub projects: Vec<Project>,
    /// The notes.
    pub notes: NoteBook,
    /// What memory states as current, per project and globally.
    pub current: Current,
}

impl Digest {
    /// Builds the view of a selection and the notes (in file-name order).
    pub fn build(selection: &[SelectedOutput], notes: &[Note]) -> Digest {
        let mut ordered: Vec<&SelectedOutput> = selection.iter().collect();
        ordered.sort_by(|a, b| a.thread_id.cmp(&b.thread_id));
        let mut sessions: Vec<Session> = ordered.into_iter().map(session).collect();
        let all_preferences: Vec<&str> = sessions
            .iter()
            .flat_map(|s| s.memory.preferences.iter().map(String::as_str))
            .collect();
        let notes = NoteBook::read(notes, &all_preferences);
        for s in &mut sessions {
            s.memory.preferences.retain(|p| !notes.forgets(p));
        }
        let projects = group(&sessions);
        let current = Current::build(&sessions, &projects);
        Digest {
            sessions,
            projects,
            notes,
            current,
        }
    }

    /// The sessions of a project.
    pub fn sessions_of<'a>(
        &'a self,
        project: &'a Project,
    ) -> impl Iterator<Item = &'a Session> + 'a {
        project.sessions.iter().map(|&i| &self.sessions[i])
    }

    /// Whether there is nothing to consolidate at all.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.notes.is_empty()
    }
}

/// The last path segment of a project, for short mentions.
pub fn short_name(project: &str) -> &str {
    project
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(project)
}

/// Reads one selected output.
fn session(o: &SelectedOutput) -> Session {
    let memory = parse(&o.raw_memory);
    Session {
        thread_id: o.thread_id.clone(),
        stem: o.stem(),
        cwd: project_of(o.cwd.as_deref(), memory.cwd.as_deref()),
        updated_at: o.source_updated_at,
        branch: o
            .git_branch
            .as_deref()
            .map(clean_text)
            .filter(|b| !b.is_empty()),
        usage: o.usage_count.unwrap_or(0),
        task: task_name(&memory, o),
        outcome: outcome(memory.outcome.as_deref()),
        memory,
    }
}

/// The session's working directory, else the raw memory's, else `unknown`.
fn project_of(session_cwd: Option<&str>, memory_cwd: Option<&str>) -> String {
    [session_cwd, memory_cwd]
        .into_iter()
        .flatten()
        .map(|c| clean_text(c.trim()))
        .map(|c| {
            if c.len() > 1 {
                c.trim_end_matches('/').to_string()
            } else {
                c
            }
        })
        .find(|c| !c.is_empty() && c != UNKNOWN)
        .unwrap_or_else(|| UNKNOWN.to_string())
}

/// The task's name: front matter, first task heading, description, slug, thread id.
fn task_name(m: &ParsedMemory, o: &SelectedOutput) -> String {
    m.task
        .clone()
        .or_else(|| m.task_names.first().cloned())
        .or_else(|| m.description.clone())
        .or_else(|| o.rollout_slug.as_deref().map(clean_text))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| format!("session {}", o.thread_id))
}

/// A known outcome, lower-case, else `uncertain`.
fn outcome(raw: Option<&str>) -> String {
    let o = raw.unwrap_or("").trim().to_ascii_lowercase();
    let o = if o == "failure" || o == "failed" {
        "fail".to_string()
    } else {
        o
    };
    if OUTCOMES.contains(&o.as_str()) {
        o
    } else {
        "uncertain".to_string()
    }
}

/// Projects by name, each with its sessions in thread-id order.
fn group(sessions: &[Session]) -> Vec<Project> {
    let mut projects: Vec<Project> = Vec::new();
    for (i, s) in sessions.iter().enumerate() {
        match projects.iter_mut().find(|p| p.name == s.cwd) {
            Some(p) => p.sessions.push(i),
            None => projects.push(Project {
                name: s.cwd.clone(),
                sessions: vec![i],
            }),
        }
    }
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    projects
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A selected output for tests.
    pub(crate) fn output(
        id: &str,
        cwd: Option<&str>,
        updated_at: i64,
        raw: &str,
    ) -> SelectedOutput {
        SelectedOutput {
            thread_id: id.into(),
            source_updated_at: updated_at,
            raw_memory: raw.into(),
            rollout_summary: "# recap\n".into(),
            rollout_slug: Some("slug".into()),
            cwd: cwd.map(String::from),
            rollout_path: format!("/h/.codex/sessions/{id}.jsonl"),
            git_branch: Some("main".into()),
            usage_count: None,
            last_usage: None,
        }
    }

    #[test]
    fn groups_by_cwd_in_name_order_with_unknown_for_missing() {
        let sel = [
            output("t3", Some("/w/zeta/"), 3, "task: z"),
            output("t1", None, 1, "cwd: /w/alpha\ntask: a"),
            output("t2", None, 2, "free text"),
            output("t4", Some("/w/zeta"), 4, "task_outcome: Failed"),
        ];
        let d = Digest::build(&sel, &[]);
        let names: Vec<&str> = d.projects.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["/w/alpha", "/w/zeta", "unknown"]);
        assert_eq!(
            d.projects[1].sessions,
            [2, 3],
            "thread-id order inside a project"
        );
        assert_eq!(
            d.sessions[1].task, "slug",
            "the slug names a task without one"
        );
        assert_eq!(d.sessions[3].outcome, "fail");
        assert_eq!(d.sessions[1].outcome, "uncertain");
        assert_eq!(short_name("/w/zeta"), "zeta");
        assert_eq!(short_name("unknown"), "unknown");
    }

    #[test]
    fn forgotten_preferences_leave_every_session() {
        let raw = "Preference signals:\n- use npm for installs\n- keep commits small\n";
        let notes = [Note {
            file_name: "2026-01-01T00-00-00-x.md".into(),
            text: "forget npm".into(),
        }];
        let d = Digest::build(&[output("t1", Some("/w"), 1, raw)], &notes);
        assert_eq!(d.sessions[0].memory.preferences, ["keep commits small"]);
    }
}
