//! Phase 2 through an external agent (e.g. `codex exec`): the prompt on stdin,
//! the memory folder as working directory, a time limit. The agent edits the
//! files itself; memkit validates them afterwards and restores the previous
//! ones on any failure.

use super::consolidate::{ConsolidateResult, Consolidation, ConsolidationInput, Consolidator};
use super::transport::command::run_program;
use crate::error::{Error, Result};
use crate::util::text::estimate_tokens;
use std::time::Duration;

/// The agent backend.
pub struct AgentConsolidator {
    argv: Vec<String>,
    prompt: String,
    timeout: Duration,
}

impl AgentConsolidator {
    /// Runs `argv` with `prompt` (the rendered consolidation prompt) for at most `timeout`.
    pub fn new(argv: Vec<String>, prompt: String, timeout: Duration) -> Result<Self> {
        if argv.is_empty() {
            return Err(Error::usage(
                "the agent backend needs agent_command = [\"program\", \"arg\", …] in [consolidate]",
            ));
        }
        Ok(AgentConsolidator {
            argv,
            prompt,
            timeout,
        })
    }
}

impl Consolidator for AgentConsolidator {
    fn name(&self) -> &'static str {
        "agent"
    }

    fn model(&self) -> String {
        self.argv[0].clone()
    }

    fn consolidate(&self, input: &ConsolidationInput<'_>) -> Result<ConsolidateResult> {
        let out = run_program(
            &self.argv,
            self.prompt.as_bytes(),
            Some(input.root),
            self.timeout,
        )?;
        out.check_success(&format!("the agent {}", self.argv[0]))?;
        Ok(ConsolidateResult {
            consolidation: Consolidation::WrittenInPlace,
            tokens_in: estimate_tokens(self.prompt.len()) as u64,
            tokens_out: estimate_tokens(out.stdout.len()) as u64,
        })
    }
}
