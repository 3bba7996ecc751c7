//! `memkit diff`: prints the memory folder's changes as git would.

use super::Ctx;
use crate::cli::DiffArgs;
use crate::error::Result;
use crate::memory::diff::{line_counts, unified};
use crate::stages::diff::{inspect, write_diff_file};
use crate::ui;
use serde::Serialize;

#[derive(Serialize)]
struct FileChange {
    path: String,
    status: crate::memory::git::Status,
    added: usize,
    removed: usize,
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
    Ok(if args.exit_code && changed { 1 } else { 0 })
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
