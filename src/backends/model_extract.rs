//! Phase 1 through a model transport: one strict-schema call per session.

use super::transport::{StructuredRequest, StructuredResponse, Transport};
use super::{ExtractRequest, ExtractResult, Extractor, StageOneOutput};
use crate::error::Result;
use serde_json::{Value, json};

/// The strict JSON schema of a stage-1 answer (Codex's three keys; the slug may be null).
pub fn stage_one_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "rollout_summary": {"type": "string"},
            "rollout_slug": {"type": ["string", "null"]},
            "raw_memory": {"type": "string"},
        },
        "required": ["rollout_summary", "rollout_slug", "raw_memory"],
        "additionalProperties": false,
    })
}

/// An extractor that asks a model.
pub struct ModelExtractor {
    transport: Box<dyn Transport>,
    schema: Value,
}

impl ModelExtractor {
    /// Wraps a transport.
    pub fn new(transport: Box<dyn Transport>) -> Self {
        ModelExtractor {
            transport,
            schema: stage_one_schema(),
        }
    }
}

impl Extractor for ModelExtractor {
    fn name(&self) -> &'static str {
        self.transport.name()
    }

    fn model(&self) -> String {
        self.transport.model()
    }

    fn extract(&self, request: &ExtractRequest<'_>) -> Result<ExtractResult> {
        let response = self.transport.complete(&StructuredRequest {
            system: request.system,
            user: request.user,
            schema_name: "stage_one_output",
            schema: &self.schema,
        })?;
        stage_one_result(&response, request.system.len() + request.user.len())
    }
}

/// A model's answer as a stage-1 result: the three fields parsed, the tokens
/// as reported (else estimated from the `prompt_bytes` and the answer).
pub fn stage_one_result(
    response: &StructuredResponse,
    prompt_bytes: usize,
) -> Result<ExtractResult> {
    let output: StageOneOutput = response.parse()?;
    let (tokens_in, tokens_out) = response.tokens(prompt_bytes);
    Ok(ExtractResult {
        tokens_in,
        tokens_out,
        tokens_cached: response.tokens_cached.unwrap_or(0),
        output,
    })
}
