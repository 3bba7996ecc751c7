//! Gemini CLI: a managed block in its global context file `~/.gemini/GEMINI.md`,
//! which Gemini CLI concatenates into every session's context.

use super::Agent;
use super::markdown::MarkdownReadPath;
use crate::config::Config;
use crate::error::{Error, Result};

/// Gemini CLI's global context file.
pub const GEMINI_MD: &str = "GEMINI.md";

/// The read path in `<gemini_home>/GEMINI.md` (no size limit of its own).
pub fn gemini_read_path(cfg: &Config) -> Result<MarkdownReadPath> {
    let home = cfg.gemini_home.as_ref().ok_or_else(|| {
        Error::usage(
            "gemini_home is not known: HOME is not set; set HOME or gemini_home in the config",
        )
    })?;
    Ok(MarkdownReadPath::new(
        Agent::Gemini,
        home.join(GEMINI_MD),
        None,
    ))
}
