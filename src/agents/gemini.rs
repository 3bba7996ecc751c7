//! Gemini CLI: a managed block in its global context file `~/.gemini/GEMINI.md`,
//! which Gemini CLI concatenates into every session's context.

use super::Agent;
use super::markdown::MarkdownReadPath;
use crate::config::Config;

/// Gemini CLI's global context file.
pub const GEMINI_MD: &str = "GEMINI.md";

/// The read path in `<gemini_home>/GEMINI.md` (no size limit of its own).
pub fn gemini_read_path(cfg: &Config) -> MarkdownReadPath {
    MarkdownReadPath::new(Agent::Gemini, cfg.gemini_home.join(GEMINI_MD), None)
}
