//! `memkit inject`: the memory block for an agent's context.

use super::Ctx;
use crate::cli::{InjectArgs, InjectFormat};
use crate::error::Result;
use crate::memory::MEMORY_SUMMARY_MD;
use crate::readpath::inject::{fit_summary, project_first};
use crate::ui;

/// Prints the read-path block; nothing (exit 0) when there is no summary yet.
pub fn run(ctx: &Ctx, args: &InjectArgs) -> Result<i32> {
    let root = &ctx.cfg.memory_root;
    let summary = match std::fs::read_to_string(root.join(MEMORY_SUMMARY_MD)) {
        Ok(s) if !s.trim().is_empty() => s,
        _ => {
            ui::warn(format!(
                "no {MEMORY_SUMMARY_MD} in {} yet (run `memkit run` first); nothing to inject",
                root.display()
            ));
            if args.format == InjectFormat::ClaudeHook {
                ui::json_line(&serde_json::json!({}));
            }
            return Ok(0);
        }
    };
    let summary = match &args.project {
        Some(dir) => project_first(&summary, &dir.display().to_string()),
        None => summary,
    };
    let (summary, truncated) = fit_summary(&summary);
    if truncated {
        ui::warn(format!(
            "{MEMORY_SUMMARY_MD} is over the {}-token budget; its middle was cut",
            crate::readpath::inject::SUMMARY_TOKEN_BUDGET
        ));
    }
    let template = crate::templates::load(&ctx.cfg, "read_path.md")?;
    let text = crate::templates::render(
        &template,
        &[
            ("base_path", &root.display().to_string()),
            ("memory_summary", &summary),
        ],
    );
    match args.format {
        InjectFormat::Text => crate::ui::write_stdout(format_args!("{text}")),
        InjectFormat::Json => ui::json_line(&serde_json::json!({
            "memory_root": root.display().to_string(),
            "truncated": truncated,
            "text": text,
        })),
        InjectFormat::ClaudeHook => ui::json_line(&serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": "SessionStart",
                "additionalContext": text,
            }
        })),
    }
    Ok(0)
}
