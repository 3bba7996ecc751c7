//! `memkit extract`.

use super::Ctx;
use crate::cli::ExtractArgs;
use crate::error::Result;
use crate::stages::extract::{self, ExtractOptions, ExtractReport};
use crate::stages::extract::{BATCH_TOKEN_LIMIT, BatchReport};
use crate::stages::spend::Over;
use crate::ui;
use std::io::IsTerminal;

/// Runs phase 1; exit 1 when any session (or batch) failed (it stays retryable).
pub fn run(ctx: &Ctx, args: &ExtractArgs) -> Result<i32> {
    let opts = ExtractOptions {
        since: args.since,
        idle: args.idle,
        limit: args.limit,
        jobs: args.jobs.map(usize::from),
        tool: args.tool.map(|t| t.tool()),
        thread: args.thread.clone(),
        file: args.file.clone(),
        wait: args.wait,
        scanned: false,
        read_ahead: Default::default(),
        force: args.force,
        dry_run: args.dry_run,
        backend: args.backend.map(|b| b.kind()),
        max_tokens: None,
        progress: std::io::stderr().is_terminal() && !ctx.json,
    };
    let mut store = ctx.store()?;
    let report = super::run_stage(&mut store, "extract", opts.dry_run, |store| {
        extract::run(&ctx.cfg, store, &opts)
    })?;
    print_report(ctx, &report);
    if let Some(since) = args.since
        && since > ctx.cfg.max_unused
        && report.succeeded > 0
    {
        ui::info(format!(
            "note: sync and consolidation keep only memories used or updated within \
             max_unused_days ({}); `memkit run --since {}` takes the older ones in for one run",
            whole_days(ctx.cfg.max_unused),
            whole_days(since)
        ));
    }
    Ok(if report.failed + report.batch_errors > 0 {
        1
    } else {
        0
    })
}

/// Prints per-session lines and the summary (JSON Lines with `--json`).
pub fn print_report(ctx: &Ctx, report: &ExtractReport) {
    if ctx.json {
        for s in &report.sessions {
            let mut v = serde_json::to_value(s).unwrap_or_default();
            v["kind"] = "session".into();
            ui::json_line(&v);
        }
        let mut v = serde_json::to_value(report).unwrap_or_default();
        v["kind"] = "summary".into();
        ui::json_line(&v);
        return;
    }
    if report.dry_run {
        for s in &report.sessions {
            match s.outcome {
                "would_extract" => crate::outln!(
                    "would extract {} ({}, ~{} input tokens) {}",
                    s.thread_id,
                    s.tool,
                    s.estimated_tokens,
                    s.rollout_path
                ),
                _ => crate::outln!(
                    "cannot extract {}: {}",
                    s.thread_id,
                    s.reason.as_deref().unwrap_or("")
                ),
            }
        }
        let total: usize = report.sessions.iter().map(|s| s.estimated_tokens).sum();
        crate::outln!(
            "dry run: {} sessions would be extracted with {} ({}), ~{} input tokens; nothing was claimed or sent",
            report.candidates,
            report.backend,
            report.model,
            total
        );
        return;
    }
    crate::outln!("{}", summary_line(report));
}

/// A window as whole days, rounded up (`30d`), as the config and `--since` spell it.
fn whole_days(window: std::time::Duration) -> String {
    format!("{}d", window.as_secs().div_ceil(86_400))
}

/// One line: counts, skips by reason, tokens.
pub fn summary_line(r: &ExtractReport) -> String {
    let mut line = format!(
        "extract ({} {}): {} claimed: {} succeeded, {} no output, {} failed",
        r.backend, r.model, r.claimed, r.succeeded, r.no_output, r.failed
    );
    for (label, reasons) in [("skipped", &r.skipped), ("not eligible", &r.not_eligible)] {
        if !reasons.is_empty() {
            let parts: Vec<String> = reasons
                .iter()
                .map(|(k, v)| format!("{v} {}", k.replace('_', " ")))
                .collect();
            line.push_str(&format!("; {label}: {}", parts.join(", ")));
        }
    }
    if r.deferred > 0 {
        let held_by = |reason: &str| {
            r.sessions
                .iter()
                .any(|s| s.reason.as_deref() == Some(reason))
        };
        let why = if held_by(BATCH_TOKEN_LIMIT) {
            "OpenAI's enqueued-token limit"
        } else if held_by(Over::Cost.reason()) {
            "cost budget"
        } else {
            "token budget"
        };
        line.push_str(&format!("; {} left for the next run ({why})", r.deferred));
    }
    line.push_str(&format!(
        "; tokens {} in / {} out",
        r.tokens_in, r.tokens_out
    ));
    for b in &r.batches {
        line.push_str(&format!("; {}", batch_line(b)));
    }
    line
}

/// What happened to one OpenAI batch, in words.
fn batch_line(b: &BatchReport) -> String {
    let id = b.remote_id.as_deref().unwrap_or(&b.id);
    let status = b.status.as_deref().unwrap_or("-");
    match b.event {
        "submitted" => format!(
            "submitted batch {id} with {} sessions (OpenAI Batch API: results within 24 h, \
             stored by the next run)",
            b.sessions
        ),
        "in_flight" => format!("batch {id} ({} sessions) is {status}", b.sessions),
        "error" => format!(
            "batch {id}: {}",
            b.note
                .as_deref()
                .unwrap_or("failed; the next run tries again")
        ),
        event => {
            let mut line = format!(
                "{event} batch {id} ({status}): {} stored, {} with nothing durable, {} failed \
                 (retried later), {} given back",
                b.stored, b.no_output, b.failed, b.released
            );
            if let Some(note) = &b.note {
                line.push_str(&format!(" ({note})"));
            }
            line
        }
    }
}
