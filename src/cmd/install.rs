//! `memkit install <agent>` and `memkit uninstall <agent>`: the read path
//! through each agent's own instruction mechanism (see [`crate::agents`]).

use super::Ctx;
use crate::agents::codex::{SettingKind, memory_settings};
use crate::agents::{Agent, Change, mcp, plan_install, plan_uninstall, state};
use crate::cli::InstallArgs;
use crate::error::Result;
use crate::ui;
use crate::util::time::now_secs;

/// Installs (or brings up to date) an agent's read path.
pub fn install(ctx: &Ctx, args: &InstallArgs) -> Result<i32> {
    let agent = args.agent.agent();
    let change = plan_install(&ctx.cfg, agent)?;
    let fit = change.fit.clone().unwrap_or_default();
    let done = finish(ctx, &change, args.dry_run)?;
    if !args.dry_run {
        state::record(ctx.store()?.conn(), agent, now_secs())?;
    }
    let file = change.path.display();
    if !ctx.json && !args.dry_run {
        let what = if done {
            "installed"
        } else {
            "already up to date:"
        };
        crate::outln!(
            "{}: {what} the memory read path in {file} ({})",
            agent.name(),
            fit.describe()
        );
    }
    if ctx.json {
        ui::json_line(&serde_json::json!({
            "agent": agent.name(), "file": file.to_string(), "changed": done,
            "dry_run": args.dry_run, "fit": fit,
        }));
    }
    if fit.left_out > 0 {
        ui::warn(format!(
            "{}: {} {} of the summary do not fit and are left out (the block says so)",
            agent.name(),
            fit.left_out,
            fit.unit
        ));
    }
    if agent == Agent::Codex {
        warn_codex_memory_feature(ctx);
    }
    if args.mcp {
        let change = mcp::plan_register(&ctx.cfg, agent, &crate::agents::memkit_program())?;
        report_mcp(
            ctx,
            &change,
            finish(ctx, &change, args.dry_run)?,
            args.dry_run,
            "registered",
        );
    }
    Ok(0)
}

/// One line (or JSON object) about the MCP registration.
fn report_mcp(ctx: &Ctx, change: &Change, changed: bool, dry_run: bool, verb: &str) {
    let file = change.path.display().to_string();
    let agent = change.agent.name();
    if ctx.json {
        ui::json_line(&serde_json::json!({
            "agent": agent, "mcp_file": file, "changed": changed, "dry_run": dry_run,
        }));
    } else if !dry_run {
        let what = if changed { verb } else { "already up to date:" };
        crate::outln!("{agent}: {what} the memkit MCP server in {file}");
    }
}

/// Removes an agent's read path, and memkit's MCP server from its settings.
pub fn uninstall(ctx: &Ctx, args: &InstallArgs) -> Result<i32> {
    let agent = args.agent.agent();
    if agent != Agent::Gemini {
        let change = mcp::plan_unregister(&ctx.cfg, agent)?;
        if !change.is_noop() || args.mcp {
            let changed = finish(ctx, &change, args.dry_run)?;
            report_mcp(ctx, &change, changed, args.dry_run, "removed");
        }
    }
    let change = plan_uninstall(&ctx.cfg, agent)?;
    let done = finish(ctx, &change, args.dry_run)?;
    let file = change.path.display();
    if ctx.json {
        ui::json_line(&serde_json::json!({
            "agent": agent.name(), "file": file.to_string(), "changed": done,
            "dry_run": args.dry_run, "removed_file": change.after.is_none(),
        }));
    } else if !args.dry_run {
        if done {
            crate::outln!("{}: removed the memory read path from {file}", agent.name());
        } else {
            crate::outln!(
                "{}: no memory read path in {file}; nothing to do",
                agent.name()
            );
        }
    }
    Ok(0)
}

/// Prints the change (`--dry-run`) or applies it; whether anything changes.
fn finish(ctx: &Ctx, change: &Change, dry_run: bool) -> Result<bool> {
    let changes = !change.is_noop();
    if dry_run {
        if !ctx.json {
            crate::ui::write_stdout(format_args!("{}", change.diff()?));
        }
        ui::info(if changes {
            "dry run: nothing was written"
        } else {
            "dry run: nothing would change"
        });
        return Ok(changes);
    }
    change.apply()?;
    Ok(changes)
}

/// Codex's own memory writer runs whenever its memory feature is on, even
/// with memkit installed: say which lines to remove.
fn warn_codex_memory_feature(ctx: &Ctx) {
    for s in memory_settings(&ctx.cfg.codex_home) {
        let why = match s.kind {
            SettingKind::FeatureOn => {
                "turns on Codex's own memory writer, which sends old sessions to the model and rewrites its memory folder"
            }
            SettingKind::DisablesThreads => {
                "makes Codex record new sessions as memory_mode = \"disabled\", which memkit skips"
            }
            SettingKind::Other => continue,
        };
        ui::warn(format!(
            "{}:{}: `{}` {why}; remove that line",
            s.file.display(),
            s.line,
            s.text
        ));
    }
}
