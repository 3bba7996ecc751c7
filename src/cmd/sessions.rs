//! `memkit sessions`: the catalog, with eligibility and its reason.

use super::Ctx;
use crate::catalog::eligibility::{Ineligible, Windows, check};
use crate::catalog::scan;
use crate::cli::SessionsArgs;
use crate::error::Result;
use crate::store::threads;
use crate::ui;
use crate::util::text::inert_line;
use crate::util::time::{now_secs, rfc3339};
use serde::Serialize;

#[derive(Serialize)]
struct Listed<'a> {
    id: &'a str,
    tool: &'a str,
    path: &'a str,
    updated_at: String,
    cwd: Option<&'a str>,
    branch: Option<&'a str>,
    source: &'a str,
    originator: Option<&'a str>,
    cli_version: Option<&'a str>,
    human_turns: i64,
    assistant_messages: i64,
    tool_calls: i64,
    malformed_lines: i64,
    preview: &'a str,
    eligible: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason_text: Option<String>,
}

/// Lists sessions.
pub fn run(ctx: &Ctx, args: &SessionsArgs) -> Result<i32> {
    let mut store = ctx.store()?;
    if !args.no_scan {
        let report = scan(&ctx.cfg, &mut store)?;
        for w in &report.warnings {
            ui::warn(w);
        }
    }
    let now = now_secs();
    let windows = Windows::from_config(&ctx.cfg, now);
    let rows = threads::list(store.conn())?;
    let mut shown = 0;
    if !ctx.json {
        crate::outln!(
            "{:<44} {:<6} {:<20} {:>5} {:>5}  {:<32} CWD",
            "ID",
            "TOOL",
            "UPDATED",
            "HUMAN",
            "TOOLS",
            "ELIGIBLE"
        );
    }
    for row in &rows {
        if args.tool.is_some_and(|t| t.tool().name() != row.tool) {
            continue;
        }
        if let Some(since) = args.since
            && row.updated_at < now - since.as_secs() as i64
        {
            continue;
        }
        let verdict: Result<(), Ineligible> = check(row.into(), &ctx.cfg, windows, false, false);
        if args.eligible && verdict.is_err() {
            continue;
        }
        shown += 1;
        if ctx.json {
            ui::json_line(&Listed {
                id: &row.id,
                tool: &row.tool,
                path: &row.rollout_path,
                updated_at: rfc3339(row.updated_at),
                cwd: row.cwd.as_deref(),
                branch: row.git_branch.as_deref(),
                source: &row.source,
                originator: row.originator.as_deref(),
                cli_version: row.cli_version.as_deref(),
                human_turns: row.human_turns,
                assistant_messages: row.assistant_messages,
                tool_calls: row.tool_calls,
                malformed_lines: row.malformed_lines,
                preview: &row.preview,
                eligible: verdict.is_ok(),
                reason: verdict.as_ref().err().map(Ineligible::code),
                reason_text: verdict.as_ref().err().map(|r| r.describe(now)),
            });
        } else {
            let eligible = match &verdict {
                Ok(()) => "yes".to_string(),
                Err(r) => crate::util::text::one_line(&r.describe(now), 32),
            };
            crate::outln!(
                "{:<44} {:<6} {:<20} {:>5} {:>5}  {:<32} {}",
                inert_line(&row.id),
                row.tool,
                rfc3339(row.updated_at),
                row.human_turns,
                row.tool_calls,
                eligible,
                inert_line(row.cwd.as_deref().unwrap_or("-"))
            );
        }
    }
    if !ctx.json {
        ui::info(format!("{shown} of {} sessions", rows.len()));
    }
    Ok(0)
}
