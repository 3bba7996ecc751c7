//! The phase-2 seam: what a consolidation backend gets and returns.

use crate::error::Result;
use crate::memory::files::SelectedOutput;
use crate::memory::git::Change;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A user note from `extensions/ad_hoc/notes/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// File name (`<YYYY-MM-DDTHH-MM-SS>-<slug>.md`).
    pub file_name: String,
    /// The note.
    pub text: String,
}

/// Everything a consolidation may use.
pub struct ConsolidationInput<'a> {
    /// The memory folder.
    pub root: &'a Path,
    /// The selected stage-1 outputs, ascending thread id (as in `raw_memories.md`).
    pub selection: &'a [SelectedOutput],
    /// What changed since the last consolidation.
    pub changes: &'a [Change],
    /// The rendered `phase2_workspace_diff.md`.
    pub diff_file: &'a str,
    /// `MEMORY.md` before this run, if any.
    pub previous_memory: Option<String>,
    /// `memory_summary.md` before this run, if any.
    pub previous_summary: Option<String>,
    /// Every note in `extensions/ad_hoc/notes/`.
    pub notes: &'a [Note],
    /// Now, Unix seconds.
    pub now: i64,
}

/// A skill the consolidation wants written to `skills/<name>/SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Skill {
    /// Lower-case, hyphenated name (the folder).
    pub name: String,
    /// The `SKILL.md` text.
    pub content: String,
    /// The skill's other files (scripts, templates) when the backend wrote
    /// the whole folder, as an agent does; `None` (a model, which only
    /// writes `SKILL.md`) leaves the folder's other files as they are.
    #[serde(skip)]
    pub files: Option<Vec<SkillFile>>,
}

/// A file of a skill other than its `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Path inside the skill's folder, `/`-separated (`scripts/run.sh`).
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its permission bits.
    pub mode: u32,
}

/// Whether `name` may name a skill folder: lower-case letters, digits and
/// hyphens, at most 64 characters (Codex's skill naming).
pub fn is_valid_skill_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// New memory files proposed by a backend (validated before anything is written).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsolidatedFiles {
    /// The new `MEMORY.md`.
    pub memory_md: String,
    /// The new `memory_summary.md`.
    pub memory_summary_md: String,
    /// Skills to add or rewrite; `None` leaves `skills/` as it is.
    #[serde(default)]
    pub skills: Option<Vec<Skill>>,
    /// Whether `skills` is the whole of `skills/` (an agent's finished
    /// folder), so that skill folders missing from it were deleted. A model
    /// never sees the existing skills, so its list only adds and rewrites.
    #[serde(skip)]
    pub skills_complete: bool,
}

/// A backend's answer with its token use.
pub struct ConsolidateResult {
    /// The files, for memkit to validate and write.
    pub files: ConsolidatedFiles,
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
    /// The part of the input served from the provider's prompt cache.
    pub tokens_cached: u64,
}

/// A phase-2 backend.
pub trait Consolidator {
    /// `heuristic`, `model` or `agent`.
    fn name(&self) -> &'static str;
    /// The model or program, for the record.
    fn model(&self) -> String;
    /// Consolidates.
    fn consolidate(&self, input: &ConsolidationInput<'_>) -> Result<ConsolidateResult>;
}
