//! `memkit sync`.

use super::Ctx;
use crate::cli::SyncArgs;
use crate::error::Result;
use crate::stages::sync::{self, SyncReport};
use crate::ui;
use crate::util::time::now_secs;

/// Writes (or with `--dry-run` lists) the memory folder's inputs.
pub fn run(ctx: &Ctx, args: &SyncArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    let report = super::run_stage(&mut store, "sync", args.dry_run, |store| {
        Ok(sync::run(&ctx.cfg, store, now_secs(), args.dry_run)?.0)
    })?;
    print_report(ctx, &report);
    Ok(0)
}

/// Prints a sync report.
pub fn print_report(ctx: &Ctx, r: &SyncReport) {
    if ctx.json {
        ui::json_line(r);
        return;
    }
    let verb = if r.dry_run { "would " } else { "" };
    for f in &r.summaries_written {
        crate::outln!("{verb}write   {f}");
    }
    for f in &r.summaries_removed {
        crate::outln!("{verb}remove  {f}");
    }
    if r.raw_memories_changed {
        crate::outln!("{verb}write   raw_memories.md");
    }
    for f in &r.resources_pruned {
        crate::outln!("{verb}prune   {f}");
    }
    crate::outln!("{}", summary_line(r));
}

/// One line for people.
pub fn summary_line(r: &SyncReport) -> String {
    format!(
        "sync{}: {} memories selected; {} summaries written, {} unchanged, {} removed; raw_memories.md {}; {} old resources pruned",
        if r.dry_run { " (dry run)" } else { "" },
        r.selected,
        r.summaries_written.len(),
        r.summaries_unchanged,
        r.summaries_removed.len(),
        if r.raw_memories_changed {
            "updated"
        } else {
            "unchanged"
        },
        r.resources_pruned.len()
    )
}
