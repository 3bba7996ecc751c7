//! `memkit consolidate`.

use super::Ctx;
use crate::cli::ConsolidateArgs;
use crate::error::Result;
use crate::memory::validate::check_artifacts;
use crate::stages::consolidate::{self, ConsolidateOptions, ConsolidateReport};
use crate::stages::diff::inspect;
use crate::stages::record_stage;
use crate::ui;
use crate::util::time::{now_secs, when};

/// Runs phase 2; exit 0 when consolidated, nothing to do, or another process holds the lock.
pub fn run(ctx: &Ctx, args: &ConsolidateArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    if args.dry_run {
        return dry_run(ctx, &mut store, args);
    }
    let opts = ConsolidateOptions {
        backend: args.backend.map(|b| b.kind()),
        force: args.force,
        run_id: crate::util::ids::new_uuid_v4(),
        synced: None,
        inspected: None,
    };
    let report = record_stage(&mut store, &opts.run_id.clone(), "consolidate", |store| {
        consolidate::run(&ctx.cfg, store, &opts)
    })?;
    print_report(ctx, &report);
    Ok(0)
}

fn dry_run(ctx: &Ctx, store: &mut crate::store::Store, args: &ConsolidateArgs) -> Result<i32> {
    let (plan, _) = crate::stages::sync::run(&ctx.cfg, store, now_secs(), true)?;
    let root = &ctx.cfg.memory_root;
    let (pending, baseline) = if root.join(".git").is_dir() {
        let ws = inspect(root)?;
        (ws.changes.len(), ws.baseline.head_short()?)
    } else {
        (0, None)
    };
    let valid = check_artifacts(root).is_ok();
    let would_run = plan.changed_anything() || pending > 0 || !valid;
    let backend = consolidate::build_backend(&ctx.cfg, args.backend.map(|b| b.kind()))?;
    if ctx.json {
        ui::json_line(&serde_json::json!({
            "dry_run": true,
            "selected": plan.selected,
            "sync_changes": plan.summaries_written.len() + plan.summaries_removed.len() + usize::from(plan.raw_memories_changed),
            "folder_changes": pending,
            "artifacts_valid": valid,
            "baseline": baseline,
            "backend": backend.name(),
            "would_run_backend": would_run,
        }));
    } else {
        crate::outln!("{}", crate::cmd::sync::summary_line(&plan));
        crate::outln!(
            "consolidate (dry run): {pending} changed files in the folder, artifacts {}; the {} backend {}",
            if valid { "valid" } else { "missing or invalid" },
            backend.name(),
            if would_run {
                "would run"
            } else {
                "would not be called"
            }
        );
    }
    Ok(0)
}

/// Prints a consolidation report.
pub fn print_report(ctx: &Ctx, r: &ConsolidateReport) {
    if ctx.json {
        ui::json_line(r);
        return;
    }
    crate::outln!("{}", summary_line(r, now_secs()));
    if r.hand_edited_lines > 0 {
        ui::info(format!(
            "kept {} line(s) of MEMORY.md / memory_summary.md that you edited by hand (\"Pinned by the user\")",
            r.hand_edited_lines
        ));
    }
    for path in &r.edits_during_run {
        ui::warn(format!(
            "{path} changed while consolidating; the next consolidation will pick it up"
        ));
    }
}

/// One line for people (with the read paths refreshed afterwards).
pub fn summary_line(r: &ConsolidateReport, now: i64) -> String {
    let mut line = outcome_line(r, now);
    let refreshed: Vec<String> = r
        .read_paths
        .iter()
        .filter(|p| p.error.is_none())
        .map(|p| {
            let cut = p
                .fit
                .as_ref()
                .filter(|f| f.left_out > 0)
                .map_or(String::new(), |f| {
                    format!(", {} {} of the summary left out", f.left_out, f.unit)
                });
            format!(
                "{}{}{cut}",
                p.agent.name(),
                if p.changed { "" } else { " (unchanged)" }
            )
        })
        .collect();
    if !refreshed.is_empty() {
        line.push_str(&format!(
            "; memory block refreshed for {}",
            refreshed.join(", ")
        ));
    }
    line
}

fn outcome_line(r: &ConsolidateReport, now: i64) -> String {
    let when = |t: Option<i64>| t.map(|t| when(t, now)).unwrap_or_default();
    match r.outcome {
        "consolidated" => format!(
            "consolidate: {} inputs, {} changed files → {} ({} {}), commit {}; tokens {} in / {} out",
            r.inputs,
            r.changes,
            "MEMORY.md, memory_summary.md",
            r.backend,
            r.model,
            r.commit.as_deref().unwrap_or("unchanged"),
            r.tokens_in,
            r.tokens_out
        ),
        "no_changes" => format!(
            "consolidate: nothing changed since the last consolidation ({} inputs); no backend call",
            r.inputs
        ),
        "locked" => format!(
            "consolidate: another consolidation is running ({}, lease until {}); nothing done",
            r.lock_holder.as_deref().unwrap_or("unknown worker"),
            when(r.until)
        ),
        "cooldown" => format!(
            "consolidate: in cooldown until {}; nothing done",
            when(r.until)
        ),
        "backoff" => format!(
            "consolidate: the last attempt failed ({}); next retry at {} (`memkit consolidate --force` retries now; changing the config retries at the next run)",
            r.error.as_deref().unwrap_or("unknown error"),
            when(r.until)
        ),
        "retries_exhausted" => format!(
            "consolidate: stopped after repeated failures ({}); fix the cause, then run `memkit consolidate --force` (or change the config: the next run retries)",
            r.error.as_deref().unwrap_or("unknown error")
        ),
        other => format!("consolidate: {other}"),
    }
}
