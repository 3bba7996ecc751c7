//! `memkit status`: where things are and what the catalog holds.

use super::Ctx;
use crate::catalog::eligibility::{Windows, check};
use crate::error::Result;
use crate::store::jobs::{Phase2Job, phase2_job};
use crate::store::{SCHEMA_VERSION, stage1, threads};
use crate::ui;
use crate::util::time::now_secs;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize, Default)]
struct ToolCounts {
    sessions: usize,
    eligible: usize,
    ineligible: BTreeMap<&'static str, usize>,
}

#[derive(Serialize)]
struct Status {
    config_file: Option<String>,
    codex_home: String,
    claude_home: String,
    memkit_home: String,
    memory_root: String,
    database: String,
    schema_version: i64,
    schema_version_supported: i64,
    catalog: BTreeMap<String, ToolCounts>,
    memories: stage1::OutputStats,
    last_cite_import: Option<i64>,
    next_prune: usize,
    consolidation: Option<Phase2Job>,
    baseline: Option<Baseline>,
}

#[derive(Serialize)]
struct Baseline {
    commit: String,
    message: String,
}

/// Prints the status.
pub fn run(ctx: &Ctx) -> Result<i32> {
    let store = ctx.store()?;
    let now = now_secs();
    let windows = Windows::from_config(&ctx.cfg, now);
    let marks = stage1::extraction_watermarks(store.conn())?;
    let mut catalog: BTreeMap<String, ToolCounts> = BTreeMap::new();
    for row in threads::list(store.conn())? {
        let c = catalog.entry(row.tool.clone()).or_default();
        c.sessions += 1;
        match check(
            &row,
            &ctx.cfg,
            windows,
            marks.get(&row.id).copied(),
            false,
            false,
        ) {
            Ok(()) => c.eligible += 1,
            Err(r) => *c.ineligible.entry(r.code()).or_default() += 1,
        }
    }
    let cfg = &ctx.cfg;
    let status = Status {
        config_file: cfg.config_file.as_ref().map(|p| p.display().to_string()),
        codex_home: cfg.codex_home.display().to_string(),
        claude_home: cfg.claude_home.display().to_string(),
        memkit_home: cfg.memkit_home.display().to_string(),
        memory_root: cfg.memory_root.display().to_string(),
        database: store.path().display().to_string(),
        schema_version: store.schema_version()?,
        schema_version_supported: SCHEMA_VERSION,
        catalog,
        memories: stage1::output_stats(store.conn())?,
        last_cite_import: crate::store::usage::last_import(store.conn())?,
        next_prune: stage1::prune_candidates(
            store.conn(),
            cfg.max_unused.as_secs() as i64,
            crate::stages::prune::DEFAULT_LIMIT,
            now,
        )?
        .len(),
        consolidation: phase2_job(store.conn())?,
        baseline: crate::memory::git::describe_head(&cfg.memory_root)
            .map(|(commit, message)| Baseline { commit, message }),
    };
    if ctx.json {
        ui::json_line(&status);
        return Ok(0);
    }
    crate::outln!(
        "config       {}",
        status.config_file.as_deref().unwrap_or("(none: defaults)")
    );
    crate::outln!("codex_home   {}", status.codex_home);
    crate::outln!("claude_home  {}", status.claude_home);
    crate::outln!("memkit_home  {}", status.memkit_home);
    crate::outln!("memory_root  {}", status.memory_root);
    crate::outln!(
        "database     {} (schema {})",
        status.database,
        status.schema_version
    );
    if status.catalog.is_empty() {
        crate::outln!("catalog      empty (run `memkit scan`)");
    }
    for (tool, c) in &status.catalog {
        let reasons: Vec<String> = c
            .ineligible
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        crate::outln!(
            "catalog      {tool}: {} sessions, {} eligible{}",
            c.sessions,
            c.eligible,
            if reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", reasons.join(", "))
            }
        );
    }
    let m = &status.memories;
    crate::outln!(
        "memories     {} stored, {} in the last consolidation, {} ever cited, {} never cited{}",
        m.total,
        m.selected,
        m.cited,
        m.never_cited,
        m.oldest_unused
            .map(|t| format!("; oldest unused since {}", crate::util::time::date(t)))
            .unwrap_or_default()
    );
    crate::outln!(
        "usage        last cite-import {}; the next prune removes {}",
        status
            .last_cite_import
            .map(crate::util::time::rfc3339)
            .unwrap_or_else(|| "never".into()),
        status.next_prune
    );
    print_consolidation(status.consolidation.as_ref(), status.baseline.as_ref(), now);
    Ok(0)
}

fn print_consolidation(job: Option<&Phase2Job>, baseline: Option<&Baseline>, now: i64) {
    use crate::util::time::{human_duration, rfc3339};
    let at = |t: Option<i64>| t.map(rfc3339).unwrap_or_else(|| "-".into());
    match job {
        None => crate::outln!("consolidate  never run"),
        Some(j) => {
            let state = match j.status.as_str() {
                "running" if j.lease_until.is_some_and(|l| l > now) => format!(
                    "running ({}, lease until {})",
                    j.worker_id.as_deref().unwrap_or("?"),
                    at(j.lease_until)
                ),
                "running" => "stale lease (expired; the next run takes over)".to_string(),
                "done" => format!("done at {}", at(j.finished_at)),
                "error" if j.retry_remaining <= 0 => {
                    "failed; retries exhausted (run `memkit consolidate --force` after fixing the cause)".to_string()
                }
                "error" => format!(
                    "failed at {}; retry after {} ({} retries left)",
                    at(j.finished_at),
                    j.retry_at.map(|r| format!("{} (in {})", rfc3339(r), human_duration(r - now))).unwrap_or_default(),
                    j.retry_remaining
                ),
                "pending" => "pending: new memories wait for the next consolidation".to_string(),
                other => other.to_string(),
            };
            crate::outln!("consolidate  {state}");
            if let Some(e) = &j.last_error {
                crate::outln!("  last error {}", crate::util::text::one_line(e, 200));
            }
        }
    }
    if let Some(b) = baseline {
        crate::outln!("baseline     {} {}", b.commit, b.message);
    }
}
