//! `memkit inject`: the memory block for an agent's context.

use super::Ctx;
use crate::agents::BlockSource;
use crate::agents::claude::{HOOK_VALUE_MAX, hook_values};
use crate::cli::{InjectArgs, InjectFormat};
use crate::error::{Error, Result};
use crate::memory::MEMORY_SUMMARY_MD;
use crate::readpath::inject::SUMMARY_TOKEN_BUDGET;
use crate::ui;
use std::time::Duration;

/// How long part I of N waits per part before it, so Claude Code (which
/// passes hook values on in the order the hooks finish) tends to get them
/// in order; each part also says which it is.
const PART_STAGGER: Duration = Duration::from_millis(100);

/// Prints the read-path block; nothing (exit 0) when there is no summary yet.
pub fn run(ctx: &Ctx, args: &InjectArgs) -> Result<i32> {
    if args.part.is_some() && args.format != InjectFormat::ClaudeHook {
        return Err(Error::usage("--part goes with --format claude-hook"));
    }
    let root = &ctx.cfg.memory_root;
    let has_summary =
        std::fs::read_to_string(root.join(MEMORY_SUMMARY_MD)).is_ok_and(|s| !s.trim().is_empty());
    if !has_summary {
        ui::warn(format!(
            "no {MEMORY_SUMMARY_MD} in {} yet (run `memkit run` first); nothing to inject",
            root.display()
        ));
        if args.format == InjectFormat::ClaudeHook {
            ui::json_line(&serde_json::json!({}));
        }
        return Ok(0);
    }
    let source = BlockSource::load(&ctx.cfg)?;
    let project = args.project.as_ref().map(|p| p.display().to_string());
    if args.format == InjectFormat::ClaudeHook {
        return claude_hook(&source, project.as_deref(), args.part.unwrap_or((1, 1)));
    }
    let block = source.render(project.as_deref(), None);
    if block.budget_cut {
        ui::warn(format!(
            "{MEMORY_SUMMARY_MD} is over the {SUMMARY_TOKEN_BUDGET}-token budget; its middle was cut"
        ));
    }
    match args.format {
        InjectFormat::Json => ui::json_line(&serde_json::json!({
            "memory_root": root.display().to_string(),
            "truncated": block.budget_cut,
            "text": block.text,
        })),
        _ => crate::ui::write_stdout(format_args!("{}", block.text)),
    }
    Ok(0)
}

/// The JSON a Claude Code SessionStart hook prints: part `i` of the block
/// split into `n` values under the cap (`{}` when the block needs fewer).
fn claude_hook(source: &BlockSource, project: Option<&str>, (i, n): (usize, usize)) -> Result<i32> {
    std::thread::sleep(PART_STAGGER * (i as u32 - 1));
    let (values, left_out) = hook_values(source, project, n);
    if left_out > 0 && i == n {
        ui::warn(format!(
            "{left_out} characters of the summary do not fit {n} hook value(s) of {HOOK_VALUE_MAX} \
             characters; run `memkit install claude` to add hook entries"
        ));
    }
    match values.get(i - 1) {
        Some(text) => ui::json_line(&serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": text,
            }
        })),
        None => ui::json_line(&serde_json::json!({})),
    }
    Ok(0)
}
