//! `memkit status`: where things are and what the catalog holds.

use super::Ctx;
use crate::catalog::eligibility::{Windows, check};
use crate::error::Result;
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
    Ok(0)
}
