//! `memkit prune`.

use super::Ctx;
use crate::cli::PruneArgs;
use crate::error::Result;
use crate::stages::prune::{self, PruneReport};
use crate::ui;
use crate::util::time::{now_secs, rfc3339};

/// Deletes (or lists, with `--dry-run`) unused stage-1 outputs.
pub fn run(ctx: &Ctx, args: &PruneArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    let now = now_secs();
    let report = super::run_stage(&mut store, "prune", args.dry_run, |store| {
        prune::run(&ctx.cfg, store, args.limit, args.dry_run, now)
    })?;
    if ctx.json {
        for p in &report.pruned {
            ui::json_line(p);
        }
        return Ok(0);
    }
    let verb = if report.dry_run {
        "would prune"
    } else {
        "pruned"
    };
    for p in &report.pruned {
        crate::outln!(
            "{verb} {} ({} {})",
            p.thread_id,
            if p.cited {
                "last used"
            } else {
                "never used; session updated"
            },
            rfc3339(p.last_relevant)
        );
    }
    crate::outln!("{}", summary_line(&report));
    Ok(0)
}

/// One line for people.
pub fn summary_line(r: &PruneReport) -> String {
    format!(
        "prune: {} {} unused memories",
        if r.dry_run { "would delete" } else { "deleted" },
        r.pruned.len()
    )
}
