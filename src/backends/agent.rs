//! Phase 2 through an external agent (e.g. `codex exec`): the agent works
//! on a scratch copy of the memory folder (no `.git`, the live notes out of
//! reach), with the prompt on stdin, in its own process group that is killed
//! whole on timeout (and with memkit, by the kernel). What it leaves is read
//! back and goes through the same validation as a model's answer before any
//! byte of the live folder changes.

use super::consolidate::{ConsolidateResult, ConsolidationInput, Consolidator};
use super::transport::command::run_program;
use crate::error::{Error, Result};
use crate::memory::scratch::Scratch;
use crate::util::text::estimate_tokens;
use std::path::PathBuf;
use std::time::Duration;

/// The agent backend.
pub struct AgentConsolidator {
    argv: Vec<String>,
    template: String,
    scratch_base: PathBuf,
    timeout: Duration,
}

impl AgentConsolidator {
    /// Runs `argv` with the consolidation `template` (rendered for the
    /// scratch copy) for at most `timeout`; copies go under `scratch_base`.
    pub fn new(
        argv: Vec<String>,
        template: String,
        scratch_base: PathBuf,
        timeout: Duration,
    ) -> Result<Self> {
        if argv.is_empty() {
            return Err(Error::usage(
                "the agent backend needs agent_command = [\"program\", \"arg\", …] in [consolidate]",
            ));
        }
        Ok(AgentConsolidator {
            argv,
            template,
            scratch_base,
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
        let scratch = Scratch::copy_of(input.root, &self.scratch_base)?;
        let prompt = crate::templates::render(
            &self.template,
            &[
                ("memory_root", &scratch.path().display().to_string()),
                ("diff_file", crate::memory::WORKSPACE_DIFF_MD),
            ],
        );
        let out = run_program(
            &self.argv,
            prompt.as_bytes(),
            Some(scratch.path()),
            self.timeout,
        )?;
        out.check_success(&format!("the agent {}", self.argv[0]))?;
        Ok(ConsolidateResult {
            files: scratch.outputs()?,
            tokens_in: estimate_tokens(prompt.len()) as u64,
            tokens_out: estimate_tokens(out.stdout.len()) as u64,
            tokens_cached: 0,
        })
    }
}
