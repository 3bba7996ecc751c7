//! Transports for structured-output model calls, shared by the `openai`,
//! `chat` and `command` extraction backends and the `model` consolidation backend.

mod chat;
pub mod command;
mod http;
pub mod openai;

pub use chat::ChatCompletions;
pub use command::CommandTransport;
pub use http::HttpClient;
pub use openai::OpenAiResponses;

use crate::config::ExtractBackendKind;
use crate::error::{Error, Result};
use crate::util::text::estimate_tokens;
use serde_json::Value;
use std::time::Duration;

/// One structured-output request: instructions, one user message, a strict JSON schema.
pub struct StructuredRequest<'a> {
    /// System prompt / instructions.
    pub system: &'a str,
    /// The user message.
    pub user: &'a str,
    /// Name of the schema (`stage_one_output`, `consolidation_output`).
    pub schema_name: &'a str,
    /// The JSON schema the answer must follow.
    pub schema: &'a Value,
}

/// The answer: the JSON text and the token counts the server reported.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredResponse {
    /// The JSON object as text.
    pub text: String,
    /// Input tokens, if reported.
    pub tokens_in: Option<u64>,
    /// Output tokens, if reported.
    pub tokens_out: Option<u64>,
    /// The part of the input served from the provider's prompt cache, if reported.
    pub tokens_cached: Option<u64>,
}

/// Something that answers structured requests.
pub trait Transport: Send + Sync {
    /// `openai`, `chat` or `command`.
    fn name(&self) -> &'static str;
    /// The model (or program) that answers.
    fn model(&self) -> String;
    /// Sends one request and returns the answer text.
    fn complete(&self, request: &StructuredRequest<'_>) -> Result<StructuredResponse>;
}

/// How to reach a transport.
#[derive(Debug, Clone)]
pub struct TransportSettings {
    /// Which transport.
    pub kind: ExtractBackendKind,
    /// Model name (empty: the transport's default).
    pub model: String,
    /// Base URL (empty: the transport's default).
    pub base_url: String,
    /// Environment variable holding the API key.
    pub api_key_env: String,
    /// argv of the command transport.
    pub command: Vec<String>,
    /// Time limit of one request.
    pub timeout: Duration,
    /// Retries after 429 / 5xx / connection errors.
    pub max_retries: u32,
    /// Default model for the OpenAI transport when `model` is empty.
    pub default_openai_model: &'static str,
}

/// Default base URL of the OpenAI transport.
const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Default base URL of the chat transport (a local Ollama).
const CHAT_BASE_URL: &str = "http://127.0.0.1:11434/v1";

/// The API key in the environment variable `env`, unless unset or blank.
pub fn api_key(env: &str) -> Option<String> {
    std::env::var(env).ok().filter(|k| !k.trim().is_empty())
}

/// The base URL of an HTTP transport: the configured one, else the
/// transport's default, without a trailing slash.
pub fn base_url(kind: ExtractBackendKind, configured: &str) -> String {
    let base = match configured.trim() {
        "" if matches!(
            kind,
            ExtractBackendKind::Openai | ExtractBackendKind::OpenaiBatch
        ) =>
        {
            OPENAI_BASE_URL
        }
        "" => CHAT_BASE_URL,
        set => set,
    };
    base.trim_end_matches('/').to_string()
}

/// Builds the transport described by `s`.
pub fn build(s: &TransportSettings) -> Result<Box<dyn Transport>> {
    let key = || api_key(&s.api_key_env);
    let base = || base_url(s.kind, &s.base_url);
    Ok(match s.kind {
        // A batch's requests are the synchronous backend's; this transport
        // serves a dry run and the names a run records.
        ExtractBackendKind::Openai | ExtractBackendKind::OpenaiBatch => {
            let api_key = key().ok_or_else(|| {
                Error::usage(format!(
                    "the openai backend needs an API key: set {} (or api_key_env in the config)",
                    s.api_key_env
                ))
            })?;
            let model = if s.model.is_empty() {
                s.default_openai_model.to_string()
            } else {
                s.model.clone()
            };
            Box::new(OpenAiResponses::new(
                HttpClient::new(s.timeout, s.max_retries),
                base(),
                api_key,
                model,
            ))
        }
        ExtractBackendKind::Chat => {
            if s.model.is_empty() {
                return Err(Error::usage(
                    "the chat backend needs a model name: set model in the config (e.g. \"qwen3:8b\")",
                ));
            }
            Box::new(ChatCompletions::new(
                HttpClient::new(s.timeout, s.max_retries),
                base(),
                key(),
                s.model.clone(),
            ))
        }
        ExtractBackendKind::Command => {
            if s.command.is_empty() {
                return Err(Error::usage(
                    "the command backend needs command = [\"program\", \"arg\", …] in the config",
                ));
            }
            Box::new(CommandTransport::new(s.command.clone(), s.timeout))
        }
        ExtractBackendKind::Heuristic => {
            return Err(Error::usage("heuristic is not a model transport"));
        }
    })
}

impl StructuredResponse {
    /// The answer parsed as `T`, with an error that shows its start when it is not.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_str(json_object_text(&self.text)).map_err(|e| {
            let start: String = self.text.chars().take(200).collect();
            Error::failed(format!(
                "the model's answer is not the expected JSON ({e}): {start}"
            ))
        })
    }

    /// Tokens (input, output) as reported, else estimated from the bytes of
    /// the prompt and of the answer.
    pub fn tokens(&self, prompt_bytes: usize) -> (u64, u64) {
        (
            self.tokens_in
                .unwrap_or_else(|| estimate_tokens(prompt_bytes) as u64),
            self.tokens_out
                .unwrap_or_else(|| estimate_tokens(self.text.len()) as u64),
        )
    }
}

/// Pulls a JSON object out of a model's text: tolerates a Markdown code fence
/// or prose around the object.
fn json_object_text(text: &str) -> &str {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|rest| rest.trim_end().trim_end_matches("```").trim())
        .unwrap_or(t);
    match (t.find('{'), t.rfind('}')) {
        (Some(a), Some(b)) if b > a => &t[a..=b],
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_object_in_fenced_or_chatty_text() {
        assert_eq!(json_object_text("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(
            json_object_text("Here you go: {\"a\":{\"b\":2}} hope it helps"),
            "{\"a\":{\"b\":2}}"
        );
        assert_eq!(json_object_text("{}"), "{}");
    }
}
