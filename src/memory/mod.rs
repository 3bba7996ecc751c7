//! The memory folder in Codex's v1 layout: file names and formats, the safe
//! layout (no symlinks, atomic writes), extensions, the git baseline and the
//! validation of consolidated artifacts.
//!
//! ```text
//! <memory_root>/
//!   MEMORY.md  memory_summary.md  raw_memories.md
//!   rollout_summaries/<stem>.md
//!   skills/<name>/SKILL.md
//!   extensions/<ext>/instructions.md, extensions/<ext>/resources/…
//!   extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS>-<slug>.md
//!   .git/   phase2_workspace_diff.md (transient)
//! ```

pub mod diff;
pub mod extensions;
pub mod files;
pub mod git;
pub mod layout;
pub mod notes;
pub mod pins;
pub mod relocate;
pub mod scratch;
pub mod stem;
pub mod validate;

/// The consolidated handbook.
pub const MEMORY_MD: &str = "MEMORY.md";
/// The summary injected into every session (first line `v1`).
pub const MEMORY_SUMMARY_MD: &str = "memory_summary.md";
/// The merged stage-1 raw memories.
pub const RAW_MEMORIES_MD: &str = "raw_memories.md";
/// Per-session recaps.
pub const ROLLOUT_SUMMARIES_DIR: &str = "rollout_summaries";
/// Reusable procedures.
pub const SKILLS_DIR: &str = "skills";
/// A skill's instructions, `skills/<name>/SKILL.md`.
pub const SKILL_MD: &str = "SKILL.md";
/// Extension folders.
pub const EXTENSIONS_DIR: &str = "extensions";
/// The diff written for the consolidation backend.
pub const WORKSPACE_DIFF_MD: &str = "phase2_workspace_diff.md";
