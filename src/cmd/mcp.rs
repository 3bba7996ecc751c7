//! `memkit mcp`.

use super::Ctx;
use crate::error::Result;
use crate::mcp::{serve, tools::Tools};

/// Serves the memory tools over MCP on stdin/stdout until stdin closes.
pub fn run(ctx: &Ctx) -> Result<i32> {
    let store = ctx.store()?;
    let cwd = std::env::current_dir()
        .ok()
        .map(|p| p.display().to_string());
    let mut tools = Tools::new(ctx.cfg.clone(), store, cwd);
    serve(
        &mut tools,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    )?;
    Ok(0)
}
