//! `memkit diff`: prints the memory folder's changes as git would.

use super::Ctx;
use crate::cli::DiffArgs;
use crate::error::Result;
use crate::memory::diff::{line_counts, unified};
use crate::memory::{MEMORY_MD, MEMORY_SUMMARY_MD, RAW_MEMORIES_MD, ROLLOUT_SUMMARIES_DIR};
use crate::stages::diff::{inspect, write_diff_file};
use crate::ui;
use serde::Serialize;

#[derive(Serialize)]
struct FileChange {
    path: String,
    status: crate::memory::git::Status,
    added: usize,
    removed: usize,
    /// Who made the change: `user` (a hand edit since memkit's last
    /// commit) or `memkit` (sync's outputs, committed by the next
    /// consolidation).
    by: &'static str,
}

/// Who changed a path since memkit's last commit: memkit writes only the
/// sync outputs between commits; everything else is the user's hand.
fn author(path: &str) -> &'static str {
    if path == RAW_MEMORIES_MD || path.starts_with(&format!("{ROLLOUT_SUMMARIES_DIR}/")) {
        "memkit"
    } else {
        "user"
    }
}

#[derive(Serialize)]
struct DiffSummary {
    baseline: Option<String>,
    files_changed: usize,
    insertions: usize,
    deletions: usize,
    changes: Vec<FileChange>,
}

/// Prints the diff; writes `phase2_workspace_diff.md`.
pub fn run(ctx: &Ctx, args: &DiffArgs) -> Result<i32> {
    let root = &ctx.cfg.memory_root;
    let ws = inspect(root)?;
    write_diff_file(root, &ws)?;
    let changed = !ws.changes.is_empty();
    if ctx.json || args.stat {
        let mut changes = Vec::new();
        for c in &ws.changes {
            let (added, removed) = line_counts(&ws.baseline, c)?;
            changes.push(FileChange {
                path: c.path.clone(),
                status: c.status,
                added,
                removed,
                by: author(&c.path),
            });
        }
        let summary = DiffSummary {
            baseline: ws.baseline.head_short()?,
            files_changed: changes.len(),
            insertions: changes.iter().map(|c| c.added).sum(),
            deletions: changes.iter().map(|c| c.removed).sum(),
            changes,
        };
        if ctx.json {
            ui::json_line(&summary);
        } else {
            print_stat(&summary);
        }
    } else if args.name_status {
        for c in &ws.changes {
            crate::outln!("{}\t{}", c.status.letter(), c.path);
        }
    } else {
        let text = unified(&ws.baseline, &ws.changes)?;
        crate::ui::write_stdout(format_args!("{text}"));
    }
    let edited: Vec<_> = ws
        .changes
        .iter()
        .filter(|c| is_pinned_output(&c.path))
        .collect();
    let baseline = if edited.is_empty() {
        String::new()
    } else {
        ws.baseline.head_short()?.unwrap_or_default()
    };
    for c in edited {
        ui::info(format!(
            "{}: edited by you since memkit's commit {baseline}; the next consolidation keeps your lines (under \"{}\")",
            c.path,
            crate::memory::pins::PINNED_HEADING.trim_start_matches("## ")
        ));
    }
    Ok(if args.exit_code && changed { 1 } else { 0 })
}

/// Whether a path is one whose hand edits consolidation keeps.
fn is_pinned_output(path: &str) -> bool {
    path == MEMORY_MD || path == MEMORY_SUMMARY_MD
}

/// `git diff --stat` layout: ` path | N +++--` and a totals line.
fn print_stat(s: &DiffSummary) {
    if s.changes.is_empty() {
        return;
    }
    let width = s.changes.iter().map(|c| c.path.len()).max().unwrap_or(0);
    let most = s
        .changes
        .iter()
        .map(|c| c.added + c.removed)
        .max()
        .unwrap_or(0)
        .max(1);
    let digits = most.to_string().len();
    let bar = 40usize;
    for c in &s.changes {
        let n = c.added + c.removed;
        let scale = |x: usize| {
            if most > bar {
                (x * bar).div_ceil(most)
            } else {
                x
            }
        };
        crate::outln!(
            " {:<width$} | {:>digits$} {}{}",
            c.path,
            n,
            "+".repeat(scale(c.added)),
            "-".repeat(scale(c.removed))
        );
    }
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    let mut line = format!(
        " {} {} changed",
        s.files_changed,
        plural(s.files_changed, "file", "files")
    );
    if s.insertions > 0 {
        line.push_str(&format!(
            ", {} {}(+)",
            s.insertions,
            plural(s.insertions, "insertion", "insertions")
        ));
    }
    if s.deletions > 0 {
        line.push_str(&format!(
            ", {} {}(-)",
            s.deletions,
            plural(s.deletions, "deletion", "deletions")
        ));
    }
    crate::outln!("{line}");
}
