//! `memkit run`: the nightly pipeline with a summary per stage.

use super::Ctx;
use crate::cli::RunArgs;
use crate::error::Result;
use crate::stages::run::{self, RunOptions, RunReport, Stage, StageReport, StageRun};
use crate::ui;
use crate::util::time::{human_duration, now_secs, rfc3339};
use std::io::IsTerminal;

/// Runs the pipeline; exit 1 when a stage failed, 0 when another run is active.
pub fn run(ctx: &Ctx, args: &RunArgs) -> Result<i32> {
    let stages = match &args.stages {
        Some(list) => run::parse_stages(list)?,
        None => Stage::ALL.to_vec(),
    };
    let opts = RunOptions {
        stages,
        wait: args.wait,
        max_tokens: args.max_tokens,
        wait_batches: args.wait_batches,
        progress: std::io::stderr().is_terminal() && !ctx.json,
        run_id: crate::util::ids::new_uuid_v4(),
    };
    let widened;
    let cfg = match args.since {
        Some(since) => {
            widened = ctx.cfg.with_history_window(since);
            &widened
        }
        None => &ctx.cfg,
    };
    let mut store = ctx.store()?;
    match ui::start_run_log(&cfg.logs_dir(), &opts.run_id, now_secs()) {
        Ok(path) => ui::log_line(&format!(
            "memkit run {} (log {})",
            opts.run_id,
            path.display()
        )),
        Err(e) => ui::warn(format!(
            "cannot write a run log in {}: {e}",
            cfg.logs_dir().display()
        )),
    }
    let report = run::run(cfg, &mut store, &opts)?;
    if let Some(holder) = &report.locked_by {
        let msg = format!(
            "another run is active ({holder}, since {}); nothing done (use --wait to wait for it)",
            report.locked_since.map(rfc3339).unwrap_or_default()
        );
        ui::log_line(&msg);
        if ctx.json {
            ui::json_line(&report);
        } else {
            crate::outln!("{msg}");
        }
        return Ok(0);
    }
    for s in &report.stages {
        ui::log_line(&stage_line(s));
    }
    for problem in &report.file_problems {
        ui::warn(problem);
    }
    if ctx.json {
        ui::json_line(&report);
    } else {
        for s in &report.stages {
            crate::outln!("{}", stage_line(s));
        }
        if let Some(cost) = &report.cost {
            crate::outln!("{}", super::spend::cost_line(cost, "tonight"));
        }
        crate::outln!("{}", summary_line(&report));
    }
    Ok(if report.failed() { 1 } else { 0 })
}

/// One line per stage, reusing each command's own summary.
fn stage_line(s: &StageRun) -> String {
    match (&s.report, &s.error) {
        (Some(StageReport::Prune(r)), _) => super::prune::summary_line(r),
        (Some(StageReport::CiteImport(r)), _) => super::cite_import::summary_line(r),
        (Some(StageReport::Extract(r)), _) => super::extract::summary_line(r),
        (Some(StageReport::Sync(r)), _) => super::sync::summary_line(r),
        (Some(StageReport::Diff(r)), _) => format!(
            "diff: {} changed files since the baseline {}",
            r.changes,
            r.baseline.as_deref().unwrap_or("(new)")
        ),
        (Some(StageReport::Consolidate(r)), _) => super::consolidate::summary_line(r, now_secs()),
        (None, Some(e)) => format!("{}: {} — {e}", s.stage.name(), s.outcome),
        (None, None) => format!("{}: {}", s.stage.name(), s.outcome),
    }
}

fn summary_line(r: &RunReport) -> String {
    let failed: Vec<&str> = r
        .stages
        .iter()
        .filter(|s| matches!(s.outcome, "failed" | "partial"))
        .map(|s| s.stage.name())
        .collect();
    let files = match r.file_problems.len() {
        0 => String::new(),
        n => format!(
            "; {n} session file{} could not be read whole (warnings above; `memkit doctor` lists them)",
            if n == 1 { "" } else { "s" }
        ),
    };
    format!(
        "run {}: {} in {}{}{files}",
        &r.run_id[..8],
        if failed.is_empty() {
            "ok".to_string()
        } else {
            format!("problems in {}", failed.join(", "))
        },
        human_duration(r.finished_at - r.started_at),
        if failed.is_empty() {
            ""
        } else {
            " (see `memkit status`)"
        }
    )
}
