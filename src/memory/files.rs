//! The inputs phase 2 writes: `rollout_summaries/<stem>.md` and `raw_memories.md`,
//! byte for byte in Codex's v1 format.

use super::stem::rollout_summary_file_stem;
use crate::util::text::{inert_line, inert_text};
use crate::util::time::rfc3339;
use serde::Serialize;

/// A stage-1 output chosen for consolidation, with its session's details.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelectedOutput {
    /// Thread id.
    pub thread_id: String,
    /// The session version the output describes, Unix seconds.
    pub source_updated_at: i64,
    /// The raw memory.
    pub raw_memory: String,
    /// The session recap.
    pub rollout_summary: String,
    /// Slug for the file name.
    pub rollout_slug: Option<String>,
    /// Working directory of the session.
    pub cwd: Option<String>,
    /// The session file.
    pub rollout_path: String,
    /// Git branch of the session.
    pub git_branch: Option<String>,
    /// Times cited by agents.
    pub usage_count: Option<i64>,
    /// Last citation, Unix seconds.
    pub last_usage: Option<i64>,
}

impl SelectedOutput {
    /// The summary file's stem.
    pub fn stem(&self) -> String {
        rollout_summary_file_stem(
            &self.thread_id,
            self.source_updated_at,
            self.rollout_slug.as_deref(),
        )
    }
}

/// `rollout_summaries/<stem>.md`: header lines, a blank line, the summary.
pub fn render_rollout_summary(o: &SelectedOutput) -> String {
    let mut out = format!(
        "thread_id: {}\nupdated_at: {}\nrollout_path: {}\ncwd: {}\n",
        inert_line(&o.thread_id),
        rfc3339(o.source_updated_at),
        inert_line(&o.rollout_path),
        inert_line(o.cwd.as_deref().unwrap_or("unknown"))
    );
    if let Some(branch) = o.git_branch.as_deref().filter(|b| !b.is_empty()) {
        out.push_str(&format!("git_branch: {}\n", inert_line(branch)));
    }
    out.push('\n');
    out.push_str(&inert_text(o.rollout_summary.trim_end()));
    out.push('\n');
    out
}

/// `raw_memories.md` for a selection sorted by ascending thread id.
pub fn render_raw_memories(selection: &[SelectedOutput]) -> String {
    let mut out = String::from("# Raw Memories\n\n");
    if selection.is_empty() {
        out.push_str("No raw memories yet.\n");
        return out;
    }
    out.push_str("Merged stage-1 raw memories (stable ascending thread-id order):\n\n");
    for o in selection {
        out.push_str(&format!(
            "## Thread `{}`\nupdated_at: {}\ncwd: {}\nrollout_path: {}\nrollout_summary_file: {}.md\n\n{}\n\n",
            inert_line(&o.thread_id),
            rfc3339(o.source_updated_at),
            inert_line(o.cwd.as_deref().unwrap_or("unknown")),
            inert_line(&o.rollout_path),
            o.stem(),
            inert_text(o.raw_memory.trim())
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(id: &str, branch: Option<&str>) -> SelectedOutput {
        SelectedOutput {
            thread_id: id.into(),
            source_updated_at: 1_739_288_119,
            raw_memory: "  ---\ndescription: d\n---\nbody  \n".into(),
            rollout_summary: "# Title\n\nRollout context: x\n\n".into(),
            rollout_slug: Some("fix login".into()),
            cwd: Some("/w/api".into()),
            rollout_path: "/h/.codex/sessions/r.jsonl".into(),
            git_branch: branch.map(String::from),
            usage_count: None,
            last_usage: None,
        }
    }

    #[test]
    fn summary_file_exactly() {
        let o = output("0194f5a6-89ab-7cde-8123-456789abcdef", Some("main"));
        assert_eq!(
            render_rollout_summary(&o),
            "thread_id: 0194f5a6-89ab-7cde-8123-456789abcdef\nupdated_at: 2025-02-11T15:35:19Z\n\
             rollout_path: /h/.codex/sessions/r.jsonl\ncwd: /w/api\ngit_branch: main\n\n\
             # Title\n\nRollout context: x\n"
        );
        assert!(!render_rollout_summary(&output("x", None)).contains("git_branch"));
    }

    #[test]
    fn raw_memories_exactly() {
        assert_eq!(
            render_raw_memories(&[]),
            "# Raw Memories\n\nNo raw memories yet.\n"
        );
        let o = output("0194f5a6-89ab-7cde-8123-456789abcdef", None);
        assert_eq!(
            render_raw_memories(&[o]),
            "# Raw Memories\n\nMerged stage-1 raw memories (stable ascending thread-id order):\n\n\
             ## Thread `0194f5a6-89ab-7cde-8123-456789abcdef`\nupdated_at: 2025-02-11T15:35:19Z\n\
             cwd: /w/api\nrollout_path: /h/.codex/sessions/r.jsonl\n\
             rollout_summary_file: 2025-02-11T15-35-19-jqmb-fix_login.md\n\n\
             ---\ndescription: d\n---\nbody\n\n"
        );
    }
}
