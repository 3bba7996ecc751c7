//! Extraction (phase 1) and consolidation (phase 2) backends behind one small
//! trait per phase; the pipeline never knows which backend it talks to.

pub mod agent;
pub mod batch;
pub mod consolidate;
pub mod heuristic;
pub mod model_consolidate;
pub mod model_extract;
pub mod transport;

use crate::error::Result;
use crate::modelinput::PreparedInput;
use serde::{Deserialize, Serialize};

/// What phase 1 produces for one session (Codex's three fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageOneOutput {
    /// Markdown raw memory: front matter plus one block per task.
    pub raw_memory: String,
    /// Markdown recap of the session for people and agents.
    pub rollout_summary: String,
    /// Short file-name-safe description (may be absent).
    #[serde(default)]
    pub rollout_slug: Option<String>,
}

impl StageOneOutput {
    /// Whether this is the "nothing durable happened" answer: an empty (or
    /// whitespace-only) raw memory or summary. Unlike Codex, whitespace counts as empty.
    pub fn is_empty(&self) -> bool {
        self.raw_memory.trim().is_empty() || self.rollout_summary.trim().is_empty()
    }
}

/// One phase-1 request.
pub struct ExtractRequest<'a> {
    /// The system prompt (instructions).
    pub system: &'a str,
    /// The user message: rendered `stage_one_input.md` with the transcript.
    pub user: &'a str,
    /// The prepared session (events for rule-based backends).
    pub input: &'a PreparedInput,
}

/// What a backend returns for one session.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractResult {
    /// The three fields.
    pub output: StageOneOutput,
    /// Input tokens (reported by the backend, else estimated).
    pub tokens_in: u64,
    /// Output tokens (reported by the backend, else estimated).
    pub tokens_out: u64,
    /// The part of the input served from the provider's prompt cache.
    pub tokens_cached: u64,
}

/// A phase-1 backend.
pub trait Extractor: Send + Sync {
    /// The backend name (`heuristic`, `openai`, `chat`, `command`).
    fn name(&self) -> &'static str;
    /// The model (or program) that answers, for the record.
    fn model(&self) -> String;
    /// Turns one prepared session into a stage-1 output.
    fn extract(&self, request: &ExtractRequest<'_>) -> Result<ExtractResult>;
}
